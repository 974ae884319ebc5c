"""Reference implementations the native engine and saturation are checked against.

Deliberately simple and written from the definitions, sharing no code with ilpkit's engines
(only the term *data* classes of :mod:`ilpkit.prolog.terms`):

* :class:`FactDB` / :func:`covers` -- a depth-first backtracking prover for Datalog with ground
  facts plus the built-ins ``< > =< >= =:= =\\=`` (numbers only) and ``= \\=``.  Body literals
  are proved left to right, facts tried in their (Prolog) order; unification is written here.
* :func:`saturate_reference` -- the bottom clause of a seed, re-derived from the algorithm as
  the docstring of ``ilpkit/core/bottom.py`` states it (layers, mode order, input combinations
  in reached order, first ``recall`` answers, duplicates skipped, same term -> same variable).
* :func:`swipl_coverage` -- the covered sets computed by SWI-Prolog itself (``\\+ \\+ (Head =
  Example, Body)`` for every clause and example), for data with rules.
* helpers to build small tasks by hand (:func:`make_task`) or at random (:func:`random_task`),
  and to load the bundled data sets (:func:`load_bundled`).

This is a helper module for the tests, not a test file.
"""

from __future__ import annotations

import importlib
import os
import random
import shutil
import subprocess
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ilpkit.core.bias import Bias, parse_mode
from ilpkit.core.task import NEG, POS, ExampleBuilder, Program, Task
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import Clause, Const, Struct, Term, Var, clause_to_prolog, to_prolog

Subst = dict[Var, Term]
Facts = Mapping[tuple[str, int], Sequence[tuple[Term, ...]]]


class PrologError(Exception):
    """A goal Prolog would raise an error for (e.g. comparing an unbound variable)."""


# --------------------------------------------------------------------------------------------
# Unification (from scratch)
# --------------------------------------------------------------------------------------------


def walk(t: Term, s: Subst) -> Term:
    """Follow variable bindings until a non-variable or an unbound variable."""
    while type(t) is Var and t in s:
        t = s[t]
    return t


def resolve(t: Term, s: Subst) -> Term:
    """``t`` with every bound variable replaced, all the way down."""
    t = walk(t, s)
    if type(t) is Struct:
        return Struct(t.name, tuple(resolve(a, s) for a in t.args))
    return t


def unify(a: Term, b: Term, s: Subst) -> Subst | None:
    """The most general extension of ``s`` unifying ``a`` and ``b`` (no occurs check, like
    Prolog), or None.  ``s`` itself is never modified."""
    out = s
    copied = False
    pairs = [(a, b)]
    while pairs:
        x, y = pairs.pop()
        x = walk(x, out)
        y = walk(y, out)
        if type(x) is Var or type(y) is Var:
            if x == y:
                continue
            if not copied:
                out = dict(out)
                copied = True
            if type(x) is Var:
                out[x] = y
            else:
                out[y] = x  # type: ignore[index]
            continue
        if type(x) is Struct and type(y) is Struct:
            if x.name != y.name or len(x.args) != len(y.args):
                return None
            pairs.extend(zip(x.args, y.args, strict=True))
            continue
        # constants and strings: Const(1) and Const(1.0) are different terms, as in Prolog
        if type(x) is not type(y) or x != y:
            return None
    return out


def _vars(t: Term) -> Iterator[Var]:
    if type(t) is Var:
        yield t
    elif type(t) is Struct:
        for a in t.args:
            yield from _vars(a)


def _is_ground(t: Term) -> bool:
    if type(t) is Var:
        return False
    if type(t) is Struct:
        return all(_is_ground(a) for a in t.args)
    return True


# --------------------------------------------------------------------------------------------
# The prover
# --------------------------------------------------------------------------------------------

_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<": lambda x, y: x < y,
    ">": lambda x, y: x > y,
    "=<": lambda x, y: x <= y,
    ">=": lambda x, y: x >= y,
    "=:=": lambda x, y: x == y,
    "=\\=": lambda x, y: x != y,
}
BUILTIN_NAMES = frozenset({*_COMPARE, "=", "\\="})


