"""The Aleph loader and writer on bundled data and hand-made fixtures."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ilpkit.core.formats import FORMATS, load_task
from ilpkit.core.task import Task
from ilpkit.datasets import bundled_path
from ilpkit.errors import BiasError, DataError, FormatError, PrologSyntaxError
from ilpkit.prolog.terms import Const, Struct

DATA = Path(__file__).parent / "data"


def counts(task: Task) -> tuple[int, int]:
    return len(task.examples.positives), len(task.examples.negatives)


def test_trains_counts_modes_settings() -> None:
    task = load_task(bundled_path("trains"))
    assert task.format == "aleph"
    assert counts(task) == (5, 5)
    assert task.target == ("eastbound", 1)
    assert len(task.bias.modeh) == 1 and len(task.bias.modeb) == 10
    assert len(task.bias.determinations) == 10
    assert task.bias.settings["i"] == 2
    assert task.bias.settings["clauselength"] == 4  # Aleph's default, not set in train.b
    shape = next(m for m in task.bias.modeb if m.name == "shape")
    assert [(p.io, p.type) for p in shape.places] == [("+", "car"), ("#", "shape")]
    has_car = next(m for m in task.bias.modeb if m.name == "has_car")
    assert has_car.recall is None  # '*'
    assert task.program.facts_per_predicate()["has_car/2"] == 30


def test_uwcse_folds_and_abolished_target() -> None:
    task = load_task(bundled_path("uwcse"))
    assert counts(task) == (113, 2711)
    assert task.fold_names == ["f0", "f1", "f2", "f3", "f4"]
    per_fold = {k: (v["positives"], v["negatives"]) for k, v in task.summary()["folds"].items()}
    assert per_fold == {
        "f0": (35, 721),
        "f1": (20, 448),
        "f2": (9, 151),
        "f3": (33, 939),
        "f4": (16, 452),
    }
    # bg.yap holds advisedby/2 facts; advisedby.b abolishes them before learning.
    assert ("advisedby", 2) not in task.program.facts
    assert any("abolished advisedby/2" in n for n in task.notes)
    assert task.bias.settings["clauselength"] == 10
    assert task.bias.settings["evalfn"] == "f"


def test_mutagenesis_ilpexp_layout() -> None:
    task = load_task(bundled_path("mutagenesis"))
    assert counts(task) == (125, 63)
    assert task.target == ("active", 1)
    assert task.bias.settings["nodes"] == 20000
    assert set(task.bias.settings.unknown) == {"verbose", "c"}  # kept, not dropped
    eq = [m for m in task.bias.modeb if m.name == "="]
    assert len(eq) == 3
    assert task.program.n_rules() > 0


def test_swi_module_style_sections() -> None:
    task = load_task(DATA / "aleph_swi" / "family.pl")
    assert counts(task) == (2, 3)
    assert task.program.facts[("parent", 2)][0] == (Const("ann"), Const("bob"))
    assert task.program.n_rules() == 1
    assert task.bias.settings["evalfn"] == "laplace"
    assert task.bias.settings["clauselength"] == 3
    # the folder holds one SWI-style file: detection finds it
    assert load_task(DATA / "aleph_swi").summary()["positives"] == 2


def test_train_test_settings_and_include() -> None:
    task = load_task(DATA / "aleph_testsets" / "t")
    assert task.fold_names == ["train", "test"]
    assert [str(a) for a in task.examples.atoms] == ["p(a)", "p(c)", "p(b)", "p(d)"]
    assert task.examples.folds.tolist() == [0, 1, 0, 1]
    assert ("thing", 1) in task.program.facts  # from the included extra.pl


@pytest.mark.parametrize("name", ["trains", "uwcse", "mutagenesis"])
def test_round_trip(name: str, tmp_path: Path) -> None:
    task = load_task(bundled_path(name))
    FORMATS["aleph"].write(task, tmp_path / "out")
    again = load_task(tmp_path / "out")
    assert again.examples == task.examples
    assert again.program == task.program
    assert again.bias == task.bias
    assert again.fold_names == task.fold_names


@pytest.mark.parametrize("merge", [False, True])
def test_written_task_reads_back_without_the_example_file_settings(
    tmp_path: Path, merge: bool
) -> None:
    """Examples without folds go to ``stem.f``/``.n``: a copied ``set(train_pos, 'tr.f')``
    named a file the written folder does not hold, and the folder did not read back
    ("positive examples not found"), nor could Aleph's ``read_all`` read it."""
    task = load_task(DATA / "aleph_testsets")
    assert task.fold_names == ["train", "test"]
    if merge:  # one training set, as bench_vs_aleph.py writes it for Aleph's read_all
        task.examples.folds[:] = -1
    FORMATS["aleph"].write(task, tmp_path / "out")
    text = (tmp_path / "out" / "t.b").read_text()
    for key in ("train_pos", "train_neg", "test_pos", "test_neg"):
        assert (f"set({key}," in text) is not merge  # kept beside fold files (read first)
    again = load_task(tmp_path / "out")
    assert sorted(map(str, again.examples.atoms)) == sorted(map(str, task.examples.atoms))
    assert counts(again) == counts(task)
    assert again.bias.settings["i"] == 2
    assert again.program == task.program


