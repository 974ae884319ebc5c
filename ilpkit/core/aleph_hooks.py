"""Aleph's hooks in the background: ``prune/1``, ``false/0``, ``cost/3``, ``refine/2``.

Aleph calls these user predicates when the background defines them (Aleph manual, "Pruning",
"Constraints", "User-defined cost" and "User-defined refinement"); data written for Aleph
relies on them, so ilpkit either honours one or refuses the run -- never ignores it silently
(issue 33):

* ``prune((Head:-Body))`` succeeds: the clause and all its refinements leave the search (the
  clause is counted as made but not evaluated, is not acceptable and is not refined).
* ``false`` succeeds while ``hypothesis(Head, Body, Label)`` gives the clause under test
  (``Label`` is ``[P, N, L]``: the positives and negatives it covers among the examples the
  search counts, and its length): the clause is not acceptable, but is still refined.
* ``cost(Clause, Label, Cost)`` is Aleph's evaluation only with ``evalfn=user``, and
  ``refine(Clause, NewClause)`` its operator only with ``set(refine, user)``; ilpkit has
  neither, so data that asks for them is refused, and otherwise they change nothing in Aleph
  either (said once).

:class:`HookGate` answers the first two through the backend's ``answers``, the call
saturation makes, so every engine gives the same answer: ``prune`` is asked as the goal
``prune((H:-B))``; ``false`` as the disjunction of its clauses' bodies with each call of
``hypothesis/3`` replaced by a unification with the clause under test (the clauses of
``false/0`` are not given to the engines, whose ``false/0`` is a built-in).  A search honours
them through :class:`~ilpkit.core.search.SearchContext` (its ``hooks``); which learners and
searches do is their own declaration (``LearnerCapabilities.aleph_hooks``, a search's
``honours_aleph_hooks``).  ``data.aleph_hooks=ignore`` runs without them
(:func:`without_hooks`), as if the data did not define them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from ilpkit.core.coverage import Counts
from ilpkit.core.task import Indicator, Program, Task
from ilpkit.errors import DataError, SourceLocation
from ilpkit.prolog.terms import (
    Clause,
    Const,
    Struct,
    Term,
    Var,
    conjunction,
    iter_vars,
    make_list,
    substitute,
    to_prolog,
)

PRUNE: Final = ("prune", 1)
FALSE: Final = ("false", 0)
COST: Final = ("cost", 3)
REFINE: Final = ("refine", 2)

HOOKS: Final[dict[Indicator, str]] = {
    PRUNE: "Aleph prunes a clause and its refinements from the search with it",
    FALSE: "Aleph's integrity constraints: a clause for which false/0 succeeds is not acceptable",
    COST: "Aleph's user cost of a clause (with evalfn=user)",
    REFINE: "Aleph's user refinement operator (with set(refine, user))",
}
"""Aleph's hooks, with what Aleph does with each."""

SEARCH_HOOKS: Final = frozenset({PRUNE, FALSE})
"""The hooks a clause search can honour (:class:`HookGate`)."""

_META_GOALS: Final[dict[Indicator, tuple[int, ...]]] = {
    (",", 2): (0, 1),
    (";", 2): (0, 1),
    ("->", 2): (0, 1),
    ("*->", 2): (0, 1),
    ("\\+", 1): (0,),
    ("not", 1): (0,),
    ("call", 1): (0,),
    ("once", 1): (0,),
    ("ignore", 1): (0,),
    ("forall", 2): (0, 1),
    ("findall", 3): (1,),
    ("findall", 4): (1,),
    ("aggregate_all", 3): (1,),
}
"""Control constructs and meta-predicates whose goal arguments are searched for calls of
``hypothesis/3`` (argument positions)."""


def pi(key: Indicator) -> str:
    return f"{key[0]}/{key[1]}"


@dataclass(frozen=True)
class HookDefinition:
    """A hook the data defines: where (its first clause), and whether Aleph would call it
    with the data's settings (``cost/3`` only with ``evalfn=user``, ``refine/2`` only with
    ``set(refine, user)``)."""

    key: Indicator
    location: SourceLocation | None
    called: bool
    why_not: str = ""

    def place(self) -> str:
        return f"{pi(self.key)} ({self.location})" if self.location else pi(self.key)


def defined_hooks(
    task: Task, unused: Mapping[Indicator, str] | None = None
) -> list[HookDefinition]:
    """The hooks ``task``'s background defines, in the order of :data:`HOOKS`; ``unused``:
    hooks the run does not call whatever the data says, with why (the run's scorer stands
    in for ``evalfn=user``)."""
    from ilpkit.core.safety import fact_location

    program = task.program
    settings = task.bias.settings.explicit
    out = []
    for key in HOOKS:
        if key in program.clauses:
            where = program.clauses[key][0].location
        elif key in program.facts:
            where = fact_location(task, key)
        else:
            continue
        called, why_not = True, ""
        if key == COST and str(settings.get("evalfn", "")) != "user":
            called, why_not = False, "Aleph calls it only with evalfn=user"
        if key == REFINE and str(settings.get("refine", "")) != "user":
            called, why_not = False, "Aleph calls it only with set(refine, user)"
        if called and unused and key in unused:
            called, why_not = False, unused[key]
        out.append(HookDefinition(key, where, called, why_not))
    return out


