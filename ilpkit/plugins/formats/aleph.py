"""Aleph data sets, in the three layouts found in practice.

``stem`` (classic, Aleph's ``read_all(stem)``)
    ``stem.b`` (background, modes, settings; ``:- [file]`` includes are resolved relative to
    the including file, trying ``.pl``, ``.yap``, ``.prolog``, ``.b``), ``stem.f`` (positives),
    ``stem.n`` (negatives, optional).  The settings ``train_pos``/``train_neg`` replace
    ``stem.f``/``stem.n``; ``test_pos``/``test_neg`` add a ``test`` fold.  Fold files in a
    sub-folder (``fs/f0.f fs/f0.n ...`` or ``folds/test1.f ...``) define the examples when
    present: each file pair is one fold, and ``stem.f``/``stem.n`` are then not used (a warning
    says so, with their counts).
``swi`` (the SWI-Prolog ``aleph`` pack style)
    one ``.pl`` file with ``:- aleph.``, ``aleph_set/2``, ``:- begin_bg. ... :- end_bg.``,
    ``:- begin_in_pos. ... :- end_in_pos.``, ``:- begin_in_neg. ... :- end_in_neg.``
``ilpexp`` (the ilp-experiments collection)
    ``aleph-modes.pl`` + ``bk.pl`` (or ``bk_train.pl``/``bk_test.pl``) + ``exs.pl`` with
    ``pos(Atom).``/``neg(Atom).`` facts; ``exs_train.pl``/``exs_test.pl``/``test_exs.pl`` give
    ``train``/``test`` folds.  Shared files may sit one folder up (``imdb/prolog_ilpexp/imdb2``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from ilpkit.core.bias import Bias, Settings
from ilpkit.core.formats.confine import check_data_file, check_named
from ilpkit.core.formats.source import SourceLoader
from ilpkit.core.task import NEG, POS, UNLABELED, Task
from ilpkit.errors import DataError, FormatError
from ilpkit.prolog.terms import Clause, Struct, to_prolog
from ilpkit.prolog.writer import (
    directive,
    safe_stem,
    write_clauses,
    write_lines,
)

FOLD_DIRS: Final = ("fs", "folds", "fold")
_FOLD_FILE: Final = re.compile(r"^(?P<name>[A-Za-z0-9_]+)\.(?P<ext>[fn])$")
_SWI_MARKER: Final = re.compile(rb"^\s*:-\s*(aleph\s*\.|begin_bg\s*\.|begin_in_pos\s*\.)", re.M)


class AlephFormat:
    name = "aleph"
    description = (
        "Aleph: stem.b/.f/.n (with fs/ fold files), a SWI-style .pl with begin_bg/begin_in_pos,"
        " or aleph-modes.pl + bk.pl + exs.pl"
    )

    # -- detection ----------------------------------------------------------------------------
    def detect(self, path: Path) -> str | None:
        if path.suffix == ".b" and path.is_file():
            return "an Aleph .b file"
        if path.with_name(path.name + ".b").is_file():
            return "an Aleph stem (stem.b)"
        if path.is_file() and path.suffix == ".pl" and _is_swi_style(path):
            return "a SWI-Prolog aleph file (:- aleph. / begin_bg)"
        if not path.is_dir():
            return None
        stems = _stems(path)
        if stems:
            return f"Aleph .b files ({', '.join(stems)})"
        if _ilpexp_file(path, "aleph-modes.pl") and (
            _ilpexp_bk(path) or (path / "train" / "exs.pl").is_file()
        ):
            return "aleph-modes.pl + bk.pl + exs.pl"
        subtasks = [
            d.name
            for d in sorted(path.iterdir())
            if d.is_dir() and (d / "aleph-modes.pl").is_file() and (d / "exs.pl").is_file()
        ]
        if subtasks and _ilpexp_bk(path):
            return f"aleph-modes.pl + bk.pl + exs.pl tasks ({', '.join(subtasks)})"
        swi = [p for p in sorted(path.glob("*.pl")) if _is_swi_style(p)]
        if len(swi) == 1:
            return f"a SWI-Prolog aleph file ({swi[0].name})"
        return None

    # -- loading ------------------------------------------------------------------------------
    def load(self, path: Path, *, stem: str | None = None) -> Task:
        if path.is_file() and path.suffix == ".b":
            return self._load_stem(path.parent, path.stem)
        if not path.exists() and path.with_name(path.name + ".b").is_file():
            return self._load_stem(path.parent, path.name)
        if path.is_file():
            if _is_swi_style(path):
                return self._load_swi(path)
            raise FormatError(
                f"{path}: not an Aleph file (expected stem.b or a .pl file with ':- aleph.')"
            )
        stems = _stems(path)
        if stems:
            return self._load_stem(path, _choose_stem(path, stems, stem))
        if _ilpexp_file(path, "aleph-modes.pl"):
            return self._load_ilpexp(path, stem)
        subtasks = [
            d
            for d in sorted(path.iterdir())
            if d.is_dir() and (d / "aleph-modes.pl").is_file() and (d / "exs.pl").is_file()
        ]
        if subtasks:
            names = [d.name for d in subtasks]
            if stem in names:
                return self._load_ilpexp(path / stem, None)
            raise FormatError(
                f"{path}: holds several tasks ({', '.join(names)}); choose one with --stem NAME"
            )
        swi = [p for p in sorted(path.glob("*.pl")) if _is_swi_style(p)]
        if len(swi) == 1:
            return self._load_swi(swi[0])
        raise FormatError(
            f"{path}: no Aleph data found (expected stem.b, aleph-modes.pl + bk.pl + exs.pl, "
            "or one .pl file with ':- aleph.')"
        )

    def _load_stem(self, folder: Path, stem: str) -> Task:
        loader = SourceLoader(stem, "aleph")
        bfile = folder / f"{stem}.b"
        loader.load_file(bfile, "background")
        settings = loader.bias.settings
        fold_files, left_out = _fold_layout(folder)
        loader.warnings.extend(left_out)
        if fold_files:
            for name, files in fold_files:
                for ext, role in (("f", "pos"), ("n", "neg")):
                    if ext in files:
                        loader.load_file(files[ext], role, fold=name)  # type: ignore[arg-type]
            unused = [p for p in (folder / f"{stem}.f", folder / f"{stem}.n") if p.is_file()]
            for unused_file in unused:
                check_data_file(unused_file)  # counted for the warning: read
            if unused:
                loader.warnings.append(
                    "examples come from the fold files in "
                    f"{fold_files[0][1][next(iter(fold_files[0][1]))].parent}; not used: "
                    + ", ".join(f"{p.name} ({_count_clauses(p)} examples)" for p in unused)
                )
        else:
            train_pos = _setting_file(folder, settings, "train_pos", f"{stem}.f", bfile)
            train_neg = _setting_file(folder, settings, "train_neg", f"{stem}.n", bfile)
            test_pos = _setting_file(folder, settings, "test_pos", None, bfile)
            test_neg = _setting_file(folder, settings, "test_neg", None, bfile)
            has_test = any(p is not None and p.is_file() for p in (test_pos, test_neg))
            train_fold = "train" if has_test else None
            if train_pos is None or not train_pos.is_file():
                expected = train_pos or folder / f"{stem}.f"
                raise DataError(f"{bfile}: positive examples not found: expected {expected}")
            loader.load_file(train_pos, "pos", fold=train_fold)
            if train_neg is not None and train_neg.is_file():
                loader.load_file(train_neg, "neg", fold=train_fold)
            for p, role in ((test_pos, "pos"), (test_neg, "neg")):
                if p is not None and p.is_file():
                    loader.load_file(p, role, fold="test")  # type: ignore[arg-type]
                elif p is not None:
                    loader.warnings.append(f"{bfile}: test file {p} named by a setting is missing")
        return loader.task()

    def _load_swi(self, path: Path) -> Task:
        loader = SourceLoader(path.stem, "aleph")
        loader.load_file(path, "background")
        return loader.task()

    def _load_ilpexp(self, path: Path, stem: str | None) -> Task:
        loader = SourceLoader(path.name, "aleph")
        modes = _ilpexp_file(path, "aleph-modes.pl")
        assert modes is not None
        split = [d for d in (path / "train", path / "test") if (d / "exs.pl").is_file()]
        bks = _ilpexp_bk(path)
        if _is_swi_style(modes) and (bks or split or (path / "exs.pl").is_file()):
            # pyrimidines/triazines: aleph-modes.pl is also a whole SWI program repeating bk.pl
            # and exs.pl; take its directives only, and the data from the separate files
            loader.skip_sections = True
            loader.notes.append(
                f"{modes}: begin_bg/begin_in_pos/begin_in_neg sections skipped; background and "
                "examples are read from the bk/exs files beside it"
            )
        loader.load_file(modes, "background")
        loader.skip_sections = False
        if split:
            # nell_sports, webkb: train/ and test/ folders, each with its own bk.pl and exs.pl
            for folder in split:
                for bk in sorted(folder.glob("bk*.pl")):
                    loader.load_file(bk, "background")
                loader.load_file(folder / "exs.pl", "labelled", fold=folder.name)
            return loader.task()
        for bk in bks:
            loader.load_file(bk, "background")
        for exs, fold in _ilpexp_examples(path, stem):
            loader.load_file(exs, "labelled", fold=fold)
        return loader.task()

    # -- writing ------------------------------------------------------------------------------
    def write(self, task: Task, dest: Path) -> list[Path]:
        """Write the classic layout: ``<name>.b``, ``.f``, ``.n`` and ``fs/`` fold files.

        Examples in folds go to ``fs/<fold>.f``/``.n`` (so that they read back as folds);
        unlabeled examples and weights have no Aleph syntax and are refused.
        """
        ex = task.examples
        if len(ex.unlabeled):
            raise FormatError("the aleph format has no unlabeled examples; use another format")
        if any(w != 1.0 for w in ex.weights.tolist()):
            raise FormatError("the aleph format has no example weights; use another format")
        dest.mkdir(parents=True, exist_ok=True)
        stem = _safe_stem(task.name)
        written = []
        bfile = dest / f"{stem}.b"
        assigned = ex.folds >= 0
        lines = write_bias_directives(task.bias, task_settings_only=True)
        if not assigned.any():  # the examples go to stem.f/.n, which these settings override
            lines = [line for line in lines if not line.startswith(_EXAMPLE_FILE_SETTINGS)]
        lines.extend(
            f":- {to_prolog(d.term.args[0], 1199)}."
            for d in task.directives
            if type(d.term) is Struct and d.term.name == ":-"
        )
        lines.extend(write_clauses(task.program.iter_clauses()))
        write_lines(bfile, lines)
        written.append(bfile)
        if assigned.any() and not assigned.all():
            raise FormatError("some examples have a fold and others not; cannot write Aleph folds")
        groups: list[tuple[Path, int, int]] = []
        if assigned.any():
            for i, name in enumerate(task.fold_names):
                groups.append((dest / "fs" / f"{_safe_stem(name)}.f", POS, i))
                groups.append((dest / "fs" / f"{_safe_stem(name)}.n", NEG, i))
        else:
            groups = [(dest / f"{stem}.f", POS, -1), (dest / f"{stem}.n", NEG, -1)]
        for fpath, label, fold in groups:
            mask = (ex.labels == label) & (ex.folds == fold)
            fpath.parent.mkdir(parents=True, exist_ok=True)
            write_lines(fpath, [Clause(ex.atoms[i]).__str__() for i in mask.nonzero()[0]])
            written.append(fpath)
        _ = UNLABELED
        return written


# Settings naming example files: written to ``stem.f``/``.n``, the examples are read from
# there only without them (a copied ``train_pos 'train_real.f'`` names a file the written
# folder does not hold).  Fold files (``fs/``) are read whatever these settings say.
_EXAMPLE_FILE_SETTINGS = tuple(
    f":- set({k}," for k in ("train_pos", "train_neg", "test_pos", "test_neg")
)


def _safe_stem(name: str) -> str:
    return safe_stem(name, "f")


def _is_swi_style(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            head = handle.read(1 << 16)
    except OSError:
        return False
    return (bool(_SWI_MARKER.search(head)) and b"begin_in_pos" in head) or (
        b"begin_bg" in head and b"begin_in_pos" in _tail(path)
    )


def _tail(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _stems(folder: Path) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.b") if p.is_file())


def _choose_stem(folder: Path, stems: list[str], stem: str | None) -> str:
    if stem is not None:
        if stem not in stems:
            raise FormatError(
                f"{folder}: no task {stem!r}; the .b files here are: {', '.join(stems)}"
            )
        return stem
    if len(stems) == 1:
        return stems[0]
    # Several tasks: fold files name the target (UW-CSE: fs/f0.f holds advisedby/2 examples).
    folds = _fold_files(folder)
    if folds:
        first = next(iter(folds[0][1].values()))
        predicate = _first_predicate(first)
        if predicate in stems:
            return predicate
    with_examples = [s for s in stems if (folder / f"{s}.f").is_file()]
    raise FormatError(
        f"{folder}: holds several Aleph tasks ({', '.join(stems)}); choose one with --stem NAME"
        + (f" (tasks with examples: {', '.join(with_examples)})" if with_examples else "")
    )


def _first_predicate(path: Path) -> str | None:
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            m = re.match(r"\s*([a-z][A-Za-z0-9_]*)\s*\(", line)
            if m:
                return m.group(1)
    return None


def _fold_files(folder: Path) -> list[tuple[str, dict[str, Path]]]:
    """``[(fold name, {"f": path, "n": path})]`` in natural order of the fold numbers."""
    return _fold_layout(folder)[0]


def _fold_layout(folder: Path) -> tuple[list[tuple[str, dict[str, Path]]], list[str]]:
    """The fold files of ``folder``'s fold sub-folder, and warnings for files left out."""
    for sub in FOLD_DIRS:
        d = folder / sub
        if not d.is_dir():
            continue
        folds: dict[str, dict[str, Path]] = {}
        for p in d.iterdir():
            m = _FOLD_FILE.match(p.name)
            if m and p.is_file():
                check_data_file(p)
                folds.setdefault(m.group("name"), {})[m.group("ext")] = p
        if folds:
            ordered = sorted(folds.items(), key=lambda kv: _natural_key(kv[0]))
            return _test_folds_only(ordered)
    return [], []


