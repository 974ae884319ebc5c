"""Popper data sets: ``bk.pl``, ``exs.pl`` (``pos(Atom).``/``neg(Atom).``) and ``bias.pl``.

Also the ilp-experiments layout, whose bias file is ``popper-bias.pl``.  Files are looked for
in the data set folder and then in its parent (``imdb/prolog_ilpexp/imdb1`` holds only
``exs.pl``).  Examples:

* ``exs.pl``; ``exs_<fold>.pl``/``<fold>_exs.pl`` and fold folders ``train/``, ``test/``,
  ``fold1/`` ... (each with ``exs.pl`` and maybe its own ``bk.pl``) give folds; a plain
  ``exs.pl`` next to test files is fold ``train``.  Fold names are ``train``, ``test``,
  ``tune``, ``dev``, ``valid(ation)``, ``foldN``, ``splitN``.
* Other example sets are separate tasks chosen with ``stem``: sub-folders with ``exs.pl``
  (``imdb1/``), files in ``examples/`` (``examples/1.pl``) and ``exs_<name>.pl``.

Background: every ``bk*.pl`` of the folder (``bk_train.pl`` and ``bk_test.pl`` are unioned,
duplicates dropped) and the ``bk*.pl`` of fold folders, read by the shared Prolog source loader
(directives interpreted, rules kept).

The bias is clingo syntax, not Prolog: 1-tuples ``(train,)`` are rewritten to ``(train)``
before reading, ``not`` is an operator, ``#`` lines (``#show``) are skipped.  Its facts become
modes:

* ``head_pred(p,n)`` gives ``modeh(*, p(...))``, ``body_pred(p,n)`` gives ``modeb(*, p(...))``;
  recall is ``*`` (Popper has no recall).
* ``type(p,(t1,...,tn))`` gives the place types; a predicate without ``type/2`` gets type ``t``
  for every argument (so untyped predicates connect only to each other; a warning says so
  when other predicates are typed).
* ``direction(p,(in,out,...))`` gives ``+``/``-``.  Without ``direction/2``: ``+`` for every
  head argument; for a body predicate ``+`` for the first argument and ``-`` for the others.
* Several ``type/2`` or ``direction/2`` facts for one predicate give one mode per combination.
* ``max_body(N)`` sets ``clauselength`` to N+1; every other fact (``max_vars(6)``,
  ``max_clauses(4)``, ``non_datalog``) is kept as a setting of that name (a list when it
  occurs several times or has several arguments).  Constraints and rules are reported, not
  used.

``write`` writes ``bk.pl``, ``exs.pl`` (``exs.pl`` in one folder per fold when there are folds)
and ``bias.pl``.  Modes that Popper cannot express (``#`` places become ``out``, recall is
dropped, nested templates are skipped, type and direction combinations are written as a
product) are listed in a comment at the top of ``bias.pl``; a task read from Popper files is
written back exactly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from ilpkit.core.bias import Bias, Mode, Settings, parse_mode, value_to_term
from ilpkit.core.formats.confine import check_data_file
from ilpkit.core.formats.source import SourceLoader
from ilpkit.core.task import NEG, POS, UNLABELED, Program, SourcedClause, Task
from ilpkit.errors import BiasError, DataError, FormatError, PrologSyntaxError, SourceLocation
from ilpkit.plugins.formats.layouts import (
    BIAS_FILES,
    FOLD_RE,
    ExampleSets,
    bk_files,
    detect_popper,
    example_sets,
    first_file,
    fold_sort_key,
)
from ilpkit.prolog.reader import OperatorTable, PrologReader
from ilpkit.prolog.terms import (
    Clause,
    Const,
    Struct,
    Term,
    clause_to_prolog,
    list_items,
    make_list,
    quote_atom,
    to_prolog,
)
from ilpkit.prolog.writer import write_lines

DEFAULT_TYPE: Final = "t"
_INTERPRETED: Final = {"head_pred": 2, "body_pred": 2, "type": 2, "direction": 2, "max_body": 1}
_DIRECTIONS: Final = {"in": "+", "out": "-"}

Kind = Literal["modeh", "modeb"]


# --------------------------------------------------------------------------------------------
# The bias language
# --------------------------------------------------------------------------------------------


def _tuple_items(term: Term) -> list[Term]:
    """``(a,b,c)`` -> [a, b, c]; ``(a)`` -> [a]; ``[]`` (the empty tuple) -> []."""
    if term == Const("[]"):
        return []
    if type(term) is Struct and term.name == "," and len(term.args) == 2:
        return [term.args[0], *_tuple_items(term.args[1])]
    return [term]


def _tuple_text(items: Iterable[str]) -> str:
    parts = [quote_atom(i) for i in items]
    return "(" + ",".join(parts) + ("," if len(parts) == 1 else "") + ")"


@dataclass
class _Declared:
    name: str
    arity: int
    kind: Kind
    location: SourceLocation | None


@dataclass
class PopperBias:
    """The facts of a Popper bias file, turned into modes and settings."""

    preds: list[_Declared] = field(default_factory=list)
    types: dict[str, list[tuple[tuple[str, ...], SourceLocation | None]]] = field(
        default_factory=dict
    )
    directions: dict[str, list[tuple[tuple[str, ...], SourceLocation | None]]] = field(
        default_factory=dict
    )
    other: dict[str, list[tuple[Term, SourceLocation | None]]] = field(default_factory=dict)
    max_body: tuple[int, SourceLocation | None] | None = None
    warnings: list[str] = field(default_factory=list)
    syntax_errors: list[tuple[SourceLocation, str]] = field(default_factory=list)
    """Declarations with a syntax error (skipped, or refused when loading strictly)."""

    def add(self, term: Term, loc: SourceLocation | None) -> None:
        """Interpret one fact of the bias file."""
        where = f"{loc}: " if loc else ""
        if type(term) is Struct and term.name == ":-":
            self.warnings.append(
                f"{where}not used (only Popper's declarations are read): {to_prolog(term)[:80]}"
            )
            return
        if type(term) is Const and isinstance(term.value, str):
            self.other.setdefault(term.value, []).append((term, loc))
            return
        if type(term) is not Struct:
            raise BiasError(
                f"{where}expected a bias fact such as body_pred(p,2), got {to_prolog(term)}"
            )
        expected = _INTERPRETED.get(term.name)
        if expected is None:
            self.other.setdefault(term.name, []).append((term, loc))
        elif len(term.args) != expected:
            self.warnings.append(
                f"{where}{to_prolog(term)} is not a Popper declaration "
                f"({term.name}/{expected} expected); ignored"
            )
        elif term.name in ("head_pred", "body_pred"):
            self._pred(term, loc, where)
        elif term.name == "max_body":
            self._max_body(term.args[0], loc, where)
        else:
            self._types_or_directions(term, loc, where)

    def _pred(self, term: Struct, loc: SourceLocation | None, where: str) -> None:
        name, arity = term.args
        if not (type(name) is Const and isinstance(name.value, str)) or not (
            type(arity) is Const and isinstance(arity.value, int) and arity.value >= 0
        ):
            raise BiasError(f"{where}{to_prolog(term)}: expected {term.name}(name, arity)")
        kind: Kind = "modeh" if term.name == "head_pred" else "modeb"
        self.preds.append(_Declared(name.value, arity.value, kind, loc))

    def _max_body(self, value: Term, loc: SourceLocation | None, where: str) -> None:
        if not (type(value) is Const and isinstance(value.value, int) and value.value >= 0):
            raise BiasError(f"{where}max_body({to_prolog(value)}): expected a number >= 0")
        self.max_body = (value.value, loc)

    def _types_or_directions(self, term: Struct, loc: SourceLocation | None, where: str) -> None:
        pred, tup = term.args
        if not (type(pred) is Const and isinstance(pred.value, str)):
            raise BiasError(f"{where}{to_prolog(term)}: expected a predicate name first")
        names = []
        for item in _tuple_items(tup):
            if type(item) is not Const:
                raise BiasError(
                    f"{where}{to_prolog(term)}: expected a tuple of names such as "
                    "(t1,t2), got " + to_prolog(item)
                )
            names.append(str(item.value))
        if term.name == "direction":
            bad = [n for n in names if n not in _DIRECTIONS]
            if bad:
                raise BiasError(f"{where}{to_prolog(term)}: direction {bad[0]!r} is not in or out")
            self.directions.setdefault(pred.value, []).append((tuple(names), loc))
        else:
            self.types.setdefault(pred.value, []).append((tuple(names), loc))

    # -- results ----------------------------------------------------------------------------
    def modes(self) -> list[Mode]:
        """modeh and modeb declarations, in the order of head_pred/body_pred."""
        out: list[Mode] = []
        seen: set[Term] = set()
        for decl in self.preds:
            for mode in self._modes_of(decl):
                key = mode.to_term()
                if key not in seen:
                    seen.add(key)
                    out.append(mode)
        self._check_undeclared()
        return out

    def _modes_of(self, decl: _Declared) -> Iterator[Mode]:
        types = self._tuples(self.types, decl, "type")
        dirs = self._tuples(self.directions, decl, "direction")
        if not types:
            types = [(DEFAULT_TYPE,) * decl.arity]
        if not dirs:
            first = "in" if decl.arity else ""
            rest = "in" if decl.kind == "modeh" else "out"
            dirs = [tuple([first] + [rest] * (decl.arity - 1))] if decl.arity else [()]
        for typ in types:
            for d in dirs:
                args = [Struct(_DIRECTIONS[io], (Const(t),)) for t, io in zip(typ, d, strict=True)]
                template: Term = Struct(decl.name, args) if args else Const(decl.name)
                yield parse_mode(decl.kind, Const("*"), template, decl.location)

    @staticmethod
    def _tuples(
        table: dict[str, list[tuple[tuple[str, ...], SourceLocation | None]]],
        decl: _Declared,
        what: str,
    ) -> list[tuple[str, ...]]:
        out: list[tuple[str, ...]] = []
        for tup, loc in table.get(decl.name, []):
            if len(tup) != decl.arity:
                where = f"{loc}: " if loc else ""
                raise BiasError(
                    f"{where}{what}({decl.name}, {_tuple_text(tup)}) has {len(tup)} entries, "
                    f"but {decl.name} has arity {decl.arity} (declared at {decl.location})"
                )
            if tup not in out:
                out.append(tup)
        return out

    def _check_undeclared(self) -> None:
        names = {d.name for d in self.preds}
        for table, what in ((self.types, "type"), (self.directions, "direction")):
            for pred, entries in table.items():
                if pred not in names:
                    loc = entries[0][1]
                    self.warnings.append(
                        f"{loc}: {what}/2 for {pred}, which has no head_pred or body_pred; ignored"
                    )
        untyped = sorted({d.name for d in self.preds if d.name not in self.types and d.arity})
        if untyped and self.types:
            self.warnings.append(
                f"no type/2 for {', '.join(untyped)}: their arguments get type "
                f"'{DEFAULT_TYPE}', which links only to other untyped arguments"
            )

    def apply_settings(self, settings: Settings) -> None:
        """``max_body`` -> ``clauselength``; other facts -> settings of their name."""
        if self.max_body is not None:
            settings.set_term("clauselength", Const(self.max_body[0] + 1), self.max_body[1])
        for name, entries in self.other.items():
            first, loc = entries[0]
            if len(entries) == 1 and type(first) is Struct and len(first.args) == 1:
                settings.set_term(name, first.args[0], loc)
            else:
                settings.set_term(name, make_list([t for t, _ in entries]), loc)


def _bias_text(text: str) -> tuple[str, list[int]]:
    """Clingo bias text as Prolog text: 1-tuples and empty tuples rewritten, ``#`` lines
    blanked (their line numbers are returned).  Line numbers are kept."""
    skipped: list[int] = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.lstrip().startswith("#"):
            skipped.append(i + 1)
            lines[i] = ""
    pattern = re.compile(
        r"""('(?:[^'\\\n]|\\.|'')*'|"(?:[^"\\\n]|\\.)*"|%[^\n]*)"""  # kept as they are
        r"""|,(\s*)\)"""  # (a,) -> (a)
        r"""|(?<=[,(])(\s*)\(\s*\)"""  # () -> []
    )

    def fix(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return m.group(1)
        if m.group(2) is not None:
            return m.group(2) + ")"
        return m.group(3) + "[]"

    return pattern.sub(fix, "\n".join(lines)), skipped


def read_bias_file(path: Path) -> PopperBias:
    """Read a Popper bias file (clingo syntax) into a :class:`PopperBias`."""
    check_data_file(path)
    text = _read_text(path)
    prolog, skipped = _bias_text(text)
    ops = OperatorTable()
    ops.add(900, "fy", "not")
    bias = PopperBias()
    for line in skipped:
        bias.warnings.append(f"{path}:{line}:1: clingo directive (#...) not used")
    try:
        for rt in PrologReader(ops=ops, double_quotes="atom").read_text(prolog, str(path)):
            bias.add(rt.term, rt.location)
    except PrologSyntaxError as err:
        if err.truncated:
            raise
        bias.syntax_errors.extend(err.errors)  # skipped with the loader's summary
    return bias


def _read_text(path: Path) -> str:
    if not path.is_file():
        raise DataError(f"{path}: file does not exist")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataError(f"{path}:{line}:1: not UTF-8 text; expected UTF-8") from None
    return text.lstrip("\ufeff").replace("\r\n", "\n")


# --------------------------------------------------------------------------------------------
# Layout
# --------------------------------------------------------------------------------------------


@dataclass
class _Layout:
    """The files of one Popper task."""

    name: str
    bias: Path
    bk: list[Path]
    examples: list[tuple[Path, str | None]]
    notes: list[str] = field(default_factory=list)


def _layout(folder: Path, stem: str | None) -> _Layout:
    """Find the bias, background and example files of the task in ``folder``."""
    sets = example_sets(folder)
    if stem is not None or (sets.plain is None and not sets.folds and len(sets.stems) == 1):
        return _stem_layout(folder, sets, stem or next(iter(sets.stems)))
    examples: list[tuple[Path, str | None]]
    fold_bk: list[Path] = []
    if sets.folds:
        folds = dict(sets.folds)
        if sets.plain is not None:
            if "train" in folds:
                raise FormatError(f"{folder}: both exs.pl and a train fold; remove one")
            folds["train"] = (sets.plain, [])
        names = sorted(folds, key=fold_sort_key)
        examples = [(folds[n][0], n) for n in names]
        fold_bk = [p for n in names for p in folds[n][1]]
    elif sets.plain is not None:
        examples = [(sets.plain, None)]
    elif sets.stems:
        raise FormatError(
            f"{folder}: holds several example sets ({', '.join(sorted(sets.stems))});"
            " choose one with --stem NAME"
        )
    else:
        raise DataError(f"{folder}: no examples (exs.pl with pos(...)/neg(...) facts) found")
    bk = bk_files(folder) or ([] if fold_bk else bk_files(folder.parent))
    layout = _Layout(folder.name, _bias_file(folder), _require_bk(folder, bk + fold_bk), examples)
    if sets.stems:
        layout.notes.append(
            f"{folder}: other example sets not loaded: "
            f"{', '.join(sorted(sets.stems))} (choose one with --stem NAME)"
        )
    return layout


def _bias_file(folder: Path) -> Path:
    bias = first_file((folder, folder.parent), BIAS_FILES)
    if bias is None:
        raise DataError(
            f"{folder}: no Popper bias file ({' or '.join(BIAS_FILES)}) here or in {folder.parent}"
        )
    return bias


def _stem_layout(folder: Path, sets: ExampleSets, stem: str) -> _Layout:
    """The task ``stem``: a sub-folder (with its own files or its parent's), or a file."""
    target = sets.stems.get(stem)
    name = f"{folder.name}/{stem}"
    if target is not None and target.is_dir():
        inner = _layout(target, None)
        inner.name = name
        return inner
    extra_bk: list[Path] = []
    if target is None and stem in sets.folds:
        target, extra_bk = sets.folds[stem]
    if target is None:
        choices = sorted({*sets.stems, *sets.folds})
        if not choices:
            one = f"one, {sets.plain.name}" if sets.plain is not None else "none"
            raise FormatError(
                f"{folder}: no example set {stem!r}; this folder holds {one}: leave out --stem"
            )
        raise FormatError(f"{folder}: no example set {stem!r}; choices: " + ", ".join(choices))
    bk = _require_bk(folder, (bk_files(folder) or bk_files(folder.parent)) + extra_bk)
    return _Layout(name, _bias_file(folder), bk, [(target, None)])


def _require_bk(folder: Path, files: list[Path]) -> list[Path]:
    if not files:
        raise DataError(f"{folder}: no background file bk.pl here or in {folder.parent}")
    return files


def _load_background(loader: SourceLoader, path: Path) -> None:
    loader.load_file(path, "background")


def _dedupe_program(program: Program) -> None:
    """Drop repeated facts and clauses (the union of several bk files)."""
    for key, rows in program.facts.items():
        program.facts[key] = list(dict.fromkeys(rows))
    for key, clauses in program.clauses.items():
        seen: set[Clause] = set()
        kept: list[SourcedClause] = []
        for sc in clauses:
            canon = sc.clause.canonical()
            if canon not in seen:
                seen.add(canon)
                kept.append(sc)
        program.clauses[key] = kept


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


def _setting_lines(settings: Settings) -> list[str]:
    lines = []
    for name, value in settings.items():
        if name == "clauselength" and isinstance(value, int) and value >= 1:
            lines.append(f"max_body({value - 1}).")
        else:
            lines.append(to_prolog(Struct(name, (value_to_term(value),))) + ".")
    for name, term in settings.unknown.items():
        items, tail = list_items(term)
        if tail == Const("[]") and items and all(_is_fact_of(i, name) for i in items):
            lines.extend(to_prolog(i) + "." for i in items)
        else:
            lines.append(to_prolog(Struct(name, (term,))) + ".")
    return lines


def _is_fact_of(term: Term, name: str) -> bool:
    return (type(term) is Struct and term.name == name) or term == Const(name)


def _declarations(bias: Bias) -> tuple[list[str], list[str]]:
    """head_pred/body_pred/type/direction lines for the modes, and notes on what changed."""
    allowed = {m.indicator for h in bias.modeh for m in bias.body_modes_for(h.indicator)}
    modes = [*bias.modeh, *(m for m in bias.modeb if not bias.modeh or m.indicator in allowed)]
    issues: dict[str, list[str]] = {}
    preds: dict[tuple[str, str, int], None] = {}
    tuples: dict[tuple[str, int], tuple[list[tuple[str, ...]], list[tuple[str, ...]]]] = {}
    for mode in modes:
        shown = f"{mode.name}/{mode.arity}"
        if any(len(p.path) != 1 for p in mode.places) or len(mode.places) != mode.arity:
            issues.setdefault("not written (nested or constant arguments)", []).append(str(mode))
            continue
        if mode.recall is not None:
            issues.setdefault("recall dropped (Popper has no recall)", []).append(shown)
        if any(p.io == "#" for p in mode.places):
            issues.setdefault("'#' (constant) places written as out", []).append(shown)
        preds["head_pred" if mode.kind == "modeh" else "body_pred", *mode.indicator] = None
        types, dirs = tuples.setdefault(mode.indicator, ([], []))
        typ = tuple(p.type for p in mode.places)
        d = tuple("in" if p.io == "+" else "out" for p in mode.places)
        if typ not in types:
            types.append(typ)
        if d not in dirs:
            dirs.append(d)
    notes = [f"{what}: {', '.join(dict.fromkeys(who))}" for what, who in issues.items()]
    if bias.determinations:
        notes.append(
            "determinations are not Popper bias; only the body modes they allow are written"
        )
    lines = [f"{kind}({quote_atom(n)},{a})." for kind, n, a in preds]
    for (n, _), (types, dirs) in tuples.items():
        lines.extend(f"type({quote_atom(n)},{_tuple_text(t)})." for t in types if t)
        lines.extend(f"direction({quote_atom(n)},{_tuple_text(d)})." for d in dirs if d)
    return lines, notes


def _bias_lines(bias: Bias) -> list[str]:
    body, notes = _declarations(bias)
    settings = _setting_lines(bias.settings)
    check = PopperBias()
    for text in body:
        check.add(PrologReader().read_term(_bias_text(text)[0]), None)
    wanted = [str(m) for m in (*bias.modeh, *bias.modeb)]
    got = [str(m) for m in check.modes()]
    if got != wanted and not notes:
        notes.append(
            "the type x direction combinations of some predicates are written as a "
            "product, which allows more modes"
        )
    header = ["% Popper bias written by ilpkit."]
    if notes:
        header.append("% Not expressible in Popper's bias (approximated):")
        header.extend(f"%   {n}" for n in notes)
    return [*header, *settings, *body]


def _example_lines(task: Task, fold: int) -> list[str]:
    ex = task.examples
    names = {POS: "pos", NEG: "neg", UNLABELED: "unlabeled"}
    out = []
    for i in (ex.folds == fold).nonzero()[0]:
        out.append(f"{names[int(ex.labels[i])]}({to_prolog(ex.atoms[i], 999)}).")
    return out


def _bk_lines(task: Task) -> list[str]:
    program = task.program
    lines = [f":- dynamic {quote_atom(n)}/{a}." for n, a in sorted(program.dynamic)]
    lines += [
        f":- {to_prolog(d.term.args[0], 1199)}."
        for d in task.directives
        if type(d.term) is Struct and len(d.term.args) == 1
    ]
    lines += [clause_to_prolog(c) for c in program.iter_clauses()]
    return lines


class PopperFormat:
    """Popper's ``bk.pl``/``exs.pl``/``bias.pl`` (see the module docstring)."""

    name = "popper"
    description = (
        "Popper: bk.pl, exs.pl (pos/neg facts) and bias.pl or popper-bias.pl (head_pred, "
        "body_pred, type, direction)"
    )

    # -- detection --------------------------------------------------------------------------
    def detect(self, path: Path) -> str | None:
        """Claim a folder with a bias file, bk.pl and examples, unless an Aleph mode file is
        there (ilp-experiments folders hold both; Aleph's loader reads those by default)."""
        return detect_popper(path)

    # -- loading ----------------------------------------------------------------------------
    def load(self, path: Path, *, stem: str | None = None) -> Task:
        path = Path(path)
        if not path.is_dir():
            raise FormatError(
                f"{path}: a Popper data set is a folder with bk.pl, exs.pl and bias.pl"
            )
        layout = _layout(path, stem)
        loader = SourceLoader(layout.name, "popper")
        loader.notes.extend(layout.notes)
        loader.sources.append(str(layout.bias))
        bias = read_bias_file(layout.bias)
        loader.add_skippable_errors(bias.syntax_errors)
        bias.apply_settings(loader.bias.settings)
        for bk in layout.bk:
            _load_background(loader, bk)
        if len(layout.bk) > 1:
            _dedupe_program(loader.program)
        for exs, fold in layout.examples:
            if fold is not None:
                loader.examples.fold_index(fold)
            loader.load_file(exs, "labelled", fold=fold)
        for mode in bias.modes():
            loader.bias.add_mode(mode)
        loader.warnings.extend(bias.warnings)
        return loader.task()

    # -- writing ----------------------------------------------------------------------------
    def write(self, task: Task, dest: Path) -> list[Path]:
        """Write ``bias.pl``, ``bk.pl`` and ``exs.pl`` (one ``<fold>/exs.pl`` per fold)."""
        ex = task.examples
        if any(w != 1.0 for w in ex.weights.tolist()):
            raise FormatError("the popper format has no example weights; use another format")
        assigned = ex.folds >= 0
        if assigned.any() and not assigned.all():
            raise FormatError("some examples have a fold and others not; cannot write folds")
        dest = Path(dest)
        written = [
            write_lines(dest / "bias.pl", _bias_lines(task.bias)),
            write_lines(dest / "bk.pl", _bk_lines(task)),
        ]
        if not assigned.any():
            written.append(write_lines(dest / "exs.pl", _example_lines(task, -1)))
            return written
        for i, name in enumerate(task.fold_names):
            parts = name.split("/")
            if not all(FOLD_RE.fullmatch(p) for p in parts):
                raise FormatError(
                    f"fold name {name!r} would read back as a separate task; Popper folds must "
                    "be named train, test, tune, dev, valid, foldN or splitN"
                )
            written.append(write_lines(dest.joinpath(*parts, "exs.pl"), _example_lines(task, i)))
        return written


FORMAT: Final = PopperFormat()
