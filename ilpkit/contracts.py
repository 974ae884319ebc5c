"""Contract suites for every plugin kind but learners (``ilpkit.testing`` has those), in the
spirit of scikit-learn's ``check_estimator``: ``check_combiner``, ``check_scorer``,
``check_search``, ``check_format`` and ``check_backend``, each a list of small named checks
that a third-party package can run on its own plugin::

    from ilpkit.testing import plugin_checks

    @pytest.mark.parametrize("check", plugin_checks("combiner", "mycombiner"), ids=str)
    def test_contract(check):
        check.run()

Every check raises ``AssertionError`` saying what broke; a check that cannot run here (an
engine missing) raises :class:`CheckSkipped`, which ``run()`` turns into a pytest skip.
The data are the bundled ``trains`` (searches, formats, backends) or small seeded pools
(combiners); every check takes well under a second on the native backend.
"""

from __future__ import annotations

import copy
import json
import random
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ilpkit.core.coverage import Counts, Coverage, Weighting
from ilpkit.core.plugins import PluginKind, PluginManager, get_plugin_manager
from ilpkit.core.task import POS, Task
from ilpkit.errors import ConfigError, DataError, UnsafeProgramError

__all__ = [
    "CheckSkipped",
    "PluginCheck",
    "check_backend",
    "check_combiner",
    "check_format",
    "check_scorer",
    "check_search",
    "plugin_checks",
    "run_check",
]


class CheckSkipped(Exception):
    """A check that cannot run here (its reason is the message)."""


@dataclass(frozen=True)
class PluginCheck:
    """One check of one plugin; ``run()`` raises AssertionError when the plugin fails it."""

    kind: PluginKind
    plugin: str
    name: str
    fn: Callable[..., None]
    manager: PluginManager
    options: Mapping[str, Any] | None = None
    """The plugin's options (a backend's engine, say); None: its defaults."""

    def __str__(self) -> str:
        shown = ",".join(f"{k}={v}" for k, v in sorted((self.options or {}).items()))
        return f"{self.kind}-{self.plugin}{'[' + shown + ']' if shown else ''}-{self.name}"

    def run(self) -> None:
        try:
            self.fn(self.plugin, self.manager, self.options)
        except CheckSkipped as skip:
            try:
                import pytest
            except ImportError:  # pragma: no cover - outside pytest the skip propagates
                raise skip from None
            pytest.skip(str(skip))


def _trains() -> Task:
    from ilpkit.core.formats import load_task
    from ilpkit.datasets import resolve_data_path

    return load_task(resolve_data_path("trains"))


def _auroc(scores: npt.NDArray[np.float64], labels: npt.NDArray[np.bool_]) -> float:
    pos, neg = scores[labels], scores[~labels]
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(wins) / (len(pos) * len(neg))


# --------------------------------------------------------------------------------------------
# combiners
# --------------------------------------------------------------------------------------------


def _easy_pool(seed: int = 0, clauses: int = 6, examples: int = 80) -> Any:
    """A pool every sane combiner ranks well: each clause covers a positive with probability
    0.8 and a negative with 0.1; clauses in three members."""
    from ilpkit.core.combiner import ClausePool
    from ilpkit.prolog.terms import Clause, Struct, Var

    rng = np.random.default_rng(seed)
    labels = np.arange(examples) % 3 == 0
    cover = rng.random((examples, clauses)) < np.where(labels[:, None], 0.8, 0.1)
    head = Struct("t", (Var("A"),))
    made = [Clause(head, (Struct(f"c{j}", (Var("A"),)),)) for j in range(clauses)]
    return ClausePool(
        clauses=made,
        groups=np.arange(clauses, dtype=np.int64) % 3,
        group_kind="member",
        fit_ids=np.arange(examples, dtype=np.int64),
        fit_labels=labels,
        fit_matrix=cover,
    )


def _combiner(name: str, manager: PluginManager) -> Any:
    from ilpkit.core.combiner import Combiner

    combiner = manager.make("combiner", name, {})
    assert isinstance(combiner, Combiner), f"combiner {name!r} lacks fit/combination_from_json"
    return combiner