def _number(t: Term) -> int | float:
    if type(t) is Var:
        raise PrologError("instantiation error in a comparison")
    if type(t) is Const and isinstance(t.value, (int, float)):
        return t.value
    raise PrologError(f"type error: {to_prolog(t)} is not a number")


class FactDB:
    """Ground facts per predicate, with a lazily built index per (predicate, argument)."""

    def __init__(self, facts: Facts):
        self.facts = {key: [tuple(row) for row in rows] for key, rows in facts.items()}
        self._index: dict[tuple[tuple[str, int], int], dict[Term, list[int]]] = {}

    def _rows_with(self, key: tuple[str, int], pos: int, value: Term) -> list[int]:
        index = self._index.get((key, pos))
        if index is None:
            index = {}
            for r, row in enumerate(self.facts[key]):
                index.setdefault(row[pos], []).append(r)
            self._index[(key, pos)] = index
        return index.get(value, [])

    def _call(self, goal: Term, s: Subst) -> Iterator[Subst]:
        """The solutions of one goal (already walked), in Prolog order."""
        if type(goal) is Const and isinstance(goal.value, str):
            if goal.value == "true":
                yield s
                return
            name, args = goal.value, ()
        elif type(goal) is Struct:
            name, args = goal.name, goal.args
        else:
            raise PrologError(f"not callable: {to_prolog(goal)}")
        if len(args) == 2 and name in _COMPARE:
            x = _number(walk(args[0], s))
            y = _number(walk(args[1], s))
            if _COMPARE[name](x, y):
                yield s
            return
        if len(args) == 2 and name == "=":
            s2 = unify(args[0], args[1], s)
            if s2 is not None:
                yield s2
            return
        if len(args) == 2 and name == "\\=":
            if unify(args[0], args[1], s) is None:
                yield s
            return
        key = (name, len(args))
        rows = self.facts.get(key)
        if rows is None:  # undefined predicates fail (as if declared dynamic)
            return
        # the rows to try: all of them, or (same order) those holding a bound argument's value
        candidates: Sequence[int] = range(len(rows))
        for pos, a in enumerate(args):
            value = resolve(a, s)
            if _is_ground(value):
                found = self._rows_with(key, pos, value)
                if len(found) < len(candidates):
                    candidates = found
        for r in candidates:
            s2: Subst | None = s
            for a, v in zip(args, rows[r], strict=True):
                s2 = unify(a, v, s2)  # type: ignore[arg-type]
                if s2 is None:
                    break
            if s2 is not None:
                yield s2

    def solve(self, goals: Sequence[Term], s: Subst | None = None) -> Iterator[Subst]:
        """Every solution of the conjunction ``goals``, depth first, left to right."""

        def go(i: int, s: Subst) -> Iterator[Subst]:
            if i == len(goals):
                yield s
                return
            for s2 in self._call(walk(goals[i], s), s):
                yield from go(i + 1, s2)

        return go(0, {} if s is None else s)

    # -- coverage ---------------------------------------------------------------------------
    def covers(self, clause: Clause, example: Term) -> bool:
        """``clause`` covers ``example``: the head unifies and the body then has a solution."""
        s = unify(clause.head, example, {})
        if s is None:
            return False
        return next(self.solve(clause.body, s), None) is not None

    def coverage(self, clause: Clause, examples: Sequence[Term]) -> set[int]:
        """Ids of the covered ``examples``: the same search as :meth:`covers`, remembering,
        for each body position ``i``, whether the rest of the body ``body[i:]`` has a
        solution given the values of the variables that occur in it (nothing else can
        matter, as every binding is ground)."""
        body = clause.body
        later = [
            tuple(dict.fromkeys(v for g in body[i:] for v in _vars(g))) for i in range(len(body))
        ]
        memo: dict[tuple[int, tuple[Term, ...]], bool] = {}

        def provable(i: int, s: Subst) -> bool:
            if i == len(body):
                return True
            key = (i, tuple(walk(v, s) for v in later[i]))
            known = memo.get(key)
            if known is None:
                known = memo[key] = any(
                    provable(i + 1, s2) for s2 in self._call(walk(body[i], s), s)
                )
            return known

        out = set()
        for n, e in enumerate(examples):
            s = unify(clause.head, e, {})
            if s is not None and provable(0, s):
                out.add(n)
        return out

    def coverage_naive(self, clause: Clause, examples: Sequence[Term]) -> set[int]:
        return {i for i, e in enumerate(examples) if self.covers(clause, e)}

    # -- saturation oracle ------------------------------------------------------------------
    def answers(self, goal: Term, max_answers: int | None) -> list[Term]:
        """Ground instances of ``goal``, one per solution, Prolog order (the Oracle protocol)."""
        out: list[Term] = []
        if max_answers is not None and max_answers <= 0:
            return out
        for s in self.solve((goal,)):
            out.append(resolve(goal, s))
            if max_answers is not None and len(out) >= max_answers:
                break
        return out