def test_several_stems_need_a_choice(tmp_path: Path) -> None:
    shutil.copytree(DATA / "aleph_testsets", tmp_path / "d")
    shutil.copy(tmp_path / "d" / "t.b", tmp_path / "d" / "u.b")
    with pytest.raises(FormatError, match=r"several Aleph tasks \(t, u\).*--stem"):
        load_task(tmp_path / "d")
    assert load_task(tmp_path / "d", stem="u").summary()["positives"] == 2  # train + test


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_missing_positives(tmp_path: Path) -> None:
    write(tmp_path / "x.b", ":- modeh(1, p(+t)).\n")
    with pytest.raises(DataError, match="positive examples not found"):
        load_task(tmp_path / "x")


def test_empty_positive_set(tmp_path: Path) -> None:
    write(tmp_path / "x.b", ":- modeh(1, p(+t)).\n")
    write(tmp_path / "x.f", "% nothing\n")
    with pytest.raises(DataError, match="no positive examples"):
        load_task(tmp_path / "x")


def test_example_of_wrong_predicate(tmp_path: Path) -> None:
    write(tmp_path / "x.b", ":- modeh(1, p(+t)).\n")
    write(tmp_path / "x.f", "p(a).\nq(b).\n")
    with pytest.raises(DataError, match=r"x\.f:2:1: example q\(b\) is for q/1.*p/1"):
        load_task(tmp_path / "x")


def test_duplicate_example_is_kept_and_reported(tmp_path: Path) -> None:
    write(tmp_path / "x.b", ":- modeh(1, p(+t)).\n")
    write(tmp_path / "x.f", "p(a).\np(b).\np(a).\n")
    task = load_task(tmp_path / "x")
    assert counts(task) == (3, 0)  # Aleph counts every occurrence
    (warning,) = task.warnings
    assert "1 duplicate examples" in warning
    assert "x.f:3:1" in warning and "x.f:1:1" in warning


def test_non_ground_example(tmp_path: Path) -> None:
    write(tmp_path / "x.b", "")
    write(tmp_path / "x.f", "p(X).\n")
    with pytest.raises(DataError, match=r"x\.f:1:1: example p\(X\) is not ground"):
        load_task(tmp_path / "x")


def test_syntax_errors_from_several_files_are_reported_together(tmp_path: Path) -> None:
    write(tmp_path / "x.b", "q(a.\nok(1).\nr('b).\n")
    write(tmp_path / "x.f", "p(a).\n")
    with pytest.raises(PrologSyntaxError) as info:
        load_task(tmp_path / "x", strict=True)  # else skipped, with a warning
    lines = str(info.value).splitlines()
    assert lines[0].startswith(f"{tmp_path / 'x.b'}:1:4: ")
    assert lines[1].startswith(f"{tmp_path / 'x.b'}:3:3: unterminated quoted atom")