def combiner_fits_and_ranks(
    name: str, manager: PluginManager, options: Mapping[str, Any] | None = None
) -> None:
    pool = _easy_pool()
    fitted = _combiner(name, manager).fit(pool, seed=0)
    scores = np.asarray(fitted.score(pool.fit_matrix), dtype=np.float64)
    decisions = np.asarray(fitted.predict(pool.fit_matrix))
    n = len(pool.fit_labels)
    assert scores.shape == (n,) and np.all(np.isfinite(scores)), "one finite score per row"
    assert decisions.shape == (n,) and decisions.dtype == bool, "one decision per row"
    assert len(fitted.clause_weights()) == len(pool.clauses), "one weight per clause"
    area = _auroc(scores, pool.fit_labels)
    assert area > 0.7, f"an easy pool ranked at AUROC {area:.3f} (chance is 0.5)"


def combiner_round_trip(
    name: str, manager: PluginManager, options: Mapping[str, Any] | None = None
) -> None:
    pool = _easy_pool(1)
    combiner = _combiner(name, manager)
    fitted = combiner.fit(pool, seed=0)
    again = combiner.combination_from_json(json.loads(json.dumps(fitted.to_json())))
    assert np.allclose(again.score(pool.fit_matrix), fitted.score(pool.fit_matrix)), (
        "scores change through to_json/combination_from_json"
    )
    assert (again.predict(pool.fit_matrix) == fitted.predict(pool.fit_matrix)).all()


def combiner_same_seed_leaves_input(
    name: str, manager: PluginManager, options: Mapping[str, Any] | None = None
) -> None:
    pool = _easy_pool(2)
    before = copy.deepcopy(pool)
    a = _combiner(name, manager).fit(pool, seed=5).score(pool.fit_matrix)
    b = _combiner(name, manager).fit(pool, seed=5).score(pool.fit_matrix)
    assert np.array_equal(a, b), "two fits with one seed differ"
    assert np.array_equal(pool.fit_matrix, before.fit_matrix), "fit changed the pool's matrix"
    assert np.array_equal(pool.fit_labels, before.fit_labels), "fit changed the labels"


def combiner_empty_pool(
    name: str, manager: PluginManager, options: Mapping[str, Any] | None = None
) -> None:
    pool = _easy_pool(clauses=0)
    fitted = _combiner(name, manager).fit(pool, seed=0)
    scores = np.asarray(fitted.score(pool.fit_matrix))
    assert scores.shape == (len(pool.fit_labels),) and np.all(np.isfinite(scores))


def combiner_refuses_bad_options(
    name: str, manager: PluginManager, options: Mapping[str, Any] | None = None
) -> None:
    try:
        manager.make("combiner", name, {"no_such_option_": 1})
    except ConfigError as err:
        assert "no_such_option_" in str(err), f"the error does not name the option: {err}"
    else:
        raise AssertionError("a misspelt option was accepted")


# --------------------------------------------------------------------------------------------
# scorers
# --------------------------------------------------------------------------------------------


def _scorer(name: str, manager: PluginManager) -> Any:
    from ilpkit.core.scoring import Scorer

    scorer = manager.make("scorer", name, {})
    assert isinstance(scorer, Scorer), f"scorer {name!r} lacks score()"
    return scorer


def scorer_scores_every_count(
    name: str, manager: PluginManager, options: Mapping[str, Any] | None = None
) -> None:
    scorer = _scorer(name, manager)
    p, n = 10.0, 20.0
    general = Counts(p, n, p, n)
    for tp in (0.0, 1.0, 5.0, 10.0):
        for fp in (0.0, 3.0, 20.0):
            for length in (1, 2, 4):
                counts = Counts(tp, fp, p, n)
                value = scorer.score(counts, length, general if scorer.needs_parent else None)
                again = scorer.score(counts, length, general if scorer.needs_parent else None)
                assert isinstance(value, float), f"score is {type(value).__name__}, not float"
                assert not np.isnan(value), f"NaN for TP {tp}, FP {fp}, length {length}"
                assert value == again, "the same counts scored twice differ"