class NotFlat(Exception):
    """A clause with a compound argument that holds variables (use :class:`FactDB`)."""


class FlatDB:
    """The same prover as :class:`FactDB` for flat clauses (arguments are variables or
    ground terms), compiled to integers: ground terms become ids, variables become slots of
    an environment list.  Used for bulk coverage on the bundled data sets, where
    :class:`FactDB`'s term-level unification is too slow for thousands of examples; the two
    are checked against each other on random data."""

    def __init__(self, facts: Facts):
        self.ids: dict[Term, int] = {}
        self.values: list[Term] = []
        self.rows = {
            key: [tuple(self.intern(a) for a in row) for row in rows] for key, rows in facts.items()
        }
        self._index: dict[tuple[tuple[str, int], int], dict[int, list[tuple[int, ...]]]] = {}
        self._examples: tuple[object, list[tuple[tuple[str, int], tuple[int, ...]]]] | None = None

    def intern(self, t: Term) -> int:
        i = self.ids.get(t)
        if i is None:
            i = self.ids[t] = len(self.values)
            self.values.append(t)
        return i

    def _rows_with(self, key: tuple[str, int], pos: int, value: int) -> list[tuple[int, ...]]:
        index = self._index.get((key, pos))
        if index is None:
            index = {}
            for row in self.rows[key]:
                index.setdefault(row[pos], []).append(row)
            self._index[(key, pos)] = index
        return index.get(value, [])

    def _example_rows(
        self, examples: Sequence[Term]
    ) -> list[tuple[tuple[str, int], tuple[int, ...]]]:
        cached = self._examples
        if cached is None or cached[0] is not examples:
            rows = []
            for e in examples:
                name, args = _name_args(e)
                rows.append(((name, len(args)), tuple(self.intern(a) for a in args)))
            cached = self._examples = (examples, rows)
        return cached[1]

    def _number(self, i: int | None) -> int | float:
        if i is None:
            raise PrologError("instantiation error in a comparison")
        return _number(self.values[i])

    def coverage(self, clause: Clause, examples: Sequence[Term]) -> set[int]:
        """Ids of the covered ``examples`` (see :meth:`FactDB.coverage`)."""
        slots: dict[Var, int] = {}

        def code(a: Term) -> int:  # >= 0: a ground term's id; < 0: variable slot -1 - code
            if type(a) is Var:
                return -1 - slots.setdefault(a, len(slots))
            if not _is_ground(a):
                raise NotFlat(to_prolog(a))
            return self.intern(a)

        head_name, head_args = _name_args(clause.head)
        head = [code(a) for a in head_args]
        body = []
        for g in clause.body:
            name, args = _name_args(g)
            body.append((name, (name, len(args)), tuple(code(a) for a in args)))
        later = [
            tuple(dict.fromkeys(-1 - a for _, _, args in body[i:] for a in args if a < 0))
            for i in range(len(body))
        ]
        env: list[int | None] = [None] * len(slots)
        memo: dict[tuple[int, tuple[int | None, ...]], bool] = {}

        def value(a: int) -> int | None:
            return a if a >= 0 else env[-1 - a]

        def provable(i: int) -> bool:
            if i == len(body):
                return True
            key = (i, tuple(env[v] for v in later[i]))
            known = memo.get(key)
            if known is None:
                known = memo[key] = solve_literal(i)
            return known

        def solve_literal(i: int) -> bool:
            name, key, args = body[i]
            if len(args) == 2 and name in _COMPARE:
                x, y = (self._number(value(a)) for a in args)
                return _COMPARE[name](x, y) and provable(i + 1)
            if len(args) == 2 and name in ("=", "\\="):
                x, y = (value(a) for a in args)
                if x is None or y is None:
                    if name == "\\=":
                        return False  # a variable unifies with anything
                    if x is None and y is None:
                        raise NotFlat("X = Y with both unbound")
                    slot = -1 - (args[0] if x is None else args[1])
                    env[slot] = y if x is None else x
                    ok = provable(i + 1)
                    env[slot] = None
                    return ok
                return (x == y) == (name == "=") and provable(i + 1)
            rows = self.rows.get(key)
            if rows is None:
                return False
            best: list[tuple[int, ...]] | None = None
            for pos, a in enumerate(args):
                v = value(a)
                if v is not None:
                    found = self._rows_with(key, pos, v)
                    if best is None or len(found) < len(best):
                        best = found
            for row in rows if best is None else best:
                bound: list[int] = []
                ok = True
                for a, x in zip(args, row, strict=True):
                    if a >= 0:
                        if a != x:
                            ok = False
                            break
                    else:
                        cur = env[-1 - a]
                        if cur is None:
                            env[-1 - a] = x
                            bound.append(-1 - a)
                        elif cur != x:
                            ok = False
                            break
                if ok and provable(i + 1):
                    for b in bound:
                        env[b] = None
                    return True
                for b in bound:
                    env[b] = None
            return False

        out = set()
        for n, (key, row) in enumerate(self._example_rows(examples)):
            if key != (head_name, len(head)):
                continue
            ok = True
            for a, x in zip(head, row, strict=True):
                if a >= 0:
                    ok = a == x
                elif env[-1 - a] is None:
                    env[-1 - a] = x
                else:
                    ok = env[-1 - a] == x
                if not ok:
                    break
            if ok and provable(0):
                out.add(n)
            env[:] = [None] * len(slots)
        return out