_TEST_K: Final = re.compile(r"^test_?(\d+)$")
_TRAIN_K: Final = re.compile(r"^train_?(\d+)$")


def _test_folds_only(
    folds: list[tuple[str, dict[str, Path]]],
) -> tuple[list[tuple[str, dict[str, Path]]], list[str]]:
    """Keep ``testK`` files when ``trainK`` files (their complements) sit beside them.

    Carcinogenesis ships ``folds/train1.f`` ... next to ``folds/test1.f`` ...: each trainK is
    everything but testK, so the test files alone partition the examples into folds.  Other
    files beside them (``train_all``, a lone ``test``) are left out, with a warning saying
    how many of their examples lie in the test folds: read as folds, they would put test
    examples into training sets.  Without complements, a file whose examples overlap two or
    more other fold files (a union such as ``all.f``) is left out the same way.
    """
    tests = {m.group(1): (n, f) for n, f in folds if (m := _TEST_K.match(n))}
    trains = {m.group(1) for n, _ in folds if (m := _TRAIN_K.match(n))}
    paired = sorted(set(tests) & trains, key=int)
    if paired and len(paired) >= len(tests) // 2 + 1:
        kept = [tests[k] for k in paired]
        kept_names = {n for n, _ in kept}
        complement_names = {f"train{k}" for k in paired} | {f"train_{k}" for k in paired}
        others = [(n, f) for n, f in folds if n not in kept_names and n not in complement_names]
        return kept, _left_out(kept, others, "they are not test folds of the testK/trainK layout")
    atoms = {n: _atoms_of(f) for n, f in folds}
    unions = []
    for name, _ in folds:
        overlapping = [
            o
            for o, _ in folds
            if o != name and atoms[o] and 2 * len(atoms[name] & atoms[o]) >= len(atoms[o])
        ]
        if len(folds) > 2 and len(overlapping) >= 2:
            unions.append(name)
    if unions and len(unions) < len(folds):
        kept = [(n, f) for n, f in folds if n not in unions]
        others = [(n, f) for n, f in folds if n in unions]
        return kept, _left_out(kept, others, "each overlaps several other fold files")
    return folds, []