def scorer_prefers_a_perfect_clause(
    name: str, manager: PluginManager, options: Mapping[str, Any] | None = None
) -> None:
    scorer = _scorer(name, manager)
    p, n = 10.0, 20.0
    general = Counts(p, n, p, n)
    parent = general if scorer.needs_parent else None
    perfect = scorer.score(Counts(p, 0.0, p, n), 2, parent)
    everything = scorer.score(Counts(p, n, p, n), 2, parent)
    assert perfect >= everything, (
        f"a clause covering every positive and no negative ({perfect}) scores below one "
        f"covering everything ({everything})"
    )
    if scorer.needs_path:
        path = scorer.score_path([general, Counts(p, 0.0, p, n)])
        assert np.isfinite(path), "score_path of a two-clause path is not finite"


# --------------------------------------------------------------------------------------------
# searches
# --------------------------------------------------------------------------------------------


def _run_search(name: str, manager: PluginManager, seed: int) -> tuple[Any, list[Any], Any]:
    from ilpkit.core.search import SearchContext

    task = _trains()
    backend = manager.make("backend", "native", {})
    backend.load(task)
    labels = task.examples.labels
    seed_example = int(np.flatnonzero(labels == POS)[0])
    seen: list[Any] = []
    ctx = SearchContext(
        bottom=backend.saturate(seed_example, depth=int(task.bias.settings["i"])),
        backend=backend,
        scorer=manager.make("scorer", "laplace", {}),
        weighting=Weighting(labels, task.examples.weights),
        budget=30,
        rng=random.Random(seed),
        clauselength=4,
        observers=[seen.append],
    )
    best = manager.make("search", name, {}).run(ctx)
    return best, seen, (ctx, backend)


def search_within_budget(
    name: str, manager: PluginManager, options: Mapping[str, Any] | None = None
) -> None:
    best, seen, (ctx, _) = _run_search(name, manager, 0)
    assert ctx.evaluated <= 30, f"{ctx.evaluated} clauses evaluated against a budget of 30"
    assert len(seen) == ctx.evaluated, "observers saw another number of clauses than counted"
    for e in seen:
        assert e.length <= 4, f"{e.clause} is longer than clauselength 4"
    if best is not None:
        assert best.clause in {e.clause for e in seen}, "the best clause was never evaluated"


def search_coverage_is_the_backends(
    name: str, manager: PluginManager, options: Mapping[str, Any] | None = None
) -> None:
    _, seen, (_, backend) = _run_search(name, manager, 0)
    for e in seen[:10]:
        assert np.array_equal(e.coverage.ids, backend.coverage(e.clause).ids), (
            f"the search's coverage of {e.clause} is not the backend's"
        )


def search_same_seed(
    name: str, manager: PluginManager, options: Mapping[str, Any] | None = None
) -> None:
    a = [str(e.clause) for e in _run_search(name, manager, 7)[1]]
    b = [str(e.clause) for e in _run_search(name, manager, 7)[1]]
    assert a == b, "two searches with one seed evaluated different clauses"


# --------------------------------------------------------------------------------------------
# formats
# --------------------------------------------------------------------------------------------


def _covers(task: Task, manager: PluginManager, clause_text: str) -> list[int]:
    from ilpkit.core.learner import parse_clause

    backend = manager.make("backend", "native", {})
    backend.load(task)
    atoms = [str(a) for a in task.examples.atoms]
    covered = backend.coverage(parse_clause(clause_text)).ids
    return sorted(atoms[i] for i in covered)


def format_round_trip(
    name: str, manager: PluginManager, options: Mapping[str, Any] | None = None
) -> None:
    fmt = manager.make("format", name, {})
    task = _trains()
    with tempfile.TemporaryDirectory() as tmp:
        dest = Path(tmp) / "data"
        dest.mkdir()
        written = fmt.write(task, dest)
        assert written, "write() wrote no file"
        assert fmt.detect(dest) is not None, "detect() does not recognise what write() wrote"
        back = fmt.load(dest)
    assert len(back.examples) == len(task.examples), "examples lost in a round trip"
    assert int(np.sum(back.examples.labels == POS)) == int(np.sum(task.examples.labels == POS))
    clause = "eastbound(A) :- has_car(A,B), short(B), closed(B)."
    assert _covers(back, manager, clause) == _covers(task, manager, clause), (
        "a clause covers other examples after a round trip"
    )