def _name_args(t: Term) -> tuple[str, tuple[Term, ...]]:
    if type(t) is Struct:
        return t.name, t.args
    if type(t) is Const and isinstance(t.value, str):
        return t.value, ()
    raise PrologError(f"not callable: {to_prolog(t)}")


_DBS: dict[int, tuple[object, FactDB]] = {}


def covers(program_facts: Facts | FactDB, clause: Clause, example_atom: Term) -> bool:
    """Whether ``clause`` covers ``example_atom`` given the ground facts ``program_facts``
    (``Program.facts``: predicate -> argument tuples)."""
    if isinstance(program_facts, FactDB):
        db = program_facts
    else:
        hit = _DBS.get(id(program_facts))
        if hit is None or hit[0] is not program_facts:
            hit = _DBS[id(program_facts)] = (program_facts, FactDB(program_facts))
        db = hit[1]
    return db.covers(clause, example_atom)


# --------------------------------------------------------------------------------------------
# Saturation, from the algorithm's description
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RefPlace:
    path: tuple[int, ...]
    io: str
    type: str


def places_of(template: Term) -> list[RefPlace]:
    """The ``+t``/``-t``/``#t`` places of a mode template, depth first, left to right."""
    out: list[RefPlace] = []

    def go(t: Term, path: tuple[int, ...]) -> None:
        if type(t) is not Struct:
            return
        if path and t.name in ("+", "-", "#") and len(t.args) == 1 and type(t.args[0]) is Const:
            out.append(RefPlace(path, t.name, str(t.args[0].value)))
            return
        for i, a in enumerate(t.args):
            go(a, (*path, i))

    go(template, ())
    return out


