"""Reading Prolog-text sources into a task, interpreting the directives data files use.

Shared by the Aleph, Popper and ilp-experiments loaders.  Directives are *interpreted*, never
executed: settings, modes, determinations, includes, operator and flag declarations, Aleph's
SWI-module section markers.  Any other directive is kept in ``Task.directives`` with its
location, reported by ``ilpkit data check`` and refused by Prolog engines unless the user
trusts the data.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Final, Literal

from ilpkit.core.bias import Bias, parse_mode
from ilpkit.core.formats.confine import check_data_file, check_named
from ilpkit.core.system_predicates import SYSTEM_PREDICATES
from ilpkit.core.task import (
    NEG,
    POS,
    UNLABELED,
    ExampleBuilder,
    Program,
    SourcedTerm,
    Task,
)
from ilpkit.errors import DataError, IlpkitError, PrologSyntaxError, SourceLocation
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import Clause, Const, Struct, Term, Var, is_ground, list_items, to_prolog

Role = Literal["background", "pos", "neg", "unlabeled", "labelled", "bias"]
"""What the clauses of a file are: background, examples of one label, ``pos(X)``/``neg(X)``
facts (``labelled``), or a bias file whose non-directive clauses are bias facts."""

INCLUDE_EXTENSIONS: Final = ("", ".pl", ".yap", ".prolog", ".b")

# Directives with no effect on the data (accepted silently).
_NEUTRAL: Final = frozenset(
    {
        "style_check",
        "discontiguous",
        "set_prolog_flag",
        "op",
        "aleph",
        "use_rendering",
        "yap_flag",
        "source",
        "module",
        "license",
        "set_random",
        "ensure_loaded_library",
    }
)
_LIBRARY_LOADERS: Final = frozenset(
    {"use_module", "ensure_loaded", "consult", "include", "load_files", "reconsult"}
)
_NOT_FACTS: Final = frozenset({":-", "?-", "=>", "-->"})
"""Functors of terms that are directives or rules, never facts (the readers' fast path for
ground facts skips them)."""
ILP_SYSTEM_FILES: Final = frozenset({"aleph", "progol", "metagol", "popper", "golem", "foil"})
"""Base names of ILP systems' own sources: data that loads them is noted, not followed."""


_SYSTEM_NAMES: Final = frozenset(name for name, _ in SYSTEM_PREDICATES)
"""Names of system built-ins: facts with these names leave the fast path to be checked."""


_SHAPES: Final = {
    (":-", 1): "a directive",
    ("?-", 1): "a directive",
    (":-", 2): "a clause",
    ("=>", 2): "a single-sided-unification rule (SWI-Prolog stores it as a clause of its head "
    "and runs its body unchecked)",
    ("-->", 2): "a grammar rule",
    ("end_of_file", 0): "the end of the program (an engine reading it stops loading there)",
}
"""Heads an engine would read as something other than a clause of that name."""


def check_shape(term: Term, loc: SourceLocation) -> None:
    """Refuse a term an engine would read as something other than the clause ilpkit sees,
    whatever ``--trust-data`` says: ``(:- G) :- true`` (the exporter would write a
    directive), ``H => B`` (SWI-Prolog's single-sided unification: a clause of ``H`` whose
    body no check sees), a fact ``end_of_file`` (every engine stops reading there, dropping
    the rest of the program in silence), or a clause whose head is ``:-``, ``?-`` or
    ``=>``."""
    key = _key(term)
    if key == (":-", 2):
        assert type(term) is Struct
        shown, culprit = "the head of this clause", term.args[0]
        found = _key(culprit)
    elif key in _SHAPES and key != ("-->", 2):  # grammar rules: the safety check's
        shown, culprit, found = "this term", term, key
    else:
        return
    if found is None or found not in _SHAPES:
        return
    raise DataError(
        f"{loc}: {shown}, {_short_text(culprit)}, would be read by a Prolog engine as "
        f"{_SHAPES[found]}, not as data; ilpkit refuses it (rewrite it as a plain fact or "
        "clause)"
    )


def _key(term: Term) -> tuple[str, int] | None:
    if type(term) is Struct:
        return (term.name, len(term.args))
    if type(term) is Const and isinstance(term.value, str):
        return (term.value, 0)
    return None


