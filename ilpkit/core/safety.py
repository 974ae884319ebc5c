"""Data files are not trusted code: what a background program may make an engine do.

A downloaded ``.b`` file can hold ``:- shell(...)`` or a rule ``p(X) :- shell(X)``.  ilpkit
never consults a raw data file in a Prolog engine: engines get the program its own reader
parsed, and before that :func:`check_program` refuses, with file and line, everything that
could make an engine do more than compute answers -- unless the user trusts the data
(``--trust-data``, :attr:`BackendOptions.trust_data`).

The policy (static, so it holds in every engine, with no run-time wrapper):

* **Directives.**  The loader interprets the known ones (settings, modes, determinations,
  includes, ``dynamic``, ``discontiguous``, ``style_check``, ...) and never passes them on.
  The others (``Task.directives``) reach no engine without ``trust_data``; one is refused
  when running it could do anything but fail: when it calls, directly or through the
  program's clauses, something a clause body may not call -- except a predicate nobody
  defines, which would only raise an existence error (UW-CSE's ``:- load_bg.``).
* **Calls.**  A clause body may call the control constructs, :data:`ALLOWED_BUILTINS`
  (side-effect-free: arithmetic, comparison, type checks, term inspection, text and list
  built-ins, all-solutions predicates) and the predicates the program itself provides:
  defined by its clauses or facts, declared ``dynamic``, or named by a mode declaration.
  Goal arguments of meta-predicates (``findall/3``, ``\\+/1``, ``call/N``, ``maplist/N``,
  ``predsort/3``, ...) are checked the same way, recursively, with the arguments the
  meta-predicate adds counted in the arity.  Checked are the clauses ilpkit's queries can
  reach from the mode, determination, target and example predicates (and Aleph's ``prune/1``,
  ``cost/3``, ``refine/2``, ``false/0``): a clause nothing reaches never runs, as UW-CSE's
  ``load_bg/1``, which consults files.
* **Thrown terms.**  An engine turns an uncaught or reported error into a message, and
  message translation can run goals: SWI-Prolog formats ``format(F, A)`` found in an error,
  and ``~@`` in ``F`` calls a goal of ``A``.  ilpkit's Prolog server never gives a data term
  to a message translator or formatter (it writes errors with ``~q``), and as a second line
  the term of ``throw/1`` (also as ``call(throw, Ball)``) is refused when it holds a
  compound naming a built-in a body may not call (``shell/1``, ``format/2``,
  ``print_message/2``, ...) or the text ``~@`` (atom, string, code or character list).
  ``throw/1`` as a closure (``maplist(throw, Balls)``) is refused: its term is not known
  before it runs.  ``call(G, A1, ...)`` with a known ``G`` is checked as the goal it builds.
* **Meta-calls of goals unknown at load time** (``call(G)`` with a variable ``G``, a variable
  as a body goal, ``maplist(call, Gs)``) are refused: a goal term can be built at run time
  (``atom_codes(A, "shell"), G =.. [A, Cmd]``), so no static rule can admit it soundly.  None
  of the real datasets ilpkit loads needs one.
* **Module-qualified goals** ``M:G`` are checked as ``G`` when ``M`` is ``user``; any other
  module only for an allowed built-in (``lists:append/3``), since ``m:p`` can reach a
  library's unexported (or autoloaded) predicate ``p`` whatever the program defines.
* **Definitions.**  A program may not define, declare dynamic, target or name in a mode a
  predicate of :data:`UNSAFE_BUILTINS` (an engine that refuses the redefinition would run its
  own built-in), nor the hooks engines call by themselves (``term_expansion/2``,
  ``goal_expansion/2``, ``message_hook/3``, ...), nor a module-qualified head.  Grammar rules
  (``-->``) are refused: their bodies are translated by the engine, not by ilpkit.

Directives under ``--trust-data``: the Prolog backends pass the uninterpreted directives to
their engines, which run them in file order (the exporter writes them before the background
clauses); the native backend has nothing to run them with, so it ignores them and logs a
warning.  Without ``trust_data`` no engine ever sees them.

What engine backends must add (the check cannot see an engine's own built-ins):

* Load clauses as terms (``assertz``, or a file written by ilpkit), never by consulting a
  data file, and do not expand terms or goals while loading.
* Without ``trust_data``, treat as fatal an engine's refusal to redefine one of its built-ins
  outside :data:`ALLOWED_BUILTINS` (a program defining, say, ``copy_file/2`` would otherwise
  have its calls reach the engine's predicate), and likewise a mode predicate that is such a
  built-in.  :data:`UNSAFE_BUILTINS` catches the well-known ones here already.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Final, NamedTuple

from ilpkit.core.aleph_library import ALEPH_LIBRARY
from ilpkit.core.engine_names import owners, server_calls, why_reserved
from ilpkit.core.task import Indicator, Task
from ilpkit.errors import DataError, SourceLocation, UnsafeProgramError
from ilpkit.prolog.terms import Const, Str, Struct, Term, Var, indicator, to_prolog

__all__ = [
    "ALLOWED_BUILTINS",
    "CONTROL",
    "ENGINE_SHAPES",
    "MAX_REPORTED",
    "UNSAFE_BUILTINS",
    "UnsafeConstruct",
    "check_program",
    "query_roots",
    "thrown_payload",
    "unsafe_constructs",
]


MAX_REPORTED: Final = 25
"""How many unsafe constructs one error lists (the reader's limit for syntax errors)."""

_TRUST_HINT: Final = "pass --trust-data to allow it"
_UNDEFINED: Final = (
    "no clause or fact of the data defines it, and it is no built-in: check the data for a "
    "misspelt name or a missing file (--trust-data cannot define it)"
)
"""Why a call of a name no engine defines either is refused: a mistake in the data."""


def _pis(text: str) -> frozenset[Indicator]:
    """Predicate indicators from ``"name/arity name/arity ..."`` text."""
    out = set()
    for item in text.split():
        name, _, arity = item.rpartition("/")
        out.add((name, int(arity)))
    return frozenset(out)


CONTROL: Final = _pis(",/2 ;/2 ->/2 *->/2 \\+/1 not/1 !/0 true/0 fail/0 false/0 :/2")
"""Control constructs (their goal arguments are checked like a body)."""

ALLOWED_BUILTINS: Final[frozenset[Indicator]] = (
    CONTROL
    | _pis(
        # unification, comparison, arithmetic
        "=/2 \\=/2 ==/2 \\==/2 @</2 @>/2 @=</2 @>=/2 compare/3 ?=/2 unify_with_occurs_check/2 "
        "subsumes_term/2 is/2 </2 >/2 =</2 >=/2 =:=/2 =\\=/2 succ/2 plus/3 between/3 "
        # type checks
        "var/1 nonvar/1 atom/1 number/1 integer/1 float/1 atomic/1 compound/1 callable/1 "
        "is_list/1 string/1 ground/1 blob/2 "
        # term inspection and construction
        "functor/3 arg/3 =../2 copy_term/2 term_variables/2 "
        # atoms, strings, characters
        "atom_codes/2 atom_chars/2 char_code/2 atom_length/2 atom_concat/3 sub_atom/5 "
        "atom_number/2 atom_string/2 number_codes/2 number_chars/2 number_string/2 name/2 "
        "atomic_list_concat/2 atomic_list_concat/3 upcase_atom/2 downcase_atom/2 "
        "string_chars/2 string_codes/2 string_code/3 string_concat/3 string_length/2 "
        "string_lower/2 string_upper/2 string_to_atom/2 sub_string/5 split_string/4 "
        "term_to_atom/2 term_string/2 "
        # lists
        "append/2 append/3 member/2 memberchk/2 length/2 nth0/3 nth1/3 last/2 reverse/2 "
        "msort/2 sort/2 sort/4 keysort/2 predsort/3 list_to_set/2 delete/3 subtract/3 "
        "intersection/3 union/3 select/3 select/4 selectchk/3 permutation/2 flatten/2 "
        "nextto/3 numlist/3 sum_list/2 sumlist/2 max_list/2 min_list/2 max_member/2 "
        "min_member/2 proper_length/2 pairs_keys_values/3 pairs_keys/2 pairs_values/2 "
        # meta-predicates (their goal arguments are checked)
        "call/1 call/2 call/3 call/4 call/5 call/6 call/7 call/8 findall/3 findall/4 bagof/3 "
        "setof/3 ^/2 aggregate_all/3 forall/2 once/1 ignore/1 catch/3 throw/1 "
        "maplist/2 maplist/3 maplist/4 maplist/5 maplist/6 foldl/4 foldl/5 foldl/6 "
        "include/3 exclude/3 partition/4 "
        # BoostSRL's and YAP's all/3 (a setof/3 that yields [] when there is no answer); no SWI
        # library defines it, so there it is an existence error, as in the native engine
        "all/3"
    )
    | ALEPH_LIBRARY
)
"""Built-ins a clause body may call without ``--trust-data``: they compute answers and do
nothing else.  The native engine implements all of them but ``all/3``; the Aleph utilities
of :data:`~ilpkit.core.aleph_library.ALEPH_LIBRARY` (``aleph_random/1``, ...) are ilpkit's
own, defined on every backend."""

META_ARGS: Final[dict[Indicator, tuple[tuple[int, int], ...]]] = {
    (",", 2): ((0, 0), (1, 0)),
    (";", 2): ((0, 0), (1, 0)),
    ("->", 2): ((0, 0), (1, 0)),
    ("*->", 2): ((0, 0), (1, 0)),
    ("\\+", 1): ((0, 0),),
    ("not", 1): ((0, 0),),
    ("once", 1): ((0, 0),),
    ("ignore", 1): ((0, 0),),
    ("forall", 2): ((0, 0), (1, 0)),
    (":", 2): ((1, 0),),  # M:G itself is checked by _module_problem; this covers call(:, M, G)
    ("findall", 3): ((1, 0),),
    ("findall", 4): ((1, 0),),
    ("aggregate_all", 3): ((1, 0),),
    ("bagof", 3): ((1, 0),),
    ("setof", 3): ((1, 0),),
    ("all", 3): ((1, 0),),
    ("^", 2): ((1, 0),),
    ("catch", 3): ((0, 0), (2, 0)),
    ("include", 3): ((0, 1),),
    ("exclude", 3): ((0, 1),),
    ("partition", 4): ((0, 1),),
    ("predsort", 3): ((0, 3),),
    **{("call", n): ((0, n - 1),) for n in range(1, 9)},
    **{("maplist", n): ((0, n - 1),) for n in range(2, 7)},
    **{("foldl", n): ((0, n - 1),) for n in range(4, 7)},
}
"""Where meta-predicates take goals: (argument index, number of arguments they add)."""

_UNSAFE_GROUPS: Final = {
    "writes output": (
        "write/1 write/2 writeln/1 writeln/2 print/1 print/2 writeq/1 writeq/2 "
        "write_canonical/1 write_canonical/2 write_term/2 write_term/3 "
        "nl/0 nl/1 tab/1 tab/2 put_char/1 put_char/2 debug/3 "
        "flush_output/0 flush_output/1 portray_clause/1 portray_clause/2 listing/0 listing/1"
    ),
    "formats text or messages (~@ in a format runs a goal)": (
        "format/1 format/2 format/3 format_predicate/2 print_message/2 print_message_lines/3 "
        "message_to_codes/3 translate_message/3 message_lines_to_codes/3 assertion/1 "
        "must_be/2 is_of_type/2 format_atom/3 sformat/2 sformat/3 with_output_to/2 "
        "term_to_string/2"
    ),
    "changes the program or the engine": (
        "assert/1 asserta/1 assertz/1 asserta/2 assertz/2 retract/1 retractall/1 abolish/1 "
        "abolish/2 erase/1 recorda/2 recorda/3 recordz/2 recordz/3 recorded/2 recorded/3 "
        "flag/3 setarg/3 nb_setarg/3 dynamic/1 discontiguous/1 op/3 set_prolog_flag/2 "
        "table/1 nb_setval/2 b_setval/2 nb_getval/2 b_getval/2 garbage_collect/0 "
        "set_stream/2 style_check/1 expand_term/2 expand_goal/2"
    ),
    "reads or writes files and streams": (
        "read/1 read/2 read_term/2 read_term/3 open/3 open/4 close/1 close/2 see/1 seen/0 "
        "tell/1 told/0 append/1 get_char/1 get_char/2 peek_char/1 exists_file/1 delete_file/1 "
        "rename_file/2 make_directory/1 delete_directory/1 working_directory/2 chdir/1 tmp_file/2 "
        "read_file_to_terms/3 read_file_to_string/3 open_null_stream/1 current_output/1 "
        "current_input/1 set_output/1 set_input/1"
    ),
    "runs external programs or loads code": (
        "./2 [|]/2 shell/0 shell/1 shell/2 system/1 process_create/3 consult/1 ensure_loaded/1 "
        "use_module/1 use_module/2 load_files/1 load_files/2 make/0 "
        "use_foreign_library/1 use_foreign_library/2 load_foreign_library/1 "
        "open_shared_object/2 call_shared_object_function/2 initialization/1 "
        "initialization/2 halt/0 halt/1 abort/0 getenv/2 setenv/2 unsetenv/1 sleep/1 "
        "thread_create/2 thread_create/3 call_with_time_limit/2 tcp_socket/1 "
        "http_open/3 setup_call_cleanup/3 call_cleanup/2"
    ),
    "is not reproducible": (
        "random/1 random_between/3 random_member/2 random_permutation/2 random_select/3 "
        "set_random/1 statistics/2 get_time/1 time/1"
    ),
    "inspects or runs the engine's own code": (
        "clause/2 predicate_property/2 current_op/3 current_predicate/1 current_predicate/2 "
        "freeze/2 dif/2 when/2 apply/2 call_residue_vars/2 prolog_load_context/2"
    ),
}

UNSAFE_BUILTINS: Final[dict[Indicator, str]] = {
    key: why for why, text in _UNSAFE_GROUPS.items() for key in sorted(_pis(text))
}
"""Well-known built-ins outside the allow-list, with the reason shown to the user.  Anything
else not allowed is refused too; this table only makes the messages precise, and a program
may not define or declare these names (an engine may keep its own built-in)."""

HOOKS: Final = _pis(
    "term_expansion/2 term_expansion/4 goal_expansion/2 goal_expansion/4 message_hook/3 "
    "portray/1 prolog_load_file/2 exception/3 prolog_exception_hook/4 "
    "prolog_exception_hook/5 expand_query/4 expand_answer/2 resource/2 resource/3 "
    "file_search_path/2 library_directory/1 prolog_file_type/2 message_property/2 "
    "prolog_trace_interception/4 unknown/2"
)
"""Predicates an engine calls by itself (while loading, printing or on errors)."""

ROOTS: Final = _pis("prune/1 cost/3 refine/2 false/0")
"""Aleph's user-defined hooks: a learner may call them, so their clauses are checked too."""

HOOK_PROVIDED: Final = {("false", 0): _pis("hypothesis/3")}
"""What a hook's own clauses may call that the program need not define: the clauses of
``false/0`` ask ``hypothesis/3`` for the clause under test (:mod:`ilpkit.core.aleph_hooks`
answers it there, and only there)."""


ENGINE_SHAPES: Final = {
    (":-", 1): "a directive",
    (":-", 2): "a clause of its head",
    ("?-", 1): "a directive",
    ("=>", 2): "a single-sided-unification rule of its head",
    ("end_of_file", 0): "the end of the program",
}
"""Predicates no program may have, because an engine reading the exported clause would take
it for something else (the loaders refuse them with the line; this holds for tasks built
in Python too)."""


class UnsafeConstruct(NamedTuple):
    """One refused construct: where, what and why."""

    location: SourceLocation | None
    what: str
    why: str

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        if self.why.endswith(_UNDEFINED):  # a mistake in the data, which trust cannot mend
            return f"{where}{self.what}: {_UNDEFINED}"
        return f"{where}{self.what} is not allowed ({self.why}); {_TRUST_HINT}"


def check_program(task: Task, *, trust_data: bool = False, runs_directives: bool = True) -> None:
    """Raise :class:`UnsafeProgramError` listing the unsafe constructs of ``task``.

    Called by every backend at load time, so the same program is refused everywhere.  With
    ``trust_data`` it accepts everything but a predicate an engine would not read as one
    (:data:`ENGINE_SHAPES`, refused even then); a backend that cannot run directives
    (``runs_directives=False``) then logs that it ignores them.
    """
    for key in sorted({*task.program.clauses, *task.program.facts} & ENGINE_SHAPES.keys()):
        clauses = task.program.clauses.get(key)
        where = clauses[0].location if clauses else fact_location(task, key)
        raise DataError(
            f"{where or task.name}: a clause of {_pi(key)} would be read by a Prolog engine "
            f"as {ENGINE_SHAPES[key]}, not as data; ilpkit refuses it, trusted or not"
        )
    if trust_data:
        if task.directives and not runs_directives:
            import logging  # (only here: most runs log nothing)

            n = len(task.directives)
            logging.getLogger(__name__).warning(
                "%s: %d directive%s of the data not run (this backend runs no directives)",
                task.directives[0].location,
                n,
                "s" if n > 1 else "",
            )
        return
    found = unsafe_constructs(task)
    if not found:
        return
    n = len(found)
    lines = [
        f"data files are not trusted code: {n} construct{'s' if n > 1 else ''} could make a "
        "Prolog engine do more than compute answers (see docs/security.md)",
        *(str(u) for u in found[:MAX_REPORTED]),
    ]
    if n > MAX_REPORTED:
        lines.append(f"({n - MAX_REPORTED} further unsafe constructs not reported)")
    raise UnsafeProgramError("\n".join(lines))


def unsafe_constructs(task: Task) -> list[UnsafeConstruct]:
    """Every construct of ``task`` that :func:`check_program` refuses, in source order."""
    checker = _Checker(task)
    out = [*checker.directives(), *checker.definitions(), *checker.reachable_bodies()]
    out.sort(key=_order)
    return out


def query_roots(task: Task) -> list[Indicator]:
    """The predicates with rules that ilpkit's queries (or its Prolog server) may call
    directly: mode, determination, target and example predicates, Aleph's hooks, and the
    names the server calls.  An in-process engine proves these safe (with all they call)."""
    checker = _Checker(task)
    return sorted(checker.roots & task.program.clauses.keys())


class _Checker:
    """Walks a task's directives, definitions and the clauses its queries can reach."""

    def __init__(self, task: Task) -> None:
        self.task = task
        prog = task.program
        modes = {m.indicator for m in (*task.bias.modeh, *task.bias.modeb)}
        self.known = frozenset({*prog.facts, *prog.clauses, *prog.dynamic, *modes})
        """What the program itself provides (callable without being a built-in)."""
        roots = {*modes, *ROOTS, *server_calls()}
        for target, body in task.bias.determinations:
            roots.update((target, body))
        roots.update({indicator(a) for a in task.examples.atoms})
        self.roots = roots
        """What ilpkit's queries call: mode, determination, target and example predicates."""

    # -- directives -----------------------------------------------------------------------------
    def directives(self) -> Iterator[UnsafeConstruct]:
        """Uninterpreted directives that would do something if an engine ran them.

        No engine runs them without ``trust_data``, so one that can only fail is let through:
        a directive calling a predicate nobody defines (UW-CSE's ``:- load_bg.``) would just
        raise an existence error.
        """
        for d in self.task.directives:
            term = d.term
            goal = term.args[0] if type(term) is Struct and len(term.args) == 1 else term
            prefix = term.name if type(term) is Struct else ":-"
            problems = self._closure([goal], undefined_ok=True)
            first = next(problems, None)
            if first is None:
                continue
            what, why, _ = first
            yield UnsafeConstruct(
                d.location,
                f"the directive {prefix} {_short(goal)}",
                f"a Prolog engine would run it, and it makes {what}, which {why}",
            )

    # -- definitions ----------------------------------------------------------------------------
    def definitions(self) -> Iterator[UnsafeConstruct]:
        """Predicates the program must not define, declare, target or use in a mode."""
        task, prog = self.task, self.task.program
        places: list[tuple[Indicator, SourceLocation | None, str]] = []
        for key, clauses in prog.clauses.items():
            places.append((key, clauses[0].location if clauses else None, "a definition of"))
        places.extend((key, None, "facts of") for key in prog.facts)  # located if refused
        if ("-->", 2) in prog.facts or ("-->", 2) in prog.clauses:
            loc = prog.clauses[("-->", 2)][0].location if ("-->", 2) in prog.clauses else None
            places = [p for p in places if p[0] != ("-->", 2)]
            places.append((("-->", 2), loc, "grammar rules"))
        for key in sorted(prog.dynamic | prog.declared.keys()):
            kind, where = prog.declared.get(key, ("dynamic", None))
            places.append((key, where, f"a {kind} declaration of"))
        for mode in (*task.bias.modeh, *task.bias.modeb):
            places.append((mode.indicator, mode.location, f"a {mode.kind} declaration of"))
        if task.target is not None:
            places.append((task.target, None, "the target predicate"))
        seen: set[tuple[Indicator, str]] = set()
        for key, loc, what in places:
            defined = key in prog.clauses or key in prog.facts or what == "the target predicate"
            why = _definition_problem(key, defined)
            if why is None or (key, what) in seen:
                continue
            seen.add((key, what))
            if what == "facts of":  # the data files are read for a refused name only
                loc = fact_location(task, key)
            yield UnsafeConstruct(loc, f"{what} {_pi(key)}", why)

    # -- bodies ---------------------------------------------------------------------------------
    def reachable_bodies(self) -> Iterator[UnsafeConstruct]:
        """Unsafe goals in the clauses ilpkit's queries can reach.

        Variable meta-calls are refused, so the static call graph holds every call a query
        can make: a clause outside it (UW-CSE's ``load_bg/1``, which consults files) never
        runs.
        """
        clauses = self.task.program.clauses
        todo = sorted(self.roots & set(clauses))
        seen = set(todo)
        while todo:
            key = todo.pop()
            known = self.known | HOOK_PROVIDED.get(key, frozenset())
            for sc in clauses[key]:
                callees: set[Indicator] = set()
                for what, why in _goal_problems(sc.clause.body, known, callees, False):
                    yield UnsafeConstruct(sc.location, f"{what} in {_pi(key)}", f"it {why}")
                for callee in sorted((callees & clauses.keys()) - seen):
                    seen.add(callee)
                    todo.append(callee)

    def _closure(
        self, goals: list[Term], *, undefined_ok: bool
    ) -> Iterator[tuple[str, str, SourceLocation | None]]:
        """Problems of ``goals`` and of every program clause they reach."""
        clauses = self.task.program.clauses
        callees: set[Indicator] = set()
        for what, why in _goal_problems(goals, self.known, callees, undefined_ok):
            yield what, why, None
        todo = sorted(callees & clauses.keys())
        seen = set(todo)
        while todo:
            key = todo.pop()
            for sc in clauses[key]:
                more: set[Indicator] = set()
                for what, why in _goal_problems(sc.clause.body, self.known, more, undefined_ok):
                    yield f"{what} (in {_pi(key)}, {sc.location})", why, sc.location
                for callee in sorted((more & clauses.keys()) - seen):
                    seen.add(callee)
                    todo.append(callee)


def _definition_problem(key: Indicator, defined: bool = True) -> str | None:
    """Why the program may not define, declare or name ``key`` (None: it may); ``defined``:
    the program gives it clauses or facts (a declaration or mode alone leaves an engine's
    library predicate of that name in charge)."""
    if key == ("-->", 2):
        return "grammar rules are translated by the Prolog engine and ilpkit cannot check them"
    if key == (":", 2):
        return "a module-qualified clause can add to any module, including the engine's own"
    if key in HOOKS:
        return "Prolog engines call this hook by themselves, while loading or printing"
    if key in UNSAFE_BUILTINS:
        return (
            f"it is a built-in that {UNSAFE_BUILTINS[key]}; an engine that keeps its own "
            "definition would run it"
        )
    if key in ALLOWED_BUILTINS:
        return None
    if key in server_calls():
        return (
            "ilpkit's Prolog server calls a predicate of that name itself, and would run the "
            "program's definition; rename the predicate"
        )
    kinds = {(stem.split("-", 1)[0], kind) for stem, kind in owners(key)}
    owner = why_reserved(key)
    if owner is None:
        return None
    if any(kind == "hook" for _, kind in kinds):
        return f"it is {owner}; rename the predicate"
    if ("swi", "system") in kinds or not defined:
        # SWI-Prolog keeps its system predicates; a declaration or mode alone leaves any
        # engine's own predicate of that name to answer the calls
        return (
            f"it is {owner}, and the engine would run its own predicate instead of the "
            "program's; rename the predicate"
        )
    return None  # a library or GNU Prolog name the program defines: its clauses answer


def fact_location(task: Task, key: Indicator) -> SourceLocation | None:
    """Where the first fact of ``key`` is in the data files (facts are kept without
    locations; read only when one is refused)."""
    start = re.compile(rf"\s*{re.escape(to_prolog(Const(key[0])))}\s*[(.]")
    for source in task.sources:
        try:
            with open(source, encoding="utf-8", errors="replace") as handle:
                for number, line in enumerate(handle, 1):
                    if start.match(line):
                        return SourceLocation(source, number, 1)
        except OSError:
            continue
    return None


def _goal_problems(
    body: Iterable[Term],
    known: frozenset[Indicator],
    callees: set[Indicator],
    undefined_ok: bool,
) -> Iterator[tuple[str, str]]:
    """``(what, why)``, ``why`` a verb phrase, for each unsafe goal of ``body`` (meta-arguments
    included); the program predicates it calls are added to ``callees``.  With
    ``undefined_ok``, a call of a predicate neither the program's nor a known built-in passes."""
    stack: list[tuple[Term, int]] = [(g, 0) for g in reversed(tuple(body))]
    while stack:
        goal, extra = stack.pop()
        if type(goal) is Var:
            yield (
                f"a meta-call of the variable {goal.name}"
                + (f" with {extra} more argument{'s' if extra > 1 else ''}" if extra else ""),
                "cannot be checked before it runs, as its goal is built at run time",
            )
            continue
        if type(goal) is Struct:
            name, args = goal.name, goal.args
        elif type(goal) is Const and isinstance(goal.value, str):
            name, args = goal.value, ()
        else:
            continue  # numbers and strings are not callable: an engine raises a type error
        key = (name, len(args) + extra)
        if name == ":" and len(args) == 2:
            problem = _module_problem(args[0], args[1], extra, known)
            if problem is not None:
                yield problem
            elif args[0] == Const("user"):
                stack.append((args[1], extra))
            continue
        if key in known:
            callees.add(key)
            if key not in ALLOWED_BUILTINS:
                continue
        elif key not in ALLOWED_BUILTINS:
            why = UNSAFE_BUILTINS.get(key)
            if why is None and undefined_ok:
                continue
            yield (
                f"a call of {_pi(key)}",
                why
                if why is not None
                else _UNDEFINED
                if why_reserved(key) is None
                else "is neither defined by the program nor a side-effect-free built-in",
            )
            continue
        if key == ("throw", 1):
            if args:
                payload = thrown_payload(args[0])
                if payload is not None:
                    yield (
                        f"a throw/1 of a term holding {payload}",
                        "could run a goal if an engine turned the error into a message",
                    )
            else:
                yield (
                    "a call of throw/1 as a closure",
                    "cannot be checked, as the term it throws is supplied at run time",
                )
            continue
        if name == "call" and extra == 0 and args:
            built = _called_goal(args[0], args[1:])
            if built is not None:  # call(G, A1, ...) is the goal G + A1, ...: check that
                stack.append((built, 0))
                continue
        for i, add in reversed(META_ARGS.get(key, ())):
            if i < len(args):
                stack.append((args[i], add))
            else:
                yield (
                    f"a call of {_pi(key)} as a closure",
                    f"cannot be checked, as its goal argument {i + 1} is supplied at run time",
                )


_FORMAT_CALL: Final = "~@"
"""The format directive that calls a goal (SWI-Prolog, YAP)."""


def thrown_payload(ball: Term) -> str | None:
    """What makes ``ball`` (the term of a ``throw/1``) dangerous to turn into a message: a
    compound naming a built-in a body may not call, or the text ``~@``; None when nothing."""
    stack = [ball]
    while stack:
        t = stack.pop()
        if type(t) is Struct and t.name == "." and len(t.args) == 2:
            text = _list_text(t, stack)  # a list: its elements go on the stack
            if text is not None and _FORMAT_CALL in text:
                return f"the format directive {_FORMAT_CALL} (in {_short(t, 60)})"
        elif type(t) is Struct:
            key = (t.name, len(t.args))
            if key in UNSAFE_BUILTINS or key in HOOKS or _FORMAT_CALL in t.name:
                return f"{_pi(key)} ({_short(t, 60)})"
            stack.extend(t.args)
        elif (
            (type(t) is Const and isinstance(t.value, str)) or type(t) is Str
        ) and _FORMAT_CALL in str(t.value):
            return f"the format directive {_FORMAT_CALL} (in {_short(t, 60)})"
    return None


def _list_text(term: Term, stack: list[Term]) -> str | None:
    """Push the elements and the tail of the list ``term`` on ``stack``; return its text
    when it is a list of character codes or one-character atoms (else None)."""
    chars: list[str] | None = []
    while type(term) is Struct and term.name == "." and len(term.args) == 2:
        head = term.args[0]
        stack.append(head)
        if chars is not None:
            if type(head) is Const and type(head.value) is int and 0 <= head.value <= 0x10FFFF:
                chars.append(chr(head.value))
            elif type(head) is Const and isinstance(head.value, str) and len(head.value) == 1:
                chars.append(head.value)
            else:
                chars = None
        term = term.args[1]
    stack.append(term)
    return None if chars is None else "".join(chars)


def _called_goal(closure: Term, more: tuple[Term, ...]) -> Term | None:
    """The goal ``call(closure, *more)`` runs, when ``closure`` is known (else None)."""
    if type(closure) is Struct:
        if closure.name == ":" and len(closure.args) == 2:
            inner = _called_goal(closure.args[1], more)
            return None if inner is None else Struct(":", (closure.args[0], inner))
        return Struct(closure.name, (*closure.args, *more)) if more else closure
    if type(closure) is Const and isinstance(closure.value, str):
        return Struct(closure.value, more) if more else closure
    return None


def _module_problem(
    module: Term, goal: Term, extra: int, known: frozenset[Indicator]
) -> tuple[str, str] | None:
    """Why ``module:goal`` is refused, or None (a ``user:`` goal is then checked as a goal)."""
    if module == Const("user"):
        return None
    if type(goal) is Struct:
        key: Indicator | None = (goal.name, len(goal.args) + extra)
    elif type(goal) is Const and isinstance(goal.value, str):
        key = (goal.value, extra)
    else:
        key = None
    if (
        type(module) is Const
        and isinstance(module.value, str)
        and key is not None
        and key in ALLOWED_BUILTINS
        and key not in META_ARGS
        and key not in ALEPH_LIBRARY  # ilpkit defines these in the program's module only
        and key not in known
    ):
        return None
    return (
        f"the module-qualified goal {_short(Struct(':', (module, goal)))}",
        "may reach any module's predicates (outside module user, only side-effect-free "
        "built-ins are allowed)",
    )


# -- helpers --------------------------------------------------------------------------------------


def _pi(key: Indicator) -> str:
    return f"{to_prolog(Const(key[0]))}/{key[1]}"


def _short(term: Term, limit: int = 120) -> str:
    text = to_prolog(term)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _order(u: UnsafeConstruct) -> tuple[int, str, int, int]:
    loc = u.location
    if loc is None:
        return (1, "", 0, 0)
    return (0, loc.file, loc.line, loc.col)