def _at(t: Term, path: tuple[int, ...]) -> Term:
    for i in path:
        assert type(t) is Struct
        t = t.args[i]
    return t


def _replace(t: Term, subst: dict[tuple[int, ...], Term], path: tuple[int, ...] = ()) -> Term:
    if path in subst:
        return subst[path]
    if type(t) is Struct:
        return Struct(t.name, tuple(_replace(a, subst, (*path, i)) for i, a in enumerate(t.args)))
    return t


@dataclass(frozen=True)
class RefLiteral:
    term: Term  # variabilised
    ground: Term
    mode: int  # index among the allowed body modes
    depth: int


@dataclass(frozen=True)
class RefBottom:
    head: Term
    literals: list[RefLiteral]
    head_inputs: frozenset[str]  # variable names

    def clause(self) -> Clause:
        return Clause(self.head, [lit.term for lit in self.literals])


def _indicator(t: Term) -> tuple[str, int]:
    if type(t) is Struct:
        return (t.name, len(t.args))
    assert type(t) is Const
    return (str(t.value), 0)


def saturate_reference(
    seed: Term,
    modeh: Sequence[tuple[int | None, Term]],
    modeb: Sequence[tuple[int | None, Term]],
    determinations: Sequence[tuple[tuple[str, int], tuple[str, int]]],
    depth: int,
    answers: Callable[[Term, int | None], list[Term]],
) -> RefBottom:
    """The bottom clause of ``seed``; modes are ``(recall or None, template)`` pairs."""
    target = _indicator(seed)
    head_template = next(t for _, t in modeh if _indicator(t) == target)
    allowed = {b for h, b in determinations if h == target}
    body = [(r, t) for r, t in modeb if not allowed or _indicator(t) in allowed]

    reached: dict[str, list[tuple[Term, int]]] = {}  # type -> [(term, depth)] in reached order

    def reach(term: Term, typ: str, d: int) -> None:
        entries = reached.setdefault(typ, [])
        if all(term != t for t, _ in entries):
            entries.append((term, d))

    head_places = places_of(head_template)
    for p in head_places:
        if p.io == "+":
            reach(_at(seed, p.path), p.type, 0)

    produced: list[tuple[Term, int, int]] = []  # (ground literal, mode index, layer)
    tried: set[tuple[int, tuple[Term, ...]]] = set()
    for layer in range(1, depth + 1):
        for mi, (recall, template) in enumerate(body):
            places = places_of(template)
            ins = [p for p in places if p.io == "+"]
            pools = [[t for t, d in reached.get(p.type, []) if d < layer] for p in ins]

            def combos(k: int, pools: list[list[Term]] = pools) -> Iterator[tuple[Term, ...]]:
                if k == len(pools):
                    yield ()
                    return
                for t in pools[k]:
                    for rest in combos(k + 1):
                        yield (t, *rest)

            for combo in list(combos(0)):
                if (mi, combo) in tried:
                    continue
                tried.add((mi, combo))
                fill: dict[tuple[int, ...], Term] = {
                    p.path: v for p, v in zip(ins, combo, strict=True)
                }
                for n, p in enumerate(q for q in places if q.io != "+"):
                    fill[p.path] = Var(f"_Free{n}")
                goal = _replace(template, fill)
                for ans in answers(goal, recall):
                    if any(ans == g for g, _, _ in produced):
                        continue
                    produced.append((ans, mi, layer))
                    for p in places:
                        if p.io == "-":
                            reach(_at(ans, p.path), p.type, layer)

    # variabilise: one variable per distinct term at +/- places, numbered head first
    names: dict[Term, Var] = {}

    def var(t: Term) -> Var:
        if t not in names:
            names[t] = Var(f"V{len(names)}")
        return names[t]

    def variabilise(template: Term, atom: Term) -> Term:
        fill = {p.path: var(_at(atom, p.path)) for p in places_of(template) if p.io != "#"}
        return _replace(atom, fill)

    head = variabilise(head_template, seed)
    head_inputs = frozenset(var(_at(seed, p.path)).name for p in head_places if p.io == "+")
    literals = [RefLiteral(variabilise(body[mi][1], g), g, mi, layer) for g, mi, layer in produced]
    return RefBottom(head, literals, head_inputs)