def _left_out(
    kept: list[tuple[str, dict[str, Path]]],
    others: list[tuple[str, dict[str, Path]]],
    why: str,
) -> list[str]:
    if not others:
        return []
    test_atoms: set[str] = set()
    for _, files in kept:
        test_atoms |= _atoms_of(files)
    parts = []
    for _, files in others:
        for path in files.values():
            mine = _atoms_of({"x": path})
            parts.append(
                f"{path.name} ({len(mine & test_atoms)} of {len(mine)} examples in the folds)"
            )
    return [
        f"fold files not used as folds ({why}; read as folds they would leak test examples "
        f"into training): {', '.join(parts)}"
    ]


def _atoms_of(files: dict[str, Path]) -> set[str]:
    """The example atoms of fold files, as canonical text (for overlap checks only)."""
    from ilpkit.prolog.reader import PrologReader

    out: set[str] = set()
    for path in files.values():
        try:
            out.update(to_prolog(rt.term) for rt in PrologReader().read_file(path))
        except DataError:
            continue
    return out


def _natural_key(name: str) -> tuple[str, int]:
    m = re.match(r"(.*?)(\d+)$", name)
    return (m.group(1), int(m.group(2))) if m else (name, -1)


def _setting_file(
    folder: Path, settings: Settings, key: str, default: str | None, bfile: Path
) -> Path | None:
    """The file a ``train_pos``/``test_pos``/... setting names (relative to the data folder),
    refused when outside it; else the default file of the layout."""
    value = settings.get(key)
    if isinstance(value, str):
        path = folder / value
        loc = settings.locations.get(key)
        check_named(path, loc or str(bfile), f"{key} {value!r}", Path(loc.file) if loc else bfile)
        return path
    return folder / default if default else None