def _short_text(term: Term, limit: int = 80) -> str:
    text = to_prolog(term)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_not_system(head: Term, loc: SourceLocation) -> None:
    """Refuse a clause or fact defining a system built-in (``succ/2``, ``length/2``, ...).

    Engines disagree on such a definition (SWI-Prolog refuses to modify a system predicate,
    a module-scoped load may accept it, the native engine keeps the built-in), so ilpkit
    refuses it at load, the same on every backend (docs/formats.md, "Built-ins")."""
    if type(head) is Struct:
        key = (head.name, len(head.args))
    elif type(head) is Const and isinstance(head.value, str):
        key = (head.value, 0)
    else:
        return
    if key in SYSTEM_PREDICATES:
        name = to_prolog(Const(key[0]), 0)
        raise DataError(
            f"{loc}: this clause defines {name}/{key[1]}, a built-in predicate that a program "
            "cannot redefine (engines would disagree on which definition runs); rename the "
            "predicate"
        )


_SECTION_MARKERS: Final = {
    "begin_bg": "background",
    "end_bg": None,
    "begin_in_pos": "pos",
    "end_in_pos": None,
    "begin_in_neg": "neg",
    "end_in_neg": None,
}


class SourceLoader:
    """Accumulates a task from Prolog files."""

    def __init__(self, name: str, fmt: str, *, max_errors: int = 25):
        self.name = name
        self.format = fmt
        self.program = Program()
        self.bias = Bias()
        self.examples = ExampleBuilder()
        self.sources: list[str] = []
        self.directives: list[SourcedTerm] = []
        self.warnings: list[str] = []
        self.notes: list[str] = []
        self.bias_facts: list[SourcedTerm] = []
        self.max_errors = max_errors
        self._syntax_errors: list[tuple[SourceLocation, str]] = []
        self._skippable: set[tuple[SourceLocation, str]] = set()
        """Errors in background and bias files (clauses, mode declarations): skipped unless
        :data:`STRICT`; an error in an examples file always refuses."""
        self._truncated = False
        self._loading: list[Path] = []
        self.on_fact: Callable[[Term, SourceLocation], bool] | None = None
        self._print_hooks: list[SourceLocation] = []
        self.skip_sections = False
        """Skip the clauses inside begin_bg/begin_in_pos/begin_in_neg sections."""

    # -- files ------------------------------------------------------------------------------
    def load_file(
        self,
        path: Path,
        role: Role = "background",
        fold: str | None = None,
        *,
        named: bool = False,
    ) -> None:
        """Read one file (and what it includes), routing its clauses by ``role``.

        The file must lie inside the data folder (:func:`~ilpkit.core.formats.confine.
        check_data_file`) unless ``named``: a path the data names, already checked with the
        naming clause's location."""
        path = Path(path)
        if not named:
            check_data_file(path)
        resolved = path.resolve()
        if resolved in self._loading:
            chain = " -> ".join(str(p) for p in [*self._loading, resolved])
            raise DataError(f"{path}: include cycle: {chain}")
        self._loading.append(resolved)
        self.sources.append(str(path))
        reader = PrologReader(max_errors=self.max_errors)
        section: Role | None = None
        in_section = False
        skipping: list[bool] = []  # stack of :- if/else states: True = skip this block
        add_ground_fact = self.program.add_ground_fact
        try:
            for rt in reader.read_file(path):
                term = rt.term
                if (
                    type(term) is Struct
                    and term.name not in _NOT_FACTS
                    and term.name not in _SYSTEM_NAMES
                    and (section or role) == "background"
                    and not skipping
                    and not (in_section and self.skip_sections)
                    and is_ground(term)
                    and add_ground_fact(term)
                ):
                    continue  # the bulk of large data: no location, no clause to build
                loc = rt.location
                if type(term) is Struct and term.name == ":-" and len(term.args) == 1:
                    goal = term.args[0]
                    if self._conditional(goal, skipping, loc):
                        continue
                    if any(skipping):
                        continue
                    new_section = self._section(goal)
                    if new_section is not False:
                        section = new_section  # type: ignore[assignment]
                        in_section = new_section is not None
                        continue
                    self.directive(goal, loc, path, section or role, fold)
                    continue
                if any(skipping) or (in_section and self.skip_sections):
                    continue
                if type(term) is Struct and term.name == "?-" and len(term.args) == 1:
                    if _loads_files(term.args[0]):  # ?- consult(bk). as old Aleph data has
                        self.directive(term.args[0], loc, path, section or role, fold)
                        continue
                    self.directives.append(SourcedTerm(term, loc))
                    continue
                self.clause(term, loc, section or role, fold)
        except PrologSyntaxError as err:
            self._syntax_errors.extend(err.errors)
            if role in ("background", "bias"):
                self._skippable.update(err.errors)
            self._truncated = self._truncated or err.truncated
            if len(self._syntax_errors) >= self.max_errors:
                self.raise_syntax_errors()
        finally:
            self._loading.pop()
        if skipping:
            self.warnings.append(f"{path}: ':- if' without ':- endif'")

    def add_skippable_errors(self, errors: Sequence[tuple[SourceLocation, str]]) -> None:
        """Syntax errors a format read itself (a Popper bias file), skipped as the background's."""
        self._syntax_errors.extend(errors)
        self._skippable.update(errors)

    def skip_syntax_errors(self) -> None:
        """Report and skip the clauses and directives with a syntax error in background and
        bias files (a broken ``:- modeb(...)`` or ``q(a, b.``), as SWI-Prolog and Aleph load
        the rest of a file, with one summary warning; :data:`STRICT` refuses them instead.
        Errors in examples files still refuse the data (and so do directives there)."""
        if STRICT.get() or not self._syntax_errors or self._truncated:
            return
        skipped = [
            (loc, msg)
            for loc, msg in self._syntax_errors
            if (loc, msg) in self._skippable or _in_directive(loc)
        ]
        if not skipped:
            return
        self._syntax_errors = [e for e in self._syntax_errors if e not in skipped]
        self.warnings.append(skipped_summary(skipped))

    def raise_syntax_errors(self) -> None:
        if self._syntax_errors:
            raise PrologSyntaxError(
                self._syntax_errors[: self.max_errors],
                self._truncated or len(self._syntax_errors) > self.max_errors,
            )

    # -- clauses ----------------------------------------------------------------------------
    def clause(self, term: Term, loc: SourceLocation, role: Role, fold: str | None) -> None:
        check_shape(term, loc)
        if role == "background":
            clause = Clause.from_term(term)
            if type(clause.head) is not Struct and not (
                type(clause.head) is Const and isinstance(clause.head.value, str)
            ):
                raise DataError(
                    f"{loc}: {to_prolog(clause.head)} cannot be the head of a clause "
                    "(expected an atom or a compound term)"
                )
            check_not_system(clause.head, loc)
            if _key(clause.head) == PRINT_HOOK:
                self._print_hooks.append(loc)  # never loaded: see PRINT_HOOK
                return
            self.program.add_clause(clause, loc)
        elif role == "pos":
            self.examples.add(_example(term, loc), POS, fold=fold, location=loc)
        elif role == "neg":
            self.examples.add(_example(term, loc), NEG, fold=fold, location=loc)
        elif role == "unlabeled":
            self.examples.add(_example(term, loc), UNLABELED, fold=fold, location=loc)
        elif role == "labelled":
            self.labelled_example(term, loc, fold)
        else:  # bias
            if self.on_fact is None or not self.on_fact(term, loc):
                self.bias_facts.append(SourcedTerm(term, loc))

    def labelled_example(self, term: Term, loc: SourceLocation, fold: str | None) -> None:
        """``pos(Atom)``, ``neg(Atom)`` (ilp-experiments / Popper ``exs.pl``)."""
        labels = {"pos": POS, "neg": NEG, "unlabeled": UNLABELED}
        if type(term) is Struct and len(term.args) == 1 and term.name in labels:
            atom = _example(term.args[0], loc)
            self.examples.add(atom, labels[term.name], fold=fold, location=loc)
            return
        raise DataError(f"{loc}: expected an example pos(Atom) or neg(Atom), got {to_prolog(term)}")

    # -- directives -------------------------------------------------------------------------
    def _section(self, goal: Term) -> Role | bool | None:
        """Aleph's SWI-module section markers; ``False`` when ``goal`` is not one."""
        if type(goal) is Const and goal.value in _SECTION_MARKERS:
            return _SECTION_MARKERS[goal.value]
        return False

    def _conditional(self, goal: Term, skipping: list[bool], loc: SourceLocation) -> bool:
        """Handle ``:- if/elif/else/endif``.  Conditions are not executed: they count as false
        (data files use them for optional tooling such as ``use_rendering/1``)."""
        if type(goal) is Struct and goal.name == "if" and len(goal.args) == 1:
            skipping.append(True)
            self.warnings.append(
                f"{loc}: ':- if({to_prolog(goal.args[0])})' is not evaluated; its block is skipped"
            )
            return True
        if type(goal) is Struct and goal.name == "elif" and len(goal.args) == 1:
            return True
        if type(goal) is Const and goal.value == "else":
            if skipping:
                skipping[-1] = not skipping[-1]
            return True
        if type(goal) is Const and goal.value == "endif":
            if skipping:
                skipping.pop()
            return True
        return False

    def directive(
        self, goal: Term, loc: SourceLocation, path: Path, role: Role, fold: str | None
    ) -> None:
        goals = _conjuncts(goal)
        first = len(self.directives)
        for g in goals:
            self._one_directive(g, loc, path, role, fold)
        # A conjunction of uninterpreted goals stays one directive: its goals share variables
        # (`:- open(F, write, S), write(S, x), close(S).` under --trust-data).
        kept = self.directives[first:]
        if len(goals) > 1 and len(kept) == len(goals) and all(d.location is loc for d in kept):
            self.directives[first:] = [SourcedTerm(Struct(":-", (goal,)), loc)]

    def _one_directive(
        self, goal: Term, loc: SourceLocation, path: Path, role: Role, fold: str | None
    ) -> None:
        name, args = _name_args(goal)
        if name in ("set", "aleph_set") and len(args) == 2:
            key = args[0]
            if type(key) is not Const or not isinstance(key.value, str):
                raise DataError(f"{loc}: {name}/2 needs a setting name, got {to_prolog(key)}")
            self.bias.settings.set_term(key.value, args[1], loc)
        elif name in ("modeh", "modeb") and len(args) == 2:
            self.bias.add_mode(parse_mode(name, args[0], args[1], loc))  # type: ignore[arg-type]
        elif name == "mode" and len(args) == 2:
            # Aleph's mode(Recall, Template): the template may be the head and a body literal
            self.bias.add_mode(parse_mode("modeh", args[0], args[1], loc))
            self.bias.add_mode(parse_mode("modeb", args[0], args[1], loc))
        elif name == "determination" and len(args) == 2:
            self.bias.add_determination(args[0], args[1], loc)
        elif name == "abolish" and len(args) in (1, 2):
            # UW-CSE's advisedby.b loads bg.yap, then abolishes the target's facts from it.
            gone = (
                _indicators(args[0])
                if len(args) == 1
                else _indicators(Struct("/", (args[0], args[1])))
            )
            for ind in gone:
                self.program.facts.pop(ind, None)
                self.program.clauses.pop(ind, None)
            self.notes.append(f"{loc}: abolished {', '.join(f'{n}/{a}' for n, a in gone)}")
        elif name in ("dynamic", "table") and len(args) == 1:
            for ind in _indicators(args[0]):
                self.program.dynamic.add(ind)
                self.program.declared.setdefault(ind, (name, loc))
        elif name in ("discontiguous", "multifile") and len(args) == 1:
            # no effect on the data, but the safety check refuses one naming an engine's own
            # predicate (it would reach the engine's definition)
            for ind in _indicators(args[0]):
                self.program.declared.setdefault(ind, (name, loc))
        elif (name == "." and len(args) == 2) or name == "[]":
            # :- [file1, file2].
            items, _ = list_items(goal)
            for item in items:
                self.include(item, loc, path, role, fold)
        elif name in _LIBRARY_LOADERS and args:
            target = args[0]
            if type(target) is Struct and target.name == "library":
                return  # libraries (aleph, lists, ...) are the engine's business
            targets = (
                list_items(target)[0] if type(target) is Struct and target.name == "." else [target]
            )
            for item in targets:
                self.include(item, loc, path, role, fold)
        elif name in _NEUTRAL:
            return
        elif name in ("read_all",) and len(args) == 1:
            self.directives.append(SourcedTerm(Struct(":-", (goal,)), loc))
        else:
            self.directives.append(SourcedTerm(Struct(":-", (goal,)), loc))

    def include(
        self, item: Term, loc: SourceLocation, path: Path, role: Role, fold: str | None
    ) -> None:
        if type(item) is not Const or not isinstance(item.value, str):
            if type(item) is Struct and item.name == "library":
                return
            raise DataError(f"{loc}: cannot include {to_prolog(item)}: expected a file name")
        system = Path(item.value).name.rsplit(".", 1)[0].lower()
        if system in ILP_SYSTEM_FILES:
            # Data written for Aleph loads Aleph itself (:- use_module('../aleph.pl')): the
            # learner is ilpkit's business, not the data's
            self.notes.append(
                f"{loc}: {item.value!r} is the {system} ILP system's own file; not loaded"
            )
            return
        base = path.parent / item.value
        shown = to_prolog(item)
        check_named(base, loc, shown, path)  # before probing: not even existence leaks
        for ext in INCLUDE_EXTENSIONS:
            candidate = base.with_name(base.name + ext) if ext else base
            check_named(candidate, loc, shown, path)
            if candidate.is_file():
                self.load_file(candidate, role, fold, named=True)
                return
        tried = ", ".join(str(base) + ext for ext in INCLUDE_EXTENSIONS)
        raise DataError(f"{loc}: included file {item.value!r} not found (tried {tried})")

    # -- result -----------------------------------------------------------------------------
    def task(self) -> Task:
        self.skip_syntax_errors()
        self.raise_syntax_errors()
        if self._print_hooks:
            first = self._print_hooks[0]
            more = len(self._print_hooks) - 1
            self.notes.append(
                f"{first}: portray/1 ({len(self._print_hooks)} clause"
                f"{'s' if more else ''}) not loaded: a printing hook, which Prolog engines "
                "call by themselves and ilpkit never uses"
            )
        task = Task(
            name=self.name,
            format=self.format,
            program=self.program,
            examples=self.examples.build(),
            bias=self.bias,
            fold_names=list(self.examples.fold_names),
            sources=self.sources,
            directives=self.directives,
            warnings=self.warnings,
            notes=self.notes,
        )
        task.validate()
        return task


