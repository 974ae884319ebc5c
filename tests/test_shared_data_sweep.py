"""Every supported dataset variant in ``../shared/data`` loads with the documented counts.

This module runs only where the shared data folder exists (the project's development
machines and CI); a user's clone has no such folder and the tests are skipped.  Expected
counts come from the datasets' READMEs and ``docs/datasets-survey.md`` (measured there with
shell tools and SWI-Prolog, independently of ilpkit).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ilpkit.core.formats import load_task
from ilpkit.errors import FormatError, PrologSyntaxError
from tests.skips import shared_data_missing

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"

pytestmark = [
    pytest.mark.shared_data,
    pytest.mark.skipif(not SHARED.is_dir(), reason=shared_data_missing(SHARED)),
]

# (variant, stem, format, target, positives, negatives, {fold: (pos, neg)} or None)
CASES: list[tuple[str, str | None, str, str, int, int, dict[str, tuple[int, int]] | None]] = [
    ("trains/aleph_michalski10", None, "aleph", "eastbound/1", 5, 5, None),
    (
        "trains/boostsrl_starling",
        None,
        "boostsrl",
        "eastbound/1",
        10,
        10,
        {"train": (5, 5), "test": (5, 5)},
    ),
    ("trains/prolog_ilpexp", "1", "aleph", "f/1", 271, 729, None),
    ("trains/prolog_ilpexp", "2", "aleph", "f/1", 20, 81, None),
    ("trains/prolog_ilpexp", "3", "aleph", "f/1", 792, 208, None),
    ("trains/prolog_ilpexp", "4", "aleph", "f/1", 321, 679, None),
    (
        "uwcse/aleph_yap",
        None,
        "aleph",
        "advisedby/2",
        113,
        2711,
        {"f0": (35, 721), "f1": (20, 448), "f2": (9, 151), "f3": (33, 939), "f4": (16, 452)},
    ),
    (
        "uwcse/prolog_ilpexp",
        None,
        "aleph",
        "advisedBy/2",
        113,
        39177,
        {"train": (64, 24585), "test": (49, 14592)},
    ),
    ("uwcse/boostsrl_ilp_advisedby_small", None, "boostsrl", "advisedby/2", 35, 4589, None),
    ("mutagenesis/prolog_ilpexp", None, "aleph", "active/1", 125, 63, None),
    ("carcinogenesis/aleph_yap", None, "aleph", "active/1", 162, 136, None),
    ("carcinogenesis/prolog_ilpexp", None, "aleph", "active/1", 162, 136, None),
    ("alzheimers/aleph_yap", None, "aleph", "great_ne/2", 343, 343, None),
    ("alzheimers/prolog_ilpexp", "amine", "aleph", "great_ne/2", 343, 343, None),
    ("imdb/prolog_ilpexp", "imdb1", "aleph", "f/2", 382, 7170, None),
    ("imdb/prolog_ilpexp/imdb2", None, "aleph", "f/2", 3857, 117944, None),
    ("imdb/prolog_ilpexp/imdb3", None, "aleph", "f/2", 4075, 117726, None),
    (
        "imdb/boostsrl_starling_1split",
        None,
        "boostsrl",
        "female_gender/1",
        191,
        293,
        {"train": (96, 147), "test": (95, 146)},
    ),
    ("imdb/boostsrl_workedunder_5fold", None, "boostsrl", "workedUnder/2", 1910, 3820, None),
    ("drug_interactions/prolog_ilpexp", None, "aleph", "interacts/2", 1983, 2232, None),
    (
        "drug_interactions/boostsrl_srlearn",
        None,
        "boostsrl",
        "interacts/2",
        2832,
        3188,
        {"train": (1983, 2232), "test": (849, 956)},
    ),
    (
        "icml/boostsrl_srlearn",
        None,
        "boostsrl",
        "coauthor/2",
        155,
        6498,
        {"train": (109, 4549), "test": (46, 1949)},
    ),
    ("krk_illegal/boostsrl_starling", None, "boostsrl", "illegal/6", 3240, 6760, None),
    (
        "nell_sports/boostsrl_srlearn",
        None,
        "boostsrl",
        "teamplayssport/2",
        300,
        600,
        {"train": (210, 420), "test": (90, 180)},
    ),
    (
        "nell_sports/prolog_ilpexp",
        None,
        "aleph",
        "teamplayssport/2",
        300,
        600,
        {"train": (210, 420), "test": (90, 180)},
    ),
    (
        "protein_secondary_structure/aleph_yap",
        None,
        "aleph",
        "alpha/2",
        1065,
        963,
        {"train": (848, 764), "test": (217, 199)},
    ),
    ("protein_secondary_structure/prolog_ilpexp", None, "aleph", "alpha/2", 848, 764, None),
    (
        "pyrimidines_triazines/aleph_yap",
        None,
        "aleph",
        "great/2",
        1394,
        1394,
        {"train": (881, 881), "test": (513, 513)},
    ),
    (
        "pyrimidines_triazines/prolog_ilpexp/triazines",
        None,
        "aleph",
        "great/2",
        90542,
        90542,
        {"train": (59183, 59183), "test": (31359, 31359)},
    ),
    ("toy_cancer/boostsrl_srlearn", None, "boostsrl", "cancer/1", 7, 4, None),
    ("toy_father/boostsrl_srlearn", None, "boostsrl", "father/2", 8, 25, None),
    ("toy_machines/boostsrl_srlearn", None, "boostsrl", "machine/2", 15, 0, None),
    (
        "webkb/prolog_ilpexp",
        None,
        "aleph",
        "faculty/1",
        307,
        1187,
        {"train": (154, 594), "test": (153, 593)},
    ),
    ("webkb/boostsrl_srlearn", None, "boostsrl", "faculty/1", 612, 2372, None),
    ("uwcse/boostsrl_srlearn", None, "boostsrl", "advisedby/2", 565, 264715, None),
    ("cora/boostsrl_srlearn", None, "boostsrl", "sameauthor/2", 4060, 370, None),
]


@pytest.mark.parametrize(
    ("variant", "stem", "fmt", "target", "pos", "neg", "folds"),
    CASES,
    ids=[f"{c[0]}{':' + c[1] if c[1] else ''}" for c in CASES],
)
def test_variant_loads_with_documented_counts(
    variant: str,
    stem: str | None,
    fmt: str,
    target: str,
    pos: int,
    neg: int,
    folds: dict[str, tuple[int, int]] | None,
) -> None:
    task = load_task(SHARED / variant, stem=stem)
    summary = task.summary()
    assert summary["format"] == fmt
    assert summary["target"] == target
    assert (summary["positives"], summary["negatives"]) == (pos, neg)
    if folds is not None:
        got = {k: (v["positives"], v["negatives"]) for k, v in summary["folds"].items()}
        assert got == folds


# Variants no loader supports, with the reason (also listed in docs/formats.md).
UNSUPPORTED = [
    ("kg_kinships_nations_umls/neuralogic_nations", "NeuraLogic template format"),
    ("kg_kinships_nations_umls/pykeen", "tab-separated knowledge-graph triples"),
    ("musk/mil_pkg", "CSV multi-instance data"),
    ("mutagenesis/json_ctuavastlab", "JSON graphs"),
    ("mutagenesis/neuralogic_pkg", "NeuraLogic template format"),
    ("trains/neuralogic_pkg", "NeuraLogic template format"),
    ("imdb/popper_imdb3", "a bias file only, no background or examples"),
    ("krk_illegal/prolog_ilpexp", "no example files"),
]


@pytest.mark.parametrize(("variant", "why"), UNSUPPORTED, ids=[u[0] for u in UNSUPPORTED])
def test_unsupported_variant_is_a_clear_format_error(variant: str, why: str) -> None:
    with pytest.raises(FormatError):
        load_task(SHARED / variant)


def test_malformed_pyrimidines_example_file_is_reported_with_its_location() -> None:
    # test_exs.pl line 3552 is `neg().` -- valid only in SWI-Prolog 7's extended syntax
    with pytest.raises(PrologSyntaxError, match=r"test_exs\.pl:3552:5: "):
        load_task(SHARED / "pyrimidines_triazines/prolog_ilpexp/pyrimidines")


def test_data_check_cli_on_uwcse_prints_counts() -> None:
    from typer.testing import CliRunner

    from ilpkit.cli.main import app

    result = CliRunner().invoke(app, ["data", "check", str(SHARED / "uwcse/aleph_yap"), "--json"])
    assert result.exit_code == 0, result.output
    assert '"positives": 113' in result.stdout
    assert '"negatives": 2711' in result.stdout