def without_hooks(task: Task) -> Task:
    """``task`` without Aleph's hooks (``data.aleph_hooks=ignore``): a copy whose program
    lacks the four predicates; the caller's task is kept."""
    program = task.program
    if not any(k in program.clauses or k in program.facts for k in HOOKS):
        return task
    lean = replace(
        program,
        facts={k: v for k, v in program.facts.items() if k not in HOOKS},
        clauses={k: v for k, v in program.clauses.items() if k not in HOOKS},
    )
    return replace(task, program=lean)


def summary(
    task: Task,
    honoured: Iterable[Indicator] | None = None,
    who: str = "",
    ignored: bool = False,
    unused: Mapping[Indicator, str] | None = None,
    honourers: str = "",
) -> str | None:
    """One line saying what happens to the hooks ``task`` defines, or None.

    ``honoured``: the hooks the run honours (None: ``ilpkit data check``, no run: which
    learners honour them is said instead); ``who`` names the run's learner and search;
    ``ignored``: ``data.aleph_hooks=ignore``; ``unused``: as for :func:`defined_hooks`;
    ``honourers``: the learners and searches that honour them (for ``data check``)."""
    found = defined_hooks(task, unused)
    if not found:
        return None
    if ignored:
        names = ", ".join(h.place() for h in found)
        return f"Aleph hooks ignored (data.aleph_hooks=ignore): {names}"
    parts = []
    called = [h for h in found if h.called]
    if honoured is None:  # data check: no run yet
        searched = " and ".join(h.place() for h in called if h.key in SEARCH_HOOKS)
        if searched:
            parts.append(
                f"{searched}: honoured by {honourers or 'the learners that declare it'}, "
                "other runs refused unless data.aleph_hooks=ignore"
            )
        parts.extend(
            f"{h.place()}: refused (ilpkit does not run it) unless data.aleph_hooks=ignore"
            for h in called
            if h.key not in SEARCH_HOOKS
        )
    else:
        keep = set(honoured)
        names = " and ".join(h.place() for h in called if h.key in keep)
        if names:
            parts.append(f"{names} honoured{f' by {who}' if who else ''}")
    parts.extend(f"{h.place()} not used ({h.why_not})" for h in found if not h.called)
    if not parts:
        return None
    return "Aleph hooks in the data: " + "; ".join(parts)


def refusal(
    task: Task,
    honoured: Iterable[Indicator],
    who: str,
    unused: Mapping[Indicator, str] | None = None,
    honourers: str = "",
) -> str | None:
    """The message refusing a run that does not honour a hook Aleph would call, or None
    (``honourers``: the learners and searches that would)."""
    keep = set(honoured)
    lines = []
    for h in defined_hooks(task, unused):
        if not h.called or h.key in keep:
            continue
        where = f"{h.location}: " if h.location else f"{task.name}: "
        if h.key in SEARCH_HOOKS:
            lines.append(
                f"{where}{pi(h.key)}: {HOOKS[h.key]}, and {who} does not honour it"
                + (f" ({honourers} does)" if honourers else "")
            )
        else:
            lines.append(f"{where}{pi(h.key)}: {HOOKS[h.key]}, which ilpkit does not run")
    if not lines:
        return None
    return "\n".join(
        [
            *lines,
            "pass --set data.aleph_hooks=ignore to learn as if the data did not define them "
            "(docs/aleph-compatibility.md), or remove them from the data",
        ]
    )


class HookGate:
    """Answers ``prune/1`` and ``false/0`` for clauses of a search, through ``backend``.

    Answers are memoised per clause (variant) and, for ``false``, per label."""

    _MEMO_LIMIT: Final = 100_000

    def __init__(self, backend: Any, task: Task) -> None:
        self.backend = backend
        program = task.program
        self.prunes = PRUNE in program.clauses or PRUNE in program.facts
        self.constraints = _constraint_bodies(program)
        self._pruned: dict[Clause, bool] = {}
        self._violated: dict[tuple[Clause, tuple[float, float, int]], bool] = {}

    @classmethod
    def of(cls, backend: Any, task: Task) -> HookGate | None:
        """A gate for ``task``'s ``prune/1`` and ``false/0``; None when it defines neither."""
        gate = cls(backend, task)
        return gate if gate.prunes or gate.constraints else None

    def pruned(self, clause: Clause) -> bool:
        """Whether ``prune((Head:-Body))`` succeeds for ``clause``."""
        if not self.prunes:
            return False
        key = clause.canonical()
        known = self._pruned.get(key)
        if known is None:
            goal = Struct("prune", (_clause_term(key),))
            known = bool(self.backend.answers(goal, 1))
            if len(self._pruned) >= self._MEMO_LIMIT:
                self._pruned.clear()
            self._pruned[key] = known
        return known

    def violated(self, clause: Clause, counts: Counts, length: int) -> bool:
        """Whether ``false`` succeeds with ``clause`` as the hypothesis, labelled
        ``[P, N, length]`` from ``counts``."""
        if not self.constraints:
            return False
        key = clause.canonical()
        label = (counts.tp, counts.fp, length)
        known = self._violated.get((key, label))
        if known is None:
            hyp = _hypothesis(key, label, self.constraints.taken)
            goal = self.constraints.goal(hyp)
            known = bool(self.backend.answers(goal, 1))
            if len(self._violated) >= self._MEMO_LIMIT:
                self._violated.clear()
            self._violated[(key, label)] = known
        return known


