"""The BoostSRL loader and writer: hand-made fixtures, round trips, hostile input, real data."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from ilpkit.core.bias import Bias, parse_mode
from ilpkit.core.task import NEG, POS, UNLABELED, ExampleBuilder, Program, Task
from ilpkit.errors import BiasError, DataError, FormatError, PrologSyntaxError
from ilpkit.plugins.formats import boostsrl, popper
from ilpkit.prolog.reader import read_term
from ilpkit.prolog.terms import Clause, Const, Str, Struct, Term, make_list
from tests.skips import shared_data_missing

DATA = Path(__file__).parent / "data"
SHARED = Path(__file__).parents[1].parent / "shared" / "data"
FMT = boostsrl.FORMAT


def counts(task: Task) -> tuple[int, int]:
    return len(task.examples.positives), len(task.examples.negatives)


def per_fold(task: Task) -> dict[str, tuple[int, int]]:
    folds = task.summary()["folds"]
    return {name: (v["positives"], v["negatives"]) for name, v in folds.items()}


def modes(task: Task) -> list[str]:
    return [str(m) for m in (*task.bias.modeh, *task.bias.modeb)]


def assert_same(a: Task, b: Task) -> None:
    assert a.examples == b.examples
    assert a.program == b.program
    assert a.bias == b.bias
    assert a.fold_names == b.fold_names


def write_files(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


# -- layouts ----------------------------------------------------------------------------------


def test_starling_train_test_layout() -> None:
    task = FMT.load(DATA / "boostsrl_trains")
    assert task.format == "boostsrl"
    assert task.target == ("eastbound", 1)
    assert task.fold_names == ["train", "test"]
    assert per_fold(task) == {"train": (1, 1), "test": (1, 2)}
    # Facts of both splits in one program; has_car(east1, car_11) is in both, kept once.
    assert task.program.facts_per_predicate() == {
        "has_car/2": 5,
        "load/2": 1,
        "shape/2": 3,
        "short/1": 3,
    }
    assert not task.warnings


def test_statements_settings_rules_and_comments() -> None:
    task = FMT.load(DATA / "boostsrl_trains")
    unknown = task.bias.settings.unknown
    assert unknown["treeDepth"] == Const(3) and unknown["nodeSize"] == Const(2)
    assert unknown["queryPred"] == read_term("[eastbound/1]")
    # okIfUnknown without a final dot still ends at the end of its line
    assert unknown["okIfUnknown"] == read_term("[long/1, closed/1]")
    assert "usePrologVariables" not in unknown  # a reading switch, not a setting
    rules = {str(sc.clause) for clauses in task.program.clauses.values() for sc in clauses}
    assert any(r.startswith("closed(Car) :- ") for r in rules)
    assert any(r.startswith("two_cars(T) :- ") for r in rules)  # the precompute1: rule
    assert "ignored/1" not in {f"{m.name}/{m.arity}" for m in task.bias.modeb}  # /* ... */
    shape = task.program.facts[("shape", 2)]
    assert (Const("car_12"), Const("u shaped")) in shape
    assert (Const("car_21"), Const("Hexagon")) in shape  # capitalised word in a fact: a constant


def test_mode_markers_and_recall() -> None:
    task = FMT.load(DATA / "boostsrl_trains")
    assert modes(task) == [
        "modeh(*,eastbound(+train))",
        "modeb(*,has_car(+train,-car))",
        "modeb(*,short(+car))",
        "modeb(1,long(+car))",  # maxPerInputVars=1
        "modeb(2,shape(+car,#shape))",
        "modeb(*,shape(+car,rectangle))",  # @rectangle: a constant in the template
        "modeb(*,load(+car,-shape))",  # &shape: '-' or '#'
        "modeb(*,load(+car,#shape))",
    ]


def test_flat_layout_grounds_capitalised_words() -> None:
    task = FMT.load(DATA / "boostsrl_flat")
    assert task.name == "family" and task.fold_names == []
    assert counts(task) == (2, 3)
    atoms = [str(a) for a in task.examples.atoms]
    assert atoms[:2] == ["father('Harry','James')", "father(harry,'3_hydroxy')"]
    assert (Const("_nmda"),) in task.program.facts[("male", 1)]
    assert (Const("lily"), Const(21.5)) in task.program.facts[("age", 2)]
    assert modes(task)[0] == "modeh(*,father(+'Person',+'Person'))"
    assert any("duplicate" in w for w in task.warnings)  # kept, as BoostSRL counts both


def test_srlearn_bare_modes_and_fold_folders() -> None:
    task = FMT.load(DATA / "boostsrl_srlearn")
    assert task.fold_names == ["fold1/train", "fold1/test", "fold2/train", "fold2/test"]
    assert per_fold(task) == {
        "fold1/train": (1, 1),
        "fold1/test": (1, 0),
        "fold2/train": (1, 0),
        "fold2/test": (1, 1),
    }
    assert modes(task) == [
        "modeh(*,cancer(+person))",
        "modeb(*,friends(+person,-person))",
        "modeb(*,friends(-person,+person))",
        "modeb(*,smokes(+person))",
    ]
    assert task.program.n_facts() == 4
    assert any("1 of samebib/2" in w for w in task.warnings)  # no mode: not a target


def test_detect() -> None:
    assert FMT.detect(DATA / "boostsrl_flat") == "BoostSRL files family_*.txt"
    assert "train, test" in (FMT.detect(DATA / "boostsrl_trains") or "")
    assert "fold1/train" in (FMT.detect(DATA / "boostsrl_srlearn") or "")
    for other in ("popper_trains", "popper_folds", "aleph_swi"):
        assert FMT.detect(DATA / other) is None
    assert FMT.detect(DATA / "boostsrl_flat" / "family_pos.txt") is None
    assert popper.FORMAT.detect(DATA / "boostsrl_trains") is None


def test_several_stems_need_a_choice() -> None:
    with pytest.raises(FormatError, match=r"several BoostSRL tasks \(a, b\).*--stem"):
        FMT.load(DATA / "boostsrl_bad" / "twostems")
    task = FMT.load(DATA / "boostsrl_bad" / "twostems", stem="b")
    assert modes(task) == ["modeh(*,t(#x))"]
    with pytest.raises(FormatError, match="prefixes here: a, b"):
        FMT.load(DATA / "boostsrl_bad" / "twostems", stem="c")


# -- round trips ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["boostsrl_trains", "boostsrl_flat", "boostsrl_srlearn"])
def test_roundtrip_fixtures(name: str, tmp_path: Path) -> None:
    task = FMT.load(DATA / name)
    written = FMT.write(task, tmp_path / "out")
    assert all(p.is_file() for p in written)
    again = FMT.load(tmp_path / "out")
    assert_same(task, again)
    assert again.bias.settings.unknown == task.bias.settings.unknown


def place(io: str, typ: str) -> Term:
    return Struct(io, (Const(typ),))


def made_task() -> Task:
    """A task no BoostSRL file produced: rules, a non-ground fact, nested and constant modes."""
    program = Program()
    program.add_fact(read_term("p(a, 'Big Atom')"))
    program.add_fact(read_term("p(b, 2.5)"))
    program.add_fact(read_term("same(X, X)"))
    program.add_fact(Struct(":", (Const("mode"), Const("foo"))))  # looks like a statement
    program.add_clause(Clause.from_term(read_term("q(X) :- p(X, _), X \\== b")))
    builder = ExampleBuilder()
    for atom, label, fold in (
        ("t(a)", POS, "fold1"),
        ("t(b)", NEG, "fold1"),
        ("t(c)", POS, "fold2"),
        ("t('D')", NEG, "fold2"),
    ):
        builder.add(read_term(atom), label, fold=fold)
    bias = Bias()
    nested = Struct("has", (place("+", "a"), Struct("f", (place("-", "b"), place("#", "c")))))
    bias.add_mode(parse_mode("modeh", Const(1), read_term("t(+a)")))
    bias.add_mode(parse_mode("modeb", Const("*"), nested))
    bias.add_mode(parse_mode("modeb", Const(3), read_term("p(+a, k)")))
    bias.settings.set_value("clauselength", 5)
    bias.settings.set_term("treeDepth", Const(4))
    return Task("made", "test", program, builder.build(), bias, fold_names=list(builder.fold_names))


def test_roundtrip_of_a_task_from_elsewhere(tmp_path: Path) -> None:
    task = made_task()
    FMT.write(task, tmp_path)
    assert (tmp_path / "fold1" / "fold1_pos.txt").is_file()
    assert "(mode:foo)." in (tmp_path / "made_facts.txt").read_text()
    again = FMT.load(tmp_path)
    assert_same(task, again)
    assert modes(again)[1:] == ["modeb(*,has(+a,f(-b,#c)))", "modeb(3,p(+a,k))"]
    assert again.bias.settings["clauselength"] == 5


def test_keyword_statements_roundtrip(tmp_path: Path) -> None:
    bk = "isa: u_shaped isa shape.\nisa: x :-\nrange: t={a, b}.\nmode: p(+t).\n"
    write_files(tmp_path / "in", {"x_bk.txt": bk, "x_pos.txt": "p(a).\n"})
    task = FMT.load(tmp_path / "in")
    assert task.bias.settings.unknown["isa"] == make_list([Str("u_shaped isa shape"), Str("x :-")])
    FMT.write(task, tmp_path / "out")
    assert FMT.load(tmp_path / "out").bias == task.bias


def test_write_refuses_what_boostsrl_cannot_hold(tmp_path: Path) -> None:
    task = FMT.load(DATA / "boostsrl_flat")
    task.examples.labels[0] = UNLABELED
    with pytest.raises(FormatError, match="unlabeled"):
        FMT.write(task, tmp_path)
    task = FMT.load(DATA / "boostsrl_flat")
    task.examples.weights[0] = 2.0
    with pytest.raises(FormatError, match="weights"):
        FMT.write(task, tmp_path)
    task = made_task()
    task.examples.folds[0] = -1
    with pytest.raises(FormatError, match="fold"):
        FMT.write(task, tmp_path)
    task = made_task()
    task.program.add_clause(Clause.from_term(read_term("half(X, Y) :- Y is X // 2")))
    with pytest.raises(FormatError, match="comment"):
        FMT.write(task, tmp_path)


# -- hostile input ----------------------------------------------------------------------------

BAD = DATA / "boostsrl_bad"


@pytest.mark.usefixtures("strict_loading")  # loading leniently, the error is a warning
def test_unterminated_quote_names_file_and_line() -> None:
    with pytest.raises(PrologSyntaxError, match=r"q_facts\.txt:2:\d+: unterminated quoted"):
        FMT.load(BAD / "quote")


@pytest.mark.usefixtures("strict_loading")
def test_unknown_mode_marker() -> None:
    with pytest.raises(BiasError, match=r"m_bk\.txt:2:1: mode: p\(%x\)\..*'%' starts a comment"):
        FMT.load(BAD / "marker")


def test_missing_positive_file() -> None:
    with pytest.raises(DataError, match=r"n_pos\.txt not found \(found: n_facts\.txt, n_neg"):
        FMT.load(BAD / "nopos")


def test_empty_positive_set() -> None:
    with pytest.raises(DataError, match="no positive examples"):
        FMT.load(BAD / "emptypos")


def test_bad_import_path() -> None:
    with pytest.raises(DataError, match=r"train_bk\.txt:2:1: import: file '\.\./missing_bk\.txt'"):
        FMT.load(BAD / "badimport")


@pytest.mark.parametrize(
    ("bk", "error", "message"),
    [
        ("mode: p(~x).", BiasError, r"x_bk\.txt:1:1: .*unknown mode marker '~'"),
        ("mode: p(*x).", BiasError, r"x_bk\.txt:1:1: .*marker '\*' takes its meaning"),
        ("mode: p(+x) maxPerInput=2.", BiasError, r"x_bk\.txt:1:1: .*unknown mode option"),
        ("mode: p(+x) maxPerInputVars=0.", BiasError, r"maxPerInputVars must be a positive"),
        ("mode: p(x).", BiasError, r"argument 'x' has no mode marker"),
        ("mode: p(+x", BiasError, r"x_bk\.txt:1:1: mode: p\(\+x: a bracket or quote is not closed"),
        ("mode: p(", BiasError, r"x_bk\.txt:1:1: .*a bracket or quote is not closed"),
        ("mode: p(+x,).", BiasError, r"x_bk\.txt:1:1: .*expected an argument, got '\)'"),
        (
            "setParam: a = f(.\nmode: p(+x).",
            DataError,
            r"x_bk\.txt:1:1: .*bracket or quote is not closed",
        ),
        ("\nusePrologVariables: false.", FormatError, r"x_bk\.txt:2:1: lower-case variables"),
        ("setParam: .", BiasError, r"x_bk\.txt:1:1: setParam: expected name = value"),
        ("setParam: a = b c.", BiasError, r"x_bk\.txt:1:1: setParam: cannot read the value"),
        ("queryPred: p/1.'", DataError, r"x_bk\.txt:1:1: .*quote is not closed"),
        ('import: "x_bk.txt".', DataError, r"import cycle"),
        ("p(a) :- .", PrologSyntaxError, r"x_bk\.txt:1:\d+:"),
    ],
)
@pytest.mark.usefixtures("strict_loading")
def test_malformed_background(
    tmp_path: Path, bk: str, error: type[Exception], message: str
) -> None:
    write_files(tmp_path, {"x_bk.txt": bk + "\n", "x_pos.txt": "p(a).\n"})
    with pytest.raises(error, match=message):
        FMT.load(tmp_path)


@pytest.mark.parametrize(
    ("files", "error", "message"),
    [
        (
            {"x_facts.txt": "q(a).\nq(_, b).\n"},
            PrologSyntaxError,
            r"x_facts\.txt:2:3: anonymous variable",
        ),
        ({"x_pos.txt": "p(a).\np(X) :- q(X).\n"}, DataError, r"x_pos\.txt:2:1: expected an exa"),
        ({"x_pos.txt": "p(a).\n42.\n"}, DataError, r"x_pos\.txt:2:1: expected a fact"),
        ({"x_facts.txt": b"q(a).\nq(\0).\n"}, DataError, r"x_facts\.txt:2:1: binary data"),
        ({"x_facts.txt": b"q(a).\nq(\xff).\n"}, DataError, r"x_facts\.txt:2:1: not UTF-8"),
    ],
)
def test_malformed_data_files(
    tmp_path: Path, files: dict[str, str | bytes], error: type[Exception], message: str
) -> None:
    write_files(tmp_path, {"x_pos.txt": "p(a).\n", **files})
    with pytest.raises(error, match=message):
        FMT.load(tmp_path)


def test_statements_without_a_final_dot(tmp_path: Path) -> None:
    write_files(
        tmp_path, {"x_bk.txt": "mode: p(+x)\nmode: q(+x) maxPerInputVars=2", "x_pos.txt": "p(a)."}
    )
    assert modes(FMT.load(tmp_path)) == ["modeh(*,p(+x))", "modeb(2,q(+x))"]


def test_mode_approximations_are_reported(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "x_bk.txt": "mode: p(+x).\nmode: q(+x, `y).\nmode: r(`x, ^y).\nmode: s(+x) max=2.\n",
            "x_pos.txt": "p(a).\n",
        },
    )
    task = FMT.load(tmp_path)
    assert modes(task) == [
        "modeh(*,p(+x))",
        "modeb(*,q(+x,+y))",
        "modeb(*,r(+x,-y))",
        "modeb(*,s(+x))",
    ]
    assert any(
        "'`'" in w and "(2 mode line(s))" in w and "x_bk.txt:2:1" in w for w in task.warnings
    )
    assert any("'^'" in w for w in task.warnings)
    assert any("max=" in w for w in task.warnings)


def test_prolog_variables_in_background_facts(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "x_bk.txt": "mode: p(+x).\nsame(A, A).\nusePrologVariables: true.\nequal(A, A).\n",
            "x_pos.txt": "p(a).\n",
        },
    )
    task = FMT.load(tmp_path)
    assert task.program.facts[("same", 2)] == [(Const("A"), Const("A"))]  # before: constants
    assert [str(sc.clause) for sc in task.program.clauses[("equal", 2)]] == ["equal(A,A)."]


def test_a_folder_holding_only_the_data_set_folder(tmp_path: Path) -> None:
    # srlearn ships toy_father/boostsrl_srlearn/{README.md, toy_father/}
    shutil.copytree(DATA / "boostsrl_trains", tmp_path / "Trains")
    (tmp_path / "README.md").write_text("# trains\n")
    assert "train, test" in (FMT.detect(tmp_path) or "")
    assert_same(FMT.load(DATA / "boostsrl_trains"), FMT.load(tmp_path))


# -- real data --------------------------------------------------------------------------------


@pytest.mark.shared_data
@pytest.mark.skipif(not SHARED.is_dir(), reason=shared_data_missing(SHARED))
def test_real_boostsrl_data_sets() -> None:
    """Counts measured independently with grep -c on the example files."""
    trains = FMT.load(SHARED / "trains/boostsrl_starling/Trains")
    assert per_fold(trains) == {"train": (5, 5), "test": (5, 5)}
    assert trains.program.n_facts() == 230  # train_facts.txt == test_facts.txt
    assert "modeb(1,shape(+car,#shape))" in modes(trains)  # maxPerInputVars=1

    father = FMT.load(SHARED / "toy_father/boostsrl_srlearn/toy_father")
    assert per_fold(father) == {"train": (5, 21), "test": (3, 4)}
    cancer = FMT.load(SHARED / "toy_cancer/boostsrl_srlearn/toy_cancer")
    assert per_fold(cancer) == {"train": (4, 2), "test": (3, 2)}
    assert cancer.target == ("cancer", 1)

    uwcse = FMT.load(SHARED / "uwcse/boostsrl_ilp_advisedby_small/advisedby")
    assert counts(uwcse) == (35, 4589)  # skew 1:131 in this small variant
    assert uwcse.target == ("advisedby", 2)
    assert len(uwcse.bias.modeb) == 30 and uwcse.program.n_rules() == 7
    assert uwcse.program.n_facts() == 731

    imdb = FMT.load(SHARED / "imdb/boostsrl_workedunder_5fold/imdb")
    assert imdb.target == ("workedUnder", 2)
    assert per_fold(imdb) == {
        "Fold1/train": (326, 652),
        "Fold1/test": (56, 112),
        "Fold2/train": (324, 648),
        "Fold2/test": (58, 116),
        "Fold3/train": (204, 408),
        "Fold3/test": (178, 356),
        "Fold4/train": (337, 674),
        "Fold4/test": (45, 90),
        "Fold5/train": (337, 674),
        "Fold5/test": (45, 90),
    }
    tests = [i for i, n in enumerate(imdb.fold_names) if n.endswith("/test")]
    test_pos = np.isin(imdb.examples.folds, tests) & (imdb.examples.labels == POS)
    assert len({imdb.examples.atoms[i] for i in np.flatnonzero(test_pos)}) == 382
    assert imdb.program.n_facts() == 696  # the union of the folds' facts