def reference_bottom_for(task: Task, seed: Term, depth: int, db: FactDB) -> RefBottom:
    """:func:`saturate_reference` with the task's modes and determinations."""
    return saturate_reference(
        seed,
        [(m.recall, m.template) for m in task.bias.modeh],
        [(m.recall, m.template) for m in task.bias.modeb],
        task.bias.determinations,
        depth,
        db.answers,
    )


# --------------------------------------------------------------------------------------------
# Legality, from the definition
# --------------------------------------------------------------------------------------------


def is_legal_reference(
    inputs: Sequence[Sequence[int]],
    outputs: Sequence[Sequence[int]],
    head_inputs: Iterable[int],
    clause: Iterable[int],
    clauselength: int | None,
) -> bool:
    """A set of literal indices is legal when every input variable of each literal is a head
    input or an output of an earlier literal of the set, and head + body fit clauselength."""
    ids = sorted(clause)
    if len(set(ids)) != len(ids) or any(not 0 <= k < len(inputs) for k in ids):
        return False
    if clauselength is not None and 1 + len(ids) > clauselength:
        return False
    available = set(head_inputs)
    for k in ids:
        if not set(inputs[k]) <= available:
            return False
        available |= set(outputs[k])
    return True


# --------------------------------------------------------------------------------------------
# Tasks
# --------------------------------------------------------------------------------------------

_READER = PrologReader()


def term(text: str) -> Term:
    """Parse one Prolog term."""
    return _READER.read_term(text)


def make_task(
    facts: Iterable[Term | str],
    pos: Iterable[Term | str],
    neg: Iterable[Term | str] = (),
    modes: Iterable[str] = (),
    determinations: Iterable[str] = (),
    settings: Mapping[str, object] | None = None,
    name: str = "handmade",
) -> Task:
    """A task from facts, examples and mode/determination texts such as
    ``"modeb(*, parent(+person,-person))"`` and ``"grandparent/2, parent/2"``."""
    program = Program()
    for f in facts:
        program.add_fact(term(f) if isinstance(f, str) else f)
    builder = ExampleBuilder()
    for e in pos:
        builder.add(term(e) if isinstance(e, str) else e, POS)
    for e in neg:
        builder.add(term(e) if isinstance(e, str) else e, NEG)
    bias = Bias()
    for text in modes:
        m = term(text)
        assert type(m) is Struct and m.name in ("modeh", "modeb")
        bias.add_mode(parse_mode(m.name, m.args[0], m.args[1]))  # type: ignore[arg-type]
    for text in determinations:
        h, b = text.split(",")
        bias.add_determination(term(h), term(b))
    for key, value in (settings or {}).items():
        bias.settings.set_value(key, value)
    return Task(name=name, format="test", program=program, examples=builder.build(), bias=bias)


def load_bundled(name: str) -> Task:
    """A bundled data set, in whatever format it is shipped."""
    from ilpkit.core.formats import load_task
    from ilpkit.datasets import bundled_path

    return load_task(bundled_path(name))


def has_resolution_engine() -> bool:
    """Whether ``ilpkit.plugins.backends.native.resolution`` (rule-defined predicates) imports."""
    try:
        importlib.import_module("ilpkit.plugins.backends.native.resolution")
    except ImportError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# Random tasks (for property tests)
# --------------------------------------------------------------------------------------------