def test_missing_include(tmp_path: Path) -> None:
    write(tmp_path / "x.b", ":- [nowhere].\n")
    write(tmp_path / "x.f", "p(a).\n")
    with pytest.raises(DataError, match=r"x\.b:1:1: included file 'nowhere' not found"):
        load_task(tmp_path / "x")


def test_include_cycle(tmp_path: Path) -> None:
    write(tmp_path / "x.b", ":- [y].\n")
    write(tmp_path / "y.pl", ":- [x].\n")
    write(tmp_path / "x.f", "p(a).\n")
    with pytest.raises(DataError, match="include cycle"):
        load_task(tmp_path / "x")


def test_bad_recall_and_marker(tmp_path: Path) -> None:
    write(tmp_path / "x.b", ":- modeb(zero, q(+t)).\n")
    write(tmp_path / "x.f", "p(a).\n")
    with pytest.raises(BiasError, match=r"x\.b:1:1: .*recall must be a positive integer"):
        load_task(tmp_path / "x")
    write(tmp_path / "x.b", ":- modeb(1, q(@(t))).\n")
    with pytest.raises(BiasError, match=r"unknown type marker '@'"):
        load_task(tmp_path / "x")


def test_bad_setting_type(tmp_path: Path) -> None:
    write(tmp_path / "x.b", ":- set(clauselength, long).\n")
    write(tmp_path / "x.f", "p(a).\n")
    with pytest.raises(
        BiasError, match=r"x\.b:1:1: set\(clauselength, long\): expected an integer"
    ):
        load_task(tmp_path / "x")


def test_unknown_directive_is_kept_not_run(tmp_path: Path) -> None:
    write(tmp_path / "x.b", ":- shell('rm -rf /').\nq(a).\n")
    write(tmp_path / "x.f", "p(a).\n")
    task = load_task(tmp_path / "x")
    assert [d.term for d in task.directives] == [
        Struct(":-", (Struct("shell", (Const("rm -rf /"),)),))
    ]
    assert task.summary()["uninterpreted_directives"][0].endswith("shell('rm -rf /')")


def test_no_format_found_lists_files(tmp_path: Path) -> None:
    write(tmp_path / "notes.txt", "hello\n")
    with pytest.raises(FormatError, match=r"cannot tell the data format \(found: notes\.txt\)"):
        load_task(tmp_path)


def test_nonexistent_path(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such file or directory"):
        load_task(tmp_path / "nothing")


def test_number_as_clause_head(tmp_path: Path) -> None:
    write(tmp_path / "x.b", "q(a).\n8 :- q(a).\n")
    write(tmp_path / "x.f", "p(a).\n")
    with pytest.raises(DataError, match=r"x\.b:2:1: 8 cannot be the head of a clause"):
        load_task(tmp_path / "x")


def test_mode_2_declares_a_head_and_a_body_mode(tmp_path: Path) -> None:
    # Aleph's mode(Recall, Template) is modeh(Recall, Template) plus modeb(Recall, Template)
    # (gcws, recursion/mem and numbers/line of Aleph's examples are written with it).
    write(
        tmp_path / "x.b",
        ":- mode(*, mem(+any, +list)).\n"
        ":- mode(1, ((+list) = ([-any|-list]))).\n"
        ":- determination(mem/2, mem/2).\n:- determination(mem/2, '='/2).\n",
    )
    write(tmp_path / "x.f", "mem(1, [1]).\n")
    task = load_task(tmp_path / "x")
    assert [str(m.to_term()) for m in task.bias.modeh] == [
        "modeh(*,mem(+any,+list))",
        "modeh(1,+list = [-any|-list])",
    ]
    assert [str(m.to_term()) for m in task.bias.modeb] == [
        "modeb(*,mem(+any,+list))",
        "modeb(1,+list = [-any|-list])",
    ]
    assert not task.directives
    write(tmp_path / "x.b", ":- mode(zero, q(+t)).\n")
    with pytest.raises(BiasError, match=r"x\.b:1:1: .*recall must be a positive integer"):
        load_task(tmp_path / "x")