def _clause_term(clause: Clause) -> Term:
    """``(Head:-Body)`` as Aleph passes a clause to its hooks (``true`` for no body)."""
    return Struct(":-", (clause.head, conjunction(clause.body)))


def _number(x: float) -> Term:
    return Const(int(x)) if float(x).is_integer() else Const(float(x))


def _hypothesis(clause: Clause, label: tuple[float, float, int], taken: set[str]) -> Term:
    """``hypothesis(Head, Body, [P, N, L])`` of ``clause``, its variables renamed apart from
    the names in ``taken`` (the constraints' own)."""
    head_body = _clause_term(clause)
    names: dict[Var, Term] = {}
    for v in iter_vars(head_body):
        if v not in names:
            name = f"_Hyp{len(names)}"
            while name in taken:
                name = "_" + name
            names[v] = Var(name)
    renamed = substitute(head_body, names)
    assert type(renamed) is Struct
    p, n, length = label
    return Struct("hypothesis", (*renamed.args, make_list([_number(p), _number(n), Const(length)])))


@dataclass(frozen=True)
class _Constraints:
    """The bodies of ``false/0``'s clauses, each call of ``hypothesis/3`` a placeholder."""

    bodies: tuple[Term, ...]
    taken: set[str]

    def __bool__(self) -> bool:
        return bool(self.bodies)

    def goal(self, hypothesis: Term) -> Term:
        """One goal that succeeds iff ``false`` does with ``hypothesis``: the bodies as a
        disjunction inside ``call/1`` (a cut in a body then cuts the later clauses, as
        the clause's cut would)."""
        bodies = [_fill(b, hypothesis) for b in self.bodies]
        disjunction = bodies[-1]
        for b in reversed(bodies[:-1]):
            disjunction = Struct(";", (b, disjunction))
        return Struct("call", (disjunction,))


_HOLE: Final = "$ilpkit_hypothesis"


def _constraint_bodies(program: Program) -> _Constraints:
    clauses: list[tuple[Term, SourceLocation | None]] = []
    if FALSE in program.facts:
        clauses.append((Const("true"), None))
    for sc in program.clauses.get(FALSE, []):
        clauses.append((conjunction(sc.clause.body), sc.location))
    taken: set[str] = set()
    bodies = []
    for body, where in clauses:
        taken.update(v.name for v in iter_vars(body))
        marked = _mark(body)
        if _calls_hypothesis(marked):
            raise DataError(
                f"{where or 'false/0'}: hypothesis/3 is answered in false/0's clauses only as "
                f"a goal (of the body, or of a control construct in it); move the call in "
                f"{to_prolog(body)}"
            )
        bodies.append(Struct(",", (Const("true"), marked)))  # never read as if-then-else
    return _Constraints(tuple(bodies), taken)


def _mark(goal: Term) -> Term:
    """``goal`` with each call of ``hypothesis/3`` in a goal position a placeholder."""
    if type(goal) is not Struct:
        return goal
    if goal.name == "hypothesis" and len(goal.args) == 3:
        return Struct(_HOLE, goal.args)
    places = _META_GOALS.get((goal.name, len(goal.args)))
    if not places:
        return goal
    return Struct(goal.name, tuple(_mark(a) if i in places else a for i, a in enumerate(goal.args)))


def _calls_hypothesis(term: Term) -> bool:
    """Whether ``hypothesis/3`` is left anywhere in ``term`` (not in a goal position)."""
    stack = [term]
    while stack:
        t = stack.pop()
        if type(t) is Struct:
            if t.name == "hypothesis" and len(t.args) == 3:
                return True
            stack.extend(t.args)
    return False


def _fill(goal: Term, hypothesis: Term) -> Term:
    """``goal`` with each placeholder the unification ``hypothesis(H, B, L) = hypothesis``."""
    if type(goal) is not Struct:
        return goal
    if goal.name == _HOLE:
        return Struct("=", (Struct("hypothesis", goal.args), hypothesis))
    if (goal.name, len(goal.args)) not in _META_GOALS:
        return goal
    return Struct(goal.name, tuple(_fill(a, hypothesis) for a in goal.args))