def _count_clauses(path: Path) -> int:
    from ilpkit.prolog.reader import PrologReader

    try:
        return sum(1 for _ in PrologReader().read_file(path))
    except DataError:
        return -1


def _ilpexp_file(path: Path, name: str) -> Path | None:
    for folder in (path, path.parent):
        if (folder / name).is_file():
            return folder / name
    return None


def _ilpexp_bk(path: Path) -> list[Path]:
    for folder in (path, path.parent):
        files = sorted(folder.glob("bk*.pl"))
        if files:
            return files
    return []


def _ilpexp_examples(path: Path, stem: str | None) -> list[tuple[Path, str | None]]:
    """Example files of an ilp-experiments task and their folds."""
    train = [path / n for n in ("exs.pl", "exs_train.pl") if (path / n).is_file()]
    test = [path / n for n in ("exs_test.pl", "test_exs.pl") if (path / n).is_file()]
    if train:
        fold = "train" if test else None
        return [(p, fold) for p in train] + [(p, "test") for p in test]
    subtasks = sorted(
        [d for d in path.iterdir() if d.is_dir() and (d / "exs.pl").is_file()],
        key=lambda d: _natural_key(d.name),
    )
    example_dir = path / "examples"
    numbered = (
        sorted(example_dir.glob("*.pl"), key=lambda p: _natural_key(p.stem))
        if example_dir.is_dir()
        else []
    )
    choices = [d.name for d in subtasks] + [p.stem for p in numbered]
    if stem is not None:
        for d in subtasks:
            if d.name == stem:
                return _ilpexp_examples(d, None)
        for p in numbered:
            if p.stem == stem:
                return [(p, None)]
        if not choices:
            raise FormatError(
                f"{path}: no task {stem!r}: this folder holds one task (exs.pl), so --stem "
                "has nothing to choose; leave it out"
            )
        raise FormatError(f"{path}: no task {stem!r}; choices: {', '.join(choices)}")
    if len(choices) == 1:
        return _ilpexp_examples(path, choices[0])
    if choices:
        raise FormatError(
            f"{path}: holds several example sets ({', '.join(choices)}); choose one with "
            "--stem NAME"
        )
    raise FormatError(f"{path}: no examples found (expected exs.pl with pos(...)/neg(...))")


FORMAT: Final = AlephFormat()


def write_bias_directives(bias: Bias, *, task_settings_only: bool = False) -> list[str]:
    """``:- set/2``, ``:- modeh/2``, ``:- modeb/2`` and ``:- determination/2`` lines."""
    lines = []
    for term in bias.settings.to_terms():
        assert isinstance(term, Struct)
        lines.append(directive(term))
    for term in bias.mode_terms():
        assert isinstance(term, Struct)
        lines.append(directive(term))
    for term in bias.determination_terms():
        assert isinstance(term, Struct)
        lines.append(directive(term))
    _ = task_settings_only
    return lines
