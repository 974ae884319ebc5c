"""A learning task: background program, labelled examples, language bias and folds.

Example ids are stable integers: positives first (in the order read), then negatives, then
unlabeled examples.  Every backend, learner and report refers to examples by these ids, so a
task read, written and read again numbers its examples the same way.

The background program keeps ground facts as argument tuples per predicate (compact: a million
facts fit in a few hundred MB) and every predicate that has a rule as an ordered list of
clauses (Prolog semantics depend on clause order).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

import numpy as np
import numpy.typing as npt

from ilpkit.core.bias import Bias
from ilpkit.errors import DataError, SourceLocation
from ilpkit.prolog.terms import Clause, Struct, Term, indicator, is_ground, to_prolog

POS: Final = 1
NEG: Final = 0
UNLABELED: Final = -1
LABEL_NAMES: Final = {POS: "positive", NEG: "negative", UNLABELED: "unlabeled"}

Indicator = tuple[str, int]


class SourcedClause(NamedTuple):
    """A background clause with where it was read (for error messages)."""

    clause: Clause
    location: SourceLocation | None


class SourcedTerm(NamedTuple):
    term: Term
    location: SourceLocation | None


@dataclass
class Program:
    """Background knowledge.

    ``facts[p]`` holds the argument tuples of predicate ``p`` when ``p`` is defined by ground
    facts only; ``clauses[p]`` holds all clauses, in order, of a predicate that has at least
    one rule or non-ground fact.  A predicate is in exactly one of the two.
    """

    facts: dict[Indicator, list[tuple[Term, ...]]] = field(default_factory=dict)
    clauses: dict[Indicator, list[SourcedClause]] = field(default_factory=dict)
    dynamic: set[Indicator] = field(default_factory=set)
    declared: dict[Indicator, tuple[str, SourceLocation | None]] = field(default_factory=dict)
    """The first ``dynamic``, ``table``, ``discontiguous`` or ``multifile`` declaration of
    each predicate the data declares: its kind and where (the safety check names it)."""

    def add_fact(self, atom: Term, location: SourceLocation | None = None) -> None:
        """Add a fact; ground facts of fact-only predicates go to the compact table."""
        key = indicator(atom)
        if key in self.clauses or not is_ground(atom):
            self.add_clause(Clause(atom), location)
            return
        self._add_row(key, atom.args if type(atom) is Struct else ())

    def add_ground_fact(self, atom: Struct) -> bool:
        """Add a ground fact known to have no variables (the readers' fast path); ``False``
        when its predicate has rules, so the caller must add it as a clause, with location."""
        key = (atom.name, len(atom.args))
        if key in self.clauses:
            return False
        self._add_row(key, atom.args)
        return True

    def _add_row(self, key: Indicator, args: tuple[Term, ...]) -> None:
        rows = self.facts.get(key)
        if rows is None:
            self.facts[key] = [args]
        else:
            rows.append(args)

    def add_clause(self, clause: Clause, location: SourceLocation | None = None) -> None:
        if clause.is_fact and is_ground(clause.head) and clause.indicator not in self.clauses:
            self.add_fact(clause.head, location)
            return
        key = clause.indicator
        existing = self.clauses.get(key)
        if existing is None:
            existing = self.clauses[key] = []
            # Facts read before the first rule keep their place, in front of it.
            for args in self.facts.pop(key, []):
                head: Term = Struct(key[0], args) if args else clause.head
                existing.append(SourcedClause(Clause(head), None))
        existing.append(SourcedClause(clause, location))

    def predicates(self) -> list[Indicator]:
        return sorted({*self.facts, *self.clauses})

    def n_facts(self) -> int:
        n = sum(len(rows) for rows in self.facts.values())
        n += sum(1 for cl in self.clauses.values() for sc in cl if sc.clause.is_fact)
        return n

    def n_rules(self) -> int:
        return sum(1 for cl in self.clauses.values() for sc in cl if not sc.clause.is_fact)

    def facts_per_predicate(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for key, rows in self.facts.items():
            out[f"{key[0]}/{key[1]}"] = len(rows)
        for key, cls in self.clauses.items():
            n = sum(1 for sc in cls if sc.clause.is_fact)
            if n:
                out[f"{key[0]}/{key[1]}"] = n
        return dict(sorted(out.items()))

    def iter_clauses(self) -> Iterator[Clause]:
        """Every clause of the program, predicates in sorted order, clauses in source order."""
        for key in self.predicates():
            if key in self.facts:
                name = key[0]
                for args in self.facts[key]:
                    yield Clause(Struct(name, args) if args else _atom(name))
            else:
                for sc in self.clauses[key]:
                    yield sc.clause

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Program):
            return NotImplemented
        mine = {k: [c.canonical() for c in self._clauses_of(k)] for k in self.predicates()}
        theirs = {k: [c.canonical() for c in other._clauses_of(k)] for k in other.predicates()}
        return mine == theirs

    def _clauses_of(self, key: Indicator) -> list[Clause]:
        if key in self.facts:
            return [Clause(Struct(key[0], a) if a else _atom(key[0])) for a in self.facts[key]]
        return [sc.clause for sc in self.clauses.get(key, [])]


def _atom(name: str) -> Term:
    from ilpkit.prolog.terms import Const

    return Const(name)


@dataclass
class Examples:
    """Examples as columns; the id of an example is its index."""

    atoms: list[Term]
    labels: npt.NDArray[np.int8]
    weights: npt.NDArray[np.float64]
    folds: npt.NDArray[np.int32]  # index into Task.fold_names, -1 when unassigned
    locations: list[SourceLocation | None]

    def __len__(self) -> int:
        return len(self.atoms)

    @property
    def ids(self) -> npt.NDArray[np.int64]:
        return np.arange(len(self.atoms), dtype=np.int64)

    def ids_with_label(self, label: int) -> npt.NDArray[np.int64]:
        return np.flatnonzero(self.labels == label)

    @property
    def positives(self) -> npt.NDArray[np.int64]:
        return self.ids_with_label(POS)

    @property
    def negatives(self) -> npt.NDArray[np.int64]:
        return self.ids_with_label(NEG)

    @property
    def unlabeled(self) -> npt.NDArray[np.int64]:
        return self.ids_with_label(UNLABELED)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Examples):
            return NotImplemented
        return (
            self.atoms == other.atoms
            and np.array_equal(self.labels, other.labels)
            and np.array_equal(self.weights, other.weights)
            and np.array_equal(self.folds, other.folds)
        )


@dataclass
class ExampleBuilder:
    """Collects examples as they are read and numbers them (positives, negatives, unlabeled)."""

    _rows: dict[int, list[tuple[Term, float, int, SourceLocation | None]]] = field(
        default_factory=lambda: {POS: [], NEG: [], UNLABELED: []}
    )
    fold_names: list[str] = field(default_factory=list)

    def fold_index(self, name: str) -> int:
        if name not in self.fold_names:
            self.fold_names.append(name)
        return self.fold_names.index(name)

    def add(
        self,
        atom: Term,
        label: int,
        *,
        weight: float = 1.0,
        fold: str | None = None,
        location: SourceLocation | None = None,
    ) -> None:
        if not is_ground(atom):
            where = f"{location}: " if location else ""
            raise DataError(
                f"{where}example {to_prolog(atom)} is not ground; examples must not contain "
                "variables"
            )
        fold_i = -1 if fold is None else self.fold_index(fold)
        self._rows[label].append((atom, weight, fold_i, location))

    def build(self) -> Examples:
        rows = self._rows[POS] + self._rows[NEG] + self._rows[UNLABELED]
        labels = [POS] * len(self._rows[POS]) + [NEG] * len(self._rows[NEG])
        labels += [UNLABELED] * len(self._rows[UNLABELED])
        return Examples(
            atoms=[r[0] for r in rows],
            labels=np.array(labels, dtype=np.int8),
            weights=np.array([r[1] for r in rows], dtype=np.float64),
            folds=np.array([r[2] for r in rows], dtype=np.int32),
            locations=[r[3] for r in rows],
        )


@dataclass
class Task:
    """Everything a learner needs: background program, examples, bias and folds."""

    name: str
    format: str
    program: Program
    examples: Examples
    bias: Bias
    fold_names: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    directives: list[SourcedTerm] = field(default_factory=list)
    """Directives ilpkit did not interpret (kept, reported, and refused by engines unless
    the user trusts the data)."""
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What the loader did that a user may want to know (e.g. an ``abolish/1`` applied)."""
    label_frequency: float | None = None
    """For a positive-unlabeled labeling the experiment drew (``cv.pu_label_frequency``): the
    probability with which each training positive kept its label; None for data as read."""

    @property
    def target(self) -> Indicator | None:
        """The target predicate: the modeh predicate (of several, the examples' one: Aleph's
        ``mode/2`` gives every moded predicate a head mode), else the examples' predicate."""
        if self.bias.modeh:
            heads = [m.indicator for m in self.bias.modeh]
            if self.examples.atoms and indicator(self.examples.atoms[0]) in heads:
                return indicator(self.examples.atoms[0])
            return heads[0]
        if self.examples.atoms:
            return indicator(self.examples.atoms[0])
        return None

    @property
    def target_name(self) -> str | None:
        """The target as ``name/arity`` (what models record), or None."""
        t = self.target
        return f"{t[0]}/{t[1]}" if t else None

    def validate(self) -> None:
        """Checks every loader runs: a clear error instead of a wrong experiment later."""
        ex = self.examples
        if len(ex.positives) == 0:
            raise DataError(f"{self.name}: no positive examples were found in {self._where()}")
        heads = {m.indicator for m in self.bias.modeh}
        if heads:
            for i, atom in enumerate(ex.atoms):
                key = indicator(atom)
                if key not in heads:
                    loc = ex.locations[i]
                    where = f"{loc}: " if loc else ""
                    expected = ", ".join(f"{n}/{a}" for n, a in sorted(heads))
                    raise DataError(
                        f"{where}example {to_prolog(atom)} is for {key[0]}/{key[1]}, but the "
                        f"modeh declarations are for {expected}"
                    )
        seen: dict[tuple[Term, int, int], int] = {}
        duplicates = []
        for i, atom in enumerate(ex.atoms):
            key2 = (atom, int(ex.labels[i]), int(ex.folds[i]))
            first_i = seen.setdefault(key2, i)
            if first_i != i:
                duplicates.append((i, first_i))
        if duplicates:
            # Kept as separate examples, as Aleph counts each occurrence; said, not hidden.
            i, first_i = duplicates[0]
            label = LABEL_NAMES[int(ex.labels[i])]
            self.warnings.append(
                f"{len(duplicates)} duplicate examples (same atom, label and fold) are kept as "
                f"separate examples; the first: {label} {to_prolog(ex.atoms[i])} at "
                f"{ex.locations[i]} (also at {ex.locations[first_i]})"
            )

    def _where(self) -> str:
        return ", ".join(self.sources[:5]) + (" ..." if len(self.sources) > 5 else "") or "?"

    def summary(self) -> dict[str, Any]:
        """Counts for ``ilpkit data check``."""
        ex = self.examples
        folds: dict[str, dict[str, int]] = {}
        for i, name in enumerate(self.fold_names):
            mask = ex.folds == i
            folds[name] = {
                "positives": int(np.sum(mask & (ex.labels == POS))),
                "negatives": int(np.sum(mask & (ex.labels == NEG))),
                "unlabeled": int(np.sum(mask & (ex.labels == UNLABELED))),
            }
        target = self.target
        contradictions = _contradictions(ex)
        return {
            "name": self.name,
            "format": self.format,
            "target": f"{target[0]}/{target[1]}" if target else None,
            "positives": len(ex.positives),
            "negatives": len(ex.negatives),
            "unlabeled": len(ex.unlabeled),
            "facts": self.program.n_facts(),
            "facts_per_predicate": self.program.facts_per_predicate(),
            "rules": self.program.n_rules(),
            "modes": [str(m) for m in (*self.bias.modeh, *self.bias.modeb)],
            "determinations": len(self.bias.determinations),
            "settings": {k: _show(v) for k, v in self.bias.settings.items()},
            "unknown_settings": {k: to_prolog(v) for k, v in self.bias.settings.unknown.items()},
            "folds": folds,
            "contradictory_examples": contradictions,
            "uninterpreted_directives": [
                f"{d.location}: {to_prolog(d.term)}"
                for d in self.directives
                if _directive_name(d.term) not in LEARNER_DIRECTIVES
            ],
            "directives_read_by_learner_aleph": [
                f"{d.location}: {to_prolog(d.term)}"
                for d in self.directives
                if _directive_name(d.term) in LEARNER_DIRECTIVES
            ],
            "warnings": list(self.warnings),
            "notes": list(self.notes),
            "sources": list(self.sources),
        }


LEARNER_DIRECTIVES: Final = frozenset({"lazy_evaluate", "positive_only"})
"""Directives the loader keeps as they are and the ``aleph`` learner reads
(:mod:`ilpkit.core.lazy`): ``data check`` lists them apart from the uninterpreted ones."""


def _directive_name(term: Term) -> str | None:
    """The name of the goal of ``:- Goal`` (or of ``Goal``)."""
    if type(term) is Struct and term.name == ":-" and len(term.args) == 1:
        term = term.args[0]
    if type(term) is Struct:
        return term.name
    return None


def stratified_folds(task: Task, k: int, seed: int = 0) -> Task:
    """``task`` with its examples assigned to ``k`` folds, stratified by label.

    Each label's examples are shuffled with ``seed`` and dealt round-robin, so fold sizes per
    label differ by at most one and the same seed always gives the same folds.  Existing fold
    assignments are replaced (the data's own folds are kept in ``Task.notes``).
    """
    if k < 2:
        raise DataError(f"stratified folds need k >= 2, got {k}")
    ex = task.examples
    if len(ex.positives) < k:  # before any arithmetic with k (a huge k overflows numpy)
        raise DataError(
            f"{task.name}: {len(ex.positives)} positive examples cannot fill {k} stratified folds"
        )
    folds = np.full(len(ex), -1, dtype=np.int32)
    rng = np.random.default_rng(seed)
    # A repeated atom goes to the fold of its first occurrence: in two folds it would be
    # tested on while trained on (the leak check of ilpkit.experiment.cv refuses that).
    first: dict[Term, int] = {}
    repeats = [i for i, atom in enumerate(ex.atoms) if first.setdefault(atom, i) != i]
    repeated = np.zeros(len(ex), dtype=bool)
    repeated[repeats] = True
    for label in (POS, NEG, UNLABELED):
        ids = ex.ids_with_label(label)
        ids = ids[~repeated[ids]]
        if len(ids) == 0:
            continue
        shuffled = rng.permutation(ids)
        folds[shuffled] = np.arange(len(shuffled)) % k
    for i in repeats:
        folds[i] = folds[first[ex.atoms[i]]]
    n_pos = len(ex.positives)
    if n_pos < k:
        raise DataError(f"{task.name}: {n_pos} positive examples cannot fill {k} stratified folds")
    notes = list(task.notes)
    if task.fold_names:
        notes.append(
            f"the data's folds ({', '.join(task.fold_names)}) replaced by {k} "
            f"stratified folds (seed {seed})"
        )
    return Task(
        name=task.name,
        format=task.format,
        program=task.program,
        examples=Examples(ex.atoms, ex.labels, ex.weights, folds, ex.locations),
        bias=task.bias,
        fold_names=[f"fold{i}" for i in range(k)],
        sources=task.sources,
        directives=task.directives,
        warnings=task.warnings,
        notes=notes,
    )


def _show(value: object) -> object:
    if isinstance(value, float) and value == float("inf"):
        return "inf"
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    return to_prolog(value)  # type: ignore[arg-type]


def _contradictions(ex: Examples) -> int:
    """Atoms that are both positive and negative (kept, as noisy data may have them)."""
    pos = Counter(ex.atoms[i] for i in ex.positives.tolist())
    return sum(1 for i in ex.negatives.tolist() if ex.atoms[i] in pos)


def examples_from(atoms: Iterable[tuple[Term, int]]) -> Examples:
    """Examples from ``(atom, label)`` pairs (handy in tests and the Python API)."""
    builder = ExampleBuilder()
    for atom, label in atoms:
        builder.add(atom, label)
    return builder.build()