def format_refuses_nonsense(
    name: str, manager: PluginManager, options: Mapping[str, Any] | None = None
) -> None:
    fmt = manager.make("format", name, {})
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "notes.txt").write_text("not a dataset\n")
        assert fmt.detect(Path(tmp)) is None, "detect() claims a folder holding one text file"


# --------------------------------------------------------------------------------------------
# backends
# --------------------------------------------------------------------------------------------

HAND_CHECKED: Mapping[str, list[str]] = {
    # the bundled trains (train.b), read by hand: closed cars are car_12, car_23, car_32,
    # car_33, car_43, car_52, car_53 (eastbound trains 1-5), car_61 (west6) and car_81
    # (west8); of these only car_33, car_61 and car_81 are not short
    "eastbound(A) :- has_car(A,B), closed(B).": [
        "eastbound(east1)",
        "eastbound(east2)",
        "eastbound(east3)",
        "eastbound(east4)",
        "eastbound(east5)",
        "eastbound(west6)",
        "eastbound(west8)",
    ],
    "eastbound(A) :- has_car(A,B), short(B), closed(B).": [
        "eastbound(east1)",
        "eastbound(east2)",
        "eastbound(east3)",
        "eastbound(east4)",
        "eastbound(east5)",
    ],
}


def _backend(name: str, manager: PluginManager, **options: Any) -> Any:
    from ilpkit.errors import BackendUnavailable

    try:
        backend = manager.make("backend", name, options)
        backend.load(_trains())
    except BackendUnavailable as exc:
        raise CheckSkipped(f"backend {name!r} is not available here: {exc}") from None
    return backend


def backend_hand_checked_coverage(
    name: str, manager: PluginManager, options: Mapping[str, Any] | None = None
) -> None:
    from ilpkit.core.learner import parse_clause

    backend = _backend(name, manager, **(options or {}))
    try:
        atoms = [str(a) for a in backend.task.examples.atoms]
        for text, expected in HAND_CHECKED.items():
            got = sorted(atoms[i] for i in backend.coverage(parse_clause(text)).ids)
            assert got == sorted(expected), f"{text} covers {got}, expected {expected}"
    finally:
        backend.close()


def backend_agrees_with_native(
    name: str, manager: PluginManager, options: Mapping[str, Any] | None = None
) -> None:
    from ilpkit.core.search import SearchContext

    backend = _backend(name, manager, **(options or {}))
    native = _backend("native", manager)
    try:
        task = native.task
        seen: list[Any] = []
        labels = task.examples.labels
        ctx = SearchContext(
            bottom=native.saturate(int(np.flatnonzero(labels == POS)[1]), depth=2),
            backend=native,
            scorer=manager.make("scorer", "coverage", {}),
            weighting=Weighting(labels, task.examples.weights),
            budget=25,
            rng=random.Random(3),
            clauselength=4,
            observers=[seen.append],
        )
        manager.make("search", "rrr", {}).run(ctx)
        clauses = [e.clause for e in seen]
        theirs = backend.coverage_many(clauses, Coverage(task.examples.ids, len(task.examples)))
        for clause, mine, other in zip(clauses, (e.coverage for e in seen), theirs, strict=True):
            assert np.array_equal(mine.ids, other.ids), f"{clause}: native and {name} differ"
    finally:
        backend.close()
        native.close()


def backend_refuses_unsafe_data(
    name: str, manager: PluginManager, options: Mapping[str, Any] | None = None
) -> None:
    from ilpkit.core.formats import load_task
    from ilpkit.errors import BackendUnavailable

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "hostile"
        folder.mkdir()
        canary = Path(tmp) / "canary"
        (folder / "h.b").write_text(
            f":- modeh(1, t(+k)).\n:- modeb(*, ev(+k)).\nev(X) :- X = a, shell('touch {canary}').\n"
        )
        (folder / "h.f").write_text("t(a).\n")
        (folder / "h.n").write_text("t(b).\n")
        backend = manager.make("backend", name, dict(options or {}))
        try:
            backend.load(load_task(folder))
        except UnsafeProgramError as err:
            assert "h.b:3" in str(err), f"the refusal does not name the file and line: {err}"
        except BackendUnavailable as exc:
            raise CheckSkipped(f"backend {name!r} is not available here: {exc}") from None
        else:
            raise AssertionError(f"backend {name!r} loaded a program calling shell/1")
        finally:
            close = getattr(backend, "close", None)
            if close is not None:
                close()
        assert not canary.exists(), "the shell command ran"