def random_task(rng: random.Random, *, builtins: bool = True) -> Task:
    """A small random task: 3-6 predicates of arity 1-3 over 3-8 typed atoms (types may
    overlap) and a few numbers; random modes (+/-/#, recall 1, 2 or *), sometimes with
    determinations; comparison and (dis)unification modes when ``builtins``."""
    n_atoms = rng.randint(3, 8)
    atoms = [Const(f"c{i}") for i in range(n_atoms)]
    numbers: list[Term] = [Const(v) for v in rng.sample([-1, 0, 1, 2, 3, 5], rng.randint(2, 4))]
    if rng.random() < 0.3:
        numbers.append(Const(1.0))  # =:= equal to 1 but not = to it
    domains: dict[str, list[Term]] = {"a": [], "b": [], "n": numbers}
    for c in atoms:
        for typ in rng.sample(["a", "b"], rng.choice([1, 1, 2])):
            domains[typ].append(c)
    for typ in ("a", "b"):
        if not domains[typ]:
            domains[typ].append(rng.choice(atoms))
    types = list(domains)

    program = Program()
    preds: list[tuple[str, list[str]]] = []
    for p in range(rng.randint(3, 6)):
        col_types = [rng.choice(types) for _ in range(rng.randint(1, 3))]
        preds.append((f"p{p}", col_types))
        for _ in range(rng.randint(1, 10)):  # with replacement: duplicate facts happen
            program.add_fact(Struct(f"p{p}", tuple(rng.choice(domains[t]) for t in col_types)))

    head_types = [rng.choice(["a", "b"]) for _ in range(rng.randint(1, 2))]
    head_io = ["+" if rng.random() < 0.8 else rng.choice("-#") for _ in head_types]
    extra = Const("zz")  # an example constant no fact mentions
    builder = ExampleBuilder()
    n_ex = rng.randint(4, 12)
    for i in range(n_ex):
        args = tuple(extra if rng.random() < 0.05 else rng.choice(domains[t]) for t in head_types)
        builder.add(Struct("t", args), POS if i == 0 or rng.random() < 0.5 else NEG)

    bias = Bias()
    head_template = Struct(
        "t", tuple(Struct(io, (Const(t),)) for io, t in zip(head_io, head_types, strict=True))
    )
    bias.add_mode(parse_mode("modeh", Const(1), head_template))
    body_preds: list[tuple[str, int]] = []
    for name, col_types in preds:
        for _ in range(rng.choice([1, 1, 2])):
            ios = [rng.choices("+-#", weights=[45, 40, 15])[0] for _ in col_types]
            template = Struct(
                name, tuple(Struct(io, (Const(t),)) for io, t in zip(ios, col_types, strict=True))
            )
            recall = rng.choice([Const(1), Const(2), Const("*"), Const("*")])
            bias.add_mode(parse_mode("modeb", recall, template))
        body_preds.append((name, len(col_types)))
    if builtins:
        for op in rng.sample(["<", ">", "=<", ">=", "=:=", "=\\="], rng.randint(0, 2)):
            template = Struct(op, (Struct("+", (Const("n"),)), Struct("+", (Const("n"),))))
            bias.add_mode(parse_mode("modeb", Const(1), template))
            body_preds.append((op, 2))
        if rng.random() < 0.4:
            t = rng.choice(["a", "b"])
            template = Struct("\\=", (Struct("+", (Const(t),)), Struct("+", (Const(t),))))
            bias.add_mode(parse_mode("modeb", Const(1), template))
            body_preds.append(("\\=", 2))
        if rng.random() < 0.4:
            template = Struct("=", (Struct("+", (Const("n"),)), Struct("#", (Const("n"),))))
            bias.add_mode(parse_mode("modeb", Const(1), template))
            body_preds.append(("=", 2))
    if rng.random() < 0.3:
        for b in rng.sample(body_preds, rng.randint(1, len(body_preds))):
            bias.determinations.append((("t", len(head_types)), b))
    bias.settings.set_value("clauselength", rng.randint(2, 6))
    bias.settings.set_value("i", rng.randint(1, 3))
    return Task(name="random", format="test", program=program, examples=builder.build(), bias=bias)