PRINT_HOOK: Final = ("portray", 1)
"""A definition of ``portray/1`` (old Aleph data pretty-prints with it, e.g. Aleph's
``modes`` example) is dropped at load, with a note: it answers no question ilpkit asks, and a
Prolog engine would call it by itself while printing (a data predicate running where no
limit applies), so loading it would need ``--trust-data``.  A body that calls it is still
refused by the safety check (:mod:`ilpkit.core.safety`)."""


STRICT: ContextVar[bool] = ContextVar("ilpkit_strict_loading", default=False)
"""``True`` while :func:`ilpkit.core.formats.load_task` runs with ``strict=True``: a
background or mode clause with a syntax error then refuses the data instead of being
skipped."""


def skipped_summary(skipped: Sequence[tuple[SourceLocation, str]]) -> str:
    """The warning listing clauses skipped for a syntax error (the first five, located)."""
    shown = "; ".join(f"{loc}: {msg}" for loc, msg in skipped[:5])
    return (
        f"{len(skipped)} clause(s) with a syntax error skipped (load with strict=True, "
        f"`--set data.strict=true`, or `ilpkit data check --strict`, to refuse them): {shown}"
        + (" ..." if len(skipped) > 5 else "")
    )


def _in_directive(loc: SourceLocation) -> bool:
    """Whether the clause around ``loc`` (an error position) starts with ``:-``."""
    try:
        with open(loc.file, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return False
    row = loc.line - 1
    if not 0 <= row < len(lines):
        return False
    # back to the clause's first line: the line after one that ends a clause
    while row > 0 and not lines[row - 1].rstrip().endswith(".") and loc.line - row < 20:
        row -= 1
    return lines[row].lstrip().startswith(":-")


def _loads_files(goal: Term) -> bool:
    """Whether every conjunct of ``goal`` is a file-loading directive (consult, a list)."""
    parts = _conjuncts(goal)
    for g in parts:
        name, args = _name_args(g)
        if not ((name == "." and len(args) == 2) or (name in _LIBRARY_LOADERS and args)):
            return False
    return bool(parts)


def _conjuncts(goal: Term) -> list[Term]:
    if type(goal) is Struct and goal.name == "," and len(goal.args) == 2:
        return [*_conjuncts(goal.args[0]), *_conjuncts(goal.args[1])]
    return [goal]


def _name_args(goal: Term) -> tuple[str, tuple[Term, ...]]:
    if type(goal) is Struct:
        return goal.name, goal.args
    if type(goal) is Const and isinstance(goal.value, str):
        return goal.value, ()
    return "", ()


def _indicators(term: Term) -> list[tuple[str, int]]:
    from ilpkit.core.bias import parse_indicator

    out: list[tuple[str, int]] = []
    for t in _conjuncts(term):
        items = list_items(t)[0] if type(t) is Struct and t.name == "." else [t]
        for item in items:
            try:
                out.append(parse_indicator(item))
            except IlpkitError:
                continue
    return out


def _example(term: Term, loc: SourceLocation) -> Term:
    """``term`` when it can be an example (an atom or a compound term, as a goal must be);
    numbers, strings and ``[]`` cannot, whatever the file says."""
    if type(term) is Struct or (
        type(term) is Const and isinstance(term.value, str) and term.value != "[]"
    ):
        return term
    if type(term) is Var:
        what = "a variable"
    elif type(term) is Const and isinstance(term.value, (int, float)):
        what = "a number"
    else:
        what = "not an atom or a compound term"
    raise DataError(
        f"{loc}: example {to_prolog(term)} is {what}; an example is a goal such as p(a, b)"
    )