def backend_refuses_bad_options(
    name: str, manager: PluginManager, options: Mapping[str, Any] | None = None
) -> None:
    try:
        manager.make("backend", name, {**(options or {}), "no_such_option_": 1})
    except (ConfigError, DataError) as err:
        assert "no_such_option_" in str(err), f"the error does not name the option: {err}"
    else:
        raise AssertionError("a misspelt option was accepted")


# --------------------------------------------------------------------------------------------
# the suites
# --------------------------------------------------------------------------------------------

CHECKS: Mapping[str, Mapping[str, Callable[..., None]]] = {
    "combiner": {
        "fits_and_ranks": combiner_fits_and_ranks,
        "round_trip": combiner_round_trip,
        "same_seed_leaves_input": combiner_same_seed_leaves_input,
        "empty_pool": combiner_empty_pool,
        "refuses_bad_options": combiner_refuses_bad_options,
    },
    "scorer": {
        "scores_every_count": scorer_scores_every_count,
        "prefers_a_perfect_clause": scorer_prefers_a_perfect_clause,
    },
    "search": {
        "within_budget": search_within_budget,
        "coverage_is_the_backends": search_coverage_is_the_backends,
        "same_seed": search_same_seed,
    },
    "format": {"round_trip": format_round_trip, "refuses_nonsense": format_refuses_nonsense},
    "backend": {
        "hand_checked_coverage": backend_hand_checked_coverage,
        "agrees_with_native": backend_agrees_with_native,
        "refuses_unsafe_data": backend_refuses_unsafe_data,
        "refuses_bad_options": backend_refuses_bad_options,
    },
}
"""Every check, by plugin kind and name."""


def plugin_checks(
    kind: PluginKind,
    name: str,
    manager: PluginManager | None = None,
    options: Mapping[str, Any] | None = None,
) -> list[PluginCheck]:
    """The checks of ``kind`` for plugin ``name`` with ``options`` (for
    ``pytest.mark.parametrize``)."""
    manager = manager or get_plugin_manager()
    manager.get(kind, name)  # an unknown name fails here, with a "did you mean"
    return [PluginCheck(kind, name, c, fn, manager, options) for c, fn in CHECKS[kind].items()]


def run_check(
    kind: PluginKind, name: str, check: str, options: Mapping[str, Any] | None = None
) -> str:
    """Run one check by name (in a child process, say); ``"ok"``, or ``"skipped: why"``."""
    manager = get_plugin_manager()
    try:
        CHECKS[kind][check](name, manager, options)
    except CheckSkipped as skip:
        return f"skipped: {skip}"
    return "ok"


def _check_all(kind: PluginKind, name: str, manager: PluginManager | None) -> None:
    for check in plugin_checks(kind, name, manager):
        try:
            check.fn(check.plugin, check.manager, check.options)
        except CheckSkipped:
            continue


def check_combiner(name: str, manager: PluginManager | None = None) -> None:
    """Run every combiner check on ``name``; AssertionError on the first failure."""
    _check_all("combiner", name, manager)


def check_scorer(name: str, manager: PluginManager | None = None) -> None:
    """Run every scorer check on ``name``."""
    _check_all("scorer", name, manager)


def check_search(name: str, manager: PluginManager | None = None) -> None:
    """Run every search check on ``name``."""
    _check_all("search", name, manager)


def check_format(name: str, manager: PluginManager | None = None) -> None:
    """Run every format check on ``name``."""
    _check_all("format", name, manager)


def check_backend(name: str, manager: PluginManager | None = None) -> None:
    """Run every backend check on ``name`` (checks needing an engine that is missing are
    skipped)."""
    _check_all("backend", name, manager)
