"""The Popper loader and writer: hand-made fixtures, round trips, hostile input, real data."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ilpkit.core.bias import Bias, parse_mode
from ilpkit.core.task import NEG, POS, UNLABELED, ExampleBuilder, Program, Task
from ilpkit.errors import BiasError, DataError, FormatError, PrologSyntaxError
from ilpkit.plugins.formats import boostsrl, popper
from ilpkit.prolog.reader import read_term
from ilpkit.prolog.terms import Const, Struct
from tests.skips import shared_data_missing

DATA = Path(__file__).parent / "data"
SHARED = Path(__file__).parents[1].parent / "shared" / "data"
FMT = popper.FORMAT


def counts(task: Task) -> tuple[int, int]:
    return len(task.examples.positives), len(task.examples.negatives)


def modes(task: Task) -> list[str]:
    return [str(m) for m in (*task.bias.modeh, *task.bias.modeb)]


def assert_same(a: Task, b: Task) -> None:
    assert a.examples == b.examples
    assert a.program == b.program
    assert a.bias == b.bias
    assert a.fold_names == b.fold_names


def write_files(root: Path, files: dict[str, str]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return root


# -- loading ----------------------------------------------------------------------------------


def test_bias_becomes_modes() -> None:
    task = FMT.load(DATA / "popper_trains")
    assert task.format == "popper" and task.target == ("f", 1)
    assert counts(task) == (1, 2)
    assert modes(task) == [
        "modeh(*,f(+train))",
        # two direction/2 facts: one mode each
        "modeb(*,has_car(+train,-car))",
        "modeb(*,has_car(-train,+car))",
        "modeb(*,short(+car))",
        # two type/2 facts, no direction/2: first argument in, the others out
        "modeb(*,load(+car,-shape,-int))",
        "modeb(*,load(+car,-shape,-shape))",
        # neither: the default type t
        "modeb(*,same(+t,-t))",
    ]
    assert any("no type/2 for same" in w for w in task.warnings)


def test_bias_settings() -> None:
    settings = FMT.load(DATA / "popper_trains").bias.settings
    assert settings["clauselength"] == 4  # max_body(3) + the head
    assert settings.unknown["max_vars"] == Const(5)
    assert settings.unknown["max_clauses"] == Const(2)
    assert settings.unknown["non_datalog"] == read_term("[non_datalog]")
    assert settings.unknown["lazy_evaluate_type"] == read_term(
        "[lazy_evaluate_type(int), lazy_evaluate_type(shape)]"
    )


def test_clingo_lines_are_reported_not_used() -> None:
    warnings = FMT.load(DATA / "popper_trains").warnings
    assert any("bias.pl:26:1: not used" in w and "body_pred(short,1)" in w for w in warnings)
    assert any("bias.pl:27:1: clingo directive" in w for w in warnings)


def test_background_rules_and_directives() -> None:
    program = FMT.load(DATA / "popper_trains").program
    assert program.n_rules() == 1
    assert program.facts_per_predicate()["has_car/2"] == 3
    assert [str(sc.clause) for sc in program.clauses[("same", 2)]] == ["same(X,X)."]


def test_ilpexp_layout_with_stems() -> None:
    folder = DATA / "popper_ilpexp"
    with pytest.raises(FormatError, match=r"several example sets \(3, task1, task2\).*--stem"):
        FMT.load(folder)
    task = FMT.load(folder, stem="task2")
    assert task.name == "popper_ilpexp/task2"
    assert counts(task) == (2, 1)
    assert modes(task) == ["modeh(*,f(+a))", "modeb(*,p(+a))"]  # from popper-bias.pl
    assert task.bias.settings["clauselength"] == 3
    assert counts(FMT.load(folder, stem="3")) == (1, 2)  # examples/3.pl
    assert counts(FMT.load(folder / "task1")) == (1, 1)  # bias and bk from the parent
    with pytest.raises(FormatError, match="no example set 'nope'; choices: 3, task1, task2"):
        FMT.load(folder, stem="nope")


def test_fold_folders_union_their_background() -> None:
    task = FMT.load(DATA / "popper_folds")
    assert task.fold_names == ["train", "test"]
    assert task.summary()["folds"]["test"]["positives"] == 1
    assert task.program.facts[("student", 1)] == [(Const("bob"),), (Const("eve"),)]
    assert modes(task)[-1] == "modeb(*,courseta(-course,+person))"


def test_detect() -> None:
    assert FMT.detect(DATA / "popper_trains") == "Popper files bias.pl, bk.pl, exs.pl"
    assert "folds test, train" in (FMT.detect(DATA / "popper_folds") or "")
    # aleph-modes.pl is there: the Aleph loader claims the folder
    assert FMT.detect(DATA / "popper_ilpexp") is None
    assert FMT.detect(DATA / "popper_ilpexp" / "task1") is None
    for other in ("boostsrl_trains", "boostsrl_flat", "aleph_swi"):
        assert FMT.detect(DATA / other) is None
    assert boostsrl.FORMAT.detect(DATA / "popper_trains") is None


# -- round trips ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "stem"), [("popper_trains", None), ("popper_folds", None), ("popper_ilpexp", "task2")]
)
def test_roundtrip_fixtures(name: str, stem: str | None, tmp_path: Path) -> None:
    task = FMT.load(DATA / name, stem=stem)
    FMT.write(task, tmp_path)
    assert FMT.detect(tmp_path) is not None
    again = FMT.load(tmp_path)
    assert_same(task, again)
    assert again.bias.settings.unknown == task.bias.settings.unknown
    assert "approximated" not in (tmp_path / "bias.pl").read_text()


def test_written_bias_uses_popper_syntax(tmp_path: Path) -> None:
    FMT.write(FMT.load(DATA / "popper_trains"), tmp_path)
    text = (tmp_path / "bias.pl").read_text()
    assert "type(f,(train,))." in text  # a clingo 1-tuple
    assert "direction(has_car,(out,in))." in text
    assert "max_body(3)." in text and "non_datalog." in text


def aleph_like_task() -> Task:
    """Modes Popper cannot express: recall, a constant place, a nested template."""
    program = Program()
    program.add_fact(read_term("p(a, 1)"))
    builder = ExampleBuilder()
    builder.add(read_term("t(a)"), POS, fold="fold1")
    builder.add(read_term("t(b)"), NEG, fold="fold2")
    builder.add(read_term("t(c)"), UNLABELED, fold="fold2")
    bias = Bias()
    num = Struct("#", (Const("num"),))
    bias.add_mode(parse_mode("modeh", Const(1), read_term("t(+a)")))
    bias.add_mode(parse_mode("modeb", Const("*"), Struct("p", (Struct("+", (Const("a"),)), num))))
    bias.add_mode(parse_mode("modeb", Const("*"), read_term("q(+a, f(-b))")))
    bias.settings.set_value("nodes", 500)
    return Task("made", "test", program, builder.build(), bias, fold_names=list(builder.fold_names))


def test_write_approximates_and_says_so(tmp_path: Path) -> None:
    task = aleph_like_task()
    FMT.write(task, tmp_path)
    text = (tmp_path / "bias.pl").read_text()
    assert "% Not expressible in Popper's bias (approximated):" in text
    assert "recall dropped (Popper has no recall): t/1" in text
    assert "'#' (constant) places written as out: p/2" in text
    assert "not written (nested or constant arguments): modeb(*,q(+a,f(-b)))" in text
    again = FMT.load(tmp_path)
    assert again.examples == task.examples  # unlabeled examples and folds survive
    assert again.program == task.program
    assert again.fold_names == ["fold1", "fold2"]
    assert modes(again) == ["modeh(*,t(+a))", "modeb(*,p(+a,-num))"]
    assert again.bias.settings["nodes"] == 500


def test_write_refuses_weights_and_odd_fold_names(tmp_path: Path) -> None:
    task = aleph_like_task()
    task.examples.weights[0] = 0.5
    with pytest.raises(FormatError, match="weights"):
        FMT.write(task, tmp_path)
    task = aleph_like_task()
    task.fold_names = ["fold1", "part b"]
    with pytest.raises(FormatError, match="'part b' would read back as a separate task"):
        FMT.write(task, tmp_path)


def test_boostsrl_task_written_as_popper(tmp_path: Path) -> None:
    task = boostsrl.FORMAT.load(DATA / "boostsrl_srlearn")
    FMT.write(task, tmp_path)
    again = FMT.load(tmp_path)
    assert again.fold_names == task.fold_names  # fold1/train -> fold1/train/exs.pl
    assert again.examples == task.examples
    assert modes(again) == modes(task)


# -- hostile input ----------------------------------------------------------------------------

BAD = DATA / "popper_bad"


@pytest.mark.parametrize(
    ("case", "error", "message"),
    [
        ("direction", BiasError, r"direction/bias\.pl:3:1: .*'sideways' is not in or out"),
        ("arity", BiasError, r"arity/bias\.pl:3:1: type\(p, \(a,\)\) has 1 entries.*arity 2"),
        ("nobk", DataError, r"nobk: no background file bk\.pl"),
        ("badexs", DataError, r"badexs/exs\.pl:2:1: expected an example pos\(Atom\)"),
        ("syntax", PrologSyntaxError, r"syntax/bias\.pl:2:1: unexpected end of file"),
    ],
)
@pytest.mark.usefixtures("strict_loading")  # loading leniently, a syntax error is a warning
def test_malformed_files(case: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        FMT.load(BAD / case)


@pytest.mark.parametrize(
    ("bias", "error", "message"),
    [
        ("head_pred(f).", None, r"bias\.pl:1:1: head_pred\(f\) is not a Popper declaration"),
        ("head_pred(f,one).", BiasError, r"bias\.pl:1:1: head_pred\(f,one\): expected"),
        ("head_pred(f,1).\nmax_body(many).", BiasError, r"bias\.pl:2:1: max_body\(many\)"),
        ("head_pred(f,1).\ntype(f,(g(x),)).", BiasError, r"bias\.pl:2:1: .*tuple of names"),
        ("head_pred(f,1).\n42.", BiasError, r"bias\.pl:2:1: expected a bias fact"),
        ("head_pred(f,1).\nclauselength(x).", BiasError, r"bias\.pl:2:1: set\(clauselength"),
    ],
)
def test_malformed_bias(
    tmp_path: Path, bias: str, error: type[Exception] | None, message: str
) -> None:
    write_files(tmp_path, {"bias.pl": bias + "\n", "bk.pl": "p(a).\n", "exs.pl": "pos(f(a)).\n"})
    if error is None:  # a warning, and the task still loads
        warnings = FMT.load(tmp_path).warnings
        assert any(re.search(message, w) for w in warnings)
        return
    with pytest.raises(error, match=message):
        FMT.load(tmp_path)


def test_a_number_as_a_background_clause(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "bias.pl": "head_pred(f,1).\n",
            "bk.pl": "p(a).\n8 :- p(a).\n",
            "exs.pl": "pos(f(a)).\n",
        },
    )
    with pytest.raises(DataError, match=r"bk\.pl:2:1: 8 cannot be the head of a clause"):
        FMT.load(tmp_path)


def test_examples_must_match_head_pred(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "bias.pl": "head_pred(f,1).\n",
            "bk.pl": "p(a).\n",
            "exs.pl": "pos(f(a)).\nneg(g(b)).\n",
        },
    )
    with pytest.raises(DataError, match=r"exs\.pl:2:1: example g\(b\) is for g/1"):
        FMT.load(tmp_path)


def test_missing_examples_and_bias(tmp_path: Path) -> None:
    write_files(tmp_path / "a", {"bias.pl": "head_pred(f,1).\n", "bk.pl": "p(a).\n"})
    with pytest.raises(DataError, match="no examples"):
        FMT.load(tmp_path / "a")
    write_files(tmp_path / "b", {"bk.pl": "p(a).\n", "exs.pl": "pos(f(a)).\n"})
    with pytest.raises(DataError, match=r"no Popper bias file \(bias\.pl or popper-bias\.pl\)"):
        FMT.load(tmp_path / "b")


# -- real data --------------------------------------------------------------------------------


@pytest.mark.shared_data
@pytest.mark.skipif(not SHARED.is_dir(), reason=shared_data_missing(SHARED))
def test_real_ilp_experiments_data_sets() -> None:
    """Counts measured independently with grep -c 'pos(' / 'neg(' on the example files."""
    trains = SHARED / "trains/prolog_ilpexp"
    expected = {"1": (271, 729), "2": (20, 81), "3": (792, 208), "4": (321, 679)}
    for stem, pos_neg in expected.items():
        task = FMT.load(trains, stem=stem)
        assert counts(task) == pos_neg
        assert task.target == ("f", 1)
    assert len(task.bias.modeb) == 19
    assert task.bias.settings["clauselength"] == 7  # max_body(6)
    assert task.program.n_facts() == 28503

    mutagenesis = FMT.load(SHARED / "mutagenesis/prolog_ilpexp")
    assert counts(mutagenesis) == (125, 63)
    assert mutagenesis.target == ("active", 1)
    # gteq/lteq have three type/2 facts each, bond and ball3 two direction/2 facts each
    assert len([m for m in mutagenesis.bias.modeb if m.name == "gteq"]) == 3
    assert len([m for m in mutagenesis.bias.modeb if m.name == "bond"]) == 2
    assert any(
        "type(eq,charge,charge) is not a Popper declaration" in w for w in mutagenesis.warnings
    )
    friendly = FMT.load(SHARED / "mutagenesis/prolog_ilpexp", stem="non_regression_friendly")
    assert counts(friendly) == (13, 29)


def test_detecting_a_format_imports_no_reader_module() -> None:
    """Every run without ``--format`` asks each format whether the data is its own;
    BoostSRL's and Popper's readers are imported only when their data is read."""
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from ilpkit.core.formats import detect_formats\n"
        f"found = detect_formats(Path({str(DATA / 'popper_trains')!r}))\n"
        "print([d.format for d in found],"
        " sorted(m for m in sys.modules if m.startswith('ilpkit.plugins.formats.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.strip()
    assert out == (
        "['popper'] ['ilpkit.plugins.formats.aleph', 'ilpkit.plugins.formats.layouts']"
    ), out
