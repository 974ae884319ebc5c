"""Wrong input is loud: a model of another target, a clause or seed naming what the data
lacks, a misspelled dataset -- each an error (exit code 2, docs/exit-codes.md) naming it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ilpkit.cli.errors import EXIT_USER_ERROR
from ilpkit.cli.main import app
from ilpkit.core.formats import load_task
from ilpkit.core.mismatch import check_clause, check_model_target, check_seed
from ilpkit.datasets import bundled_path, resolve_data_path
from ilpkit.errors import DataError
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import Clause

runner = CliRunner()


def term(text: str):  # type: ignore[no-untyped-def]
    return PrologReader().read_term(text)


@pytest.fixture(scope="module")
def trains():  # type: ignore[no-untyped-def]
    return load_task(bundled_path("trains"))


def test_unknown_body_predicate_is_named_with_did_you_mean(trains) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DataError, match=r"hascar/2 is not defined.*did you mean 'has_car/2'"):
        check_clause(trains, Clause.from_term(term("eastbound(A) :- hascar(A,B)")))


def test_wrong_head_is_named(trains) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DataError, match=r"westbound/1 is not the data's target eastbound/1"):
        check_clause(trains, Clause.from_term(term("westbound(A) :- has_car(A,B)")))


def test_builtins_and_negated_known_predicates_pass(trains) -> None:  # type: ignore[no-untyped-def]
    check_clause(
        trains, Clause.from_term(term(r"eastbound(A) :- has_car(A,B), \+ short(B), B \= x"))
    )


def test_a_misspelling_inside_negation_is_found(trains) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DataError, match="shrt/1"):
        check_clause(trains, Clause.from_term(term(r"eastbound(A) :- has_car(A,B), \+ shrt(B)")))


def test_seed_checks(trains) -> None:  # type: ignore[no-untyped-def]
    assert check_seed(trains, term("eastbound(east1)")) is None
    warning = check_seed(trains, term("eastbound(east99)"))
    assert warning is not None and "eastbound(east99) is not an example" in warning
    with pytest.raises(DataError, match="not ground"):
        check_seed(trains, term("eastbound(A)"))
    with pytest.raises(DataError, match=r"eastbnd/1, not of the data's target eastbound/1"):
        check_seed(trains, term("eastbnd(east1)"))


def test_model_target_mismatch(trains) -> None:  # type: ignore[no-untyped-def]
    check_model_target("eastbound/1", trains, "m.json")
    check_model_target(None, trains, "m.json")  # an old model without a target: no check
    with pytest.raises(DataError, match=r"m.json was learnt for advisedby/2 .* eastbound/1"):
        check_model_target("advisedby/2", trains, "m.json")


def test_misspelled_dataset_suggests_the_bundled_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DataError, match="did you mean 'uwcse'"):
        resolve_data_path("uwsce")
    (tmp_path / "uwsce.pl").write_text("")  # a local file of that stem wins: no suggestion
    assert resolve_data_path("uwsce") == Path("uwsce")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["coverage", "trains", "--clause", "eastbound(A) :- hascar(A,B)"], "has_car/2"),
        (["saturate", "trains", "--example", "eastbnd(east1)"], "eastbnd/1"),
        (["saturate", "trains", "--example", "eastbound(A)"], "not ground"),
        (["saturate", "trains", "--example", "99"], "ids 0..9"),
        (["data", "check", "uwsce"], "did you mean 'uwcse'"),
        (["learn", "uwsce"], "did you mean 'uwcse'"),
        (["cv", "uwsce", "--out", "never-written"], "did you mean 'uwcse'"),
        (["explain", "no-such-model.json"], "does not exist"),
    ],
)
def test_every_command_exits_2_naming_the_mistake(args: list[str], expected: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == EXIT_USER_ERROR, result.output
    assert expected in result.output
    assert "Traceback" not in result.output


def test_saturating_a_non_example_warns_and_goes_on() -> None:
    result = runner.invoke(app, ["saturate", "trains", "--example", "eastbound(east99)"])
    assert result.exit_code == 0
    assert "warning: --example: eastbound(east99) is not an example" in result.output


def test_predict_with_a_model_of_another_target_fails(tmp_path: Path) -> None:
    model = tmp_path / "m.json"
    # A hand-written theory model of eastbound/1 (the format ilpkit learn writes).
    model.write_text(
        '{"format_version": 1, "learner": "theory", "target": "eastbound/1", '
        '"clauses_evaluated": 1, "rules": [{"clause": "eastbound(A) :- has_car(A,B)", '
        '"weight": 1.0, "tp": 5, "fp": 5, "precision": 0.5, "recall": 1.0}]}'
    )
    ok = runner.invoke(app, ["predict", str(model), "trains"])
    assert ok.exit_code == 0, ok.output
    result = runner.invoke(app, ["predict", str(model), "uwcse"])
    assert result.exit_code == EXIT_USER_ERROR
    assert "learnt for eastbound/1" in result.output and "advisedby/2" in result.output