class HybridOracle:
    """Saturation oracle: fact goals answered by ``backend``, built-ins by the reference.

    (The native backend answers built-in goals with its resolution engine, which may not be
    installed; the property tests are about facts and coverage.)"""

    def __init__(self, backend: object, db: FactDB):
        self.backend = backend
        self.db = db

    def answers(self, goal: Term, max_answers: int | None) -> list[Term]:
        key = _indicator(goal)
        if key[1] == 2 and key[0] in BUILTIN_NAMES:
            return self.db.answers(goal, max_answers)
        if key not in self.db.facts:
            return []
        return self.backend.answers(goal, max_answers)  # type: ignore[attr-defined,no-any-return]


# --------------------------------------------------------------------------------------------
# SWI-Prolog as the judge
# --------------------------------------------------------------------------------------------


def swipl_path() -> str | None:
    return shutil.which("swipl")


def require_backends(name: str | None = None) -> bool:
    """Whether a missing engine must fail the tests instead of skipping them.

    ``ILPKIT_REQUIRE_BACKENDS`` is a comma-separated list of names (``swipl,gprolog``); with
    ``name`` the answer is whether that name is listed, without it whether any is."""
    value = os.environ.get("ILPKIT_REQUIRE_BACKENDS", "")
    if name is None:
        return bool(value)
    return name in {item.strip() for item in value.split(",")}


_SCRIPT = r"""
:- style_check(-singleton).
:- style_check(-discontiguous).
:- set_prolog_flag(verbose_load, silent).
:- initialization(main, main).

main :-
    load_files('program.pl', [silent(true)]),
    load_files('examples.pl', [silent(true)]),
    load_files('clauses.pl', [silent(true)]),
    forall(( undeclared(N/A), functor(H, N, A),
             \+ predicate_property(H, defined), \+ predicate_property(H, built_in) ),
           dynamic(N/A)),
    forall(cl(I, Head, Body),
           ( findall(E, ( ex(E, X), \+ \+ ( Head = X, call(Body) ) ), Es),
             format("~w ~w~n", [I, Es]) )).
"""


def swipl_coverage(
    program: Program,
    examples: Sequence[Term],
    clauses: Sequence[Clause],
    workdir: Path,
    undefined: Iterable[tuple[str, int]] = (),
    timeout: float = 600,
) -> list[set[int]]:
    """Covered example ids of each clause, as SWI-Prolog computes them.

    ``undefined``: predicates to declare dynamic when the program does not define them
    (mode predicates without facts fail rather than raise)."""
    exe = swipl_path()
    assert exe is not None
    workdir.mkdir(parents=True, exist_ok=True)
    with open(workdir / "program.pl", "w") as f:
        for c in program.iter_clauses():
            f.write(clause_to_prolog(c) + "\n")
    with open(workdir / "examples.pl", "w") as f:
        for i, e in enumerate(examples):
            f.write(to_prolog(Struct("ex", (Const(i), e))) + ".\n")
        for n, a in sorted(set(undefined)):
            f.write(to_prolog(Struct("undeclared", (Struct("/", (Const(n), Const(a))),))) + ".\n")
        f.write("undeclared(_) :- fail.\n")
    with open(workdir / "clauses.pl", "w") as f:
        for i, c in enumerate(clauses):
            body = Const("true")
            for g in reversed(c.body):
                body = g if body == Const("true") else Struct(",", (g, body))
            f.write(to_prolog(Struct("cl", (Const(i), c.head, body))) + ".\n")
    (workdir / "run.pl").write_text(_SCRIPT)
    proc = subprocess.run(
        [exe, "-q", "run.pl"], cwd=workdir, capture_output=True, text=True, timeout=timeout
    )
    if proc.returncode != 0:
        raise RuntimeError(f"swipl failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    out: list[set[int]] = [set() for _ in clauses]
    seen = 0
    for line in proc.stdout.splitlines():
        i_text, _, ids = line.partition(" ")
        ids = ids.strip().strip("[]")
        out[int(i_text)] = {int(x) for x in ids.split(",")} if ids else set()
        seen += 1
    if seen != len(clauses):
        raise RuntimeError(f"swipl answered {seen} of {len(clauses)} clauses:\n{proc.stderr}")
    return out
