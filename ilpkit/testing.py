"""A contract suite every learner plugin passes, in the spirit of scikit-learn's
``check_estimator``.

>>> from ilpkit.testing import check_learner
>>> check_learner("theory")                                           # doctest: +SKIP

A third-party package runs it on its own learner (``check_learner("mylearner")``) or, under
pytest, one test per check::

    @pytest.mark.parametrize("check", learner_checks("mylearner"), ids=str)
    def test_contract(check):
        check.run()          # pytest.skip()s when a check cannot run here (no SWI-Prolog)

Each check is small (a learner's declared ``quick_options`` on the bundled ``trains`` data
with a small clause budget) and says what broke in its message:

* ``fit_predict``: ``fit`` gives a model whose ``score``/``predict`` cover every example;
* ``round_trip``: ``to_json`` -> ``model_from_json`` gives the same JSON and the same scores;
* ``explain``: ``rules()`` and :func:`ilpkit.explain` on the data agree on the clauses;
* ``same_seed``: two fits with one seed give the same model;
* ``native_swi``: the same model on the native and the swi backend (skipped without SWI);
* ``refuses_bad_options``: a misspelt option, and a search/scorer the learner declares it
  cannot take, are refused with a :class:`~ilpkit.errors.ConfigError` naming them;
* ``leaves_its_input``: ``fit`` does not change the task it is given;
* ``on_a_subset``: a fit on a subset of the examples (a fold) scores every example;
* ``same_model_on_every_executor``: members run on worker processes give the same model
  (learners with members).

The other plugin kinds have suites of their own (:mod:`ilpkit.contracts`), re-exported here:
``check_backend``, ``check_search``, ``check_scorer``, ``check_combiner``, ``check_format``
and ``plugin_checks(kind, name)`` for one pytest test per check.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ilpkit.contracts import (
    PluginCheck,
    check_backend,
    check_combiner,
    check_format,
    check_scorer,
    check_search,
    plugin_checks,
)
from ilpkit.core.learner import Learner, LearnerCapabilities, Model, capabilities_of
from ilpkit.core.plugins import PluginManager, get_plugin_manager
from ilpkit.core.task import Task
from ilpkit.errors import ConfigError

__all__ = [
    "CheckSkipped",
    "LearnerCheck",
    "PluginCheck",
    "check_backend",
    "check_combiner",
    "check_format",
    "check_learner",
    "check_scorer",
    "check_search",
    "learner_checks",
    "plugin_checks",
]

DATA = "trains"
SETTINGS: Mapping[str, Any] = {"nodes": 20}
"""A clause budget small enough for every check to take about a second."""


class CheckSkipped(Exception):
    """A check that cannot run here (its reason is the message)."""


@dataclass(frozen=True)
class LearnerCheck:
    """One check of one learner; ``run()`` raises AssertionError when the learner fails it."""

    learner: str
    name: str
    fn: Callable[[_Subject], None]
    subject: _Subject

    def __str__(self) -> str:
        return f"{self.learner}-{self.name}"

    def run(self) -> None:
        try:
            self.fn(self.subject)
        except CheckSkipped as skip:
            try:
                import pytest
            except ImportError:  # pragma: no cover - outside pytest the skip propagates
                raise skip from None
            pytest.skip(str(skip))


@dataclass(frozen=True)
class _Subject:
    """The learner under test and how to fit it quickly."""

    name: str
    options: Mapping[str, Any]
    settings: Mapping[str, Any]
    data: str
    manager: PluginManager

    def fit(self, *, seed: int = 0, backend: str = "native") -> Model:
        from ilpkit.experiment.api import learn

        return learn(
            self.data,
            learner=self.name,
            backend=backend,
            settings=self.settings,
            options={"learner": dict(self.options)},
            seed=seed,
        )

    def task(self) -> Task:
        from ilpkit import load_task

        return load_task(self.data)

    def learner(self) -> Learner:
        learner: Learner = self.manager.make("learner", self.name, dict(self.options))
        return learner

    def capabilities(self) -> LearnerCapabilities:
        return capabilities_of(self.learner())


def _canonical(model: Model) -> str:
    """The model's JSON without measured times (``*seconds*`` keys), which no seed fixes."""
    return json.dumps(_without_times(model.to_json()), sort_keys=True)


def _without_times(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _without_times(v) for k, v in data.items() if "second" not in str(k)}
    if isinstance(data, list):
        return [_without_times(v) for v in data]
    return data


def _score(model: Model, task: Task, backend: str = "native") -> tuple[Any, Any]:
    from ilpkit.experiment.api import predict

    result = predict(model, task, backend=backend)
    return result.scores, result.predicted


# --------------------------------------------------------------------------------------------
# The checks
# --------------------------------------------------------------------------------------------


def check_declares(subject: _Subject) -> None:
    learner = subject.learner()
    assert isinstance(learner, Learner), (
        f"learner {subject.name!r} does not follow ilpkit.core.learner.Learner "
        "(name, capabilities, fit, model_from_json)"
    )
    assert "capabilities" in vars(type(learner)) or any(
        "capabilities" in vars(c) for c in type(learner).__mro__[1:-1]
    ), f"learner {subject.name!r} declares no capabilities (LearnerCapabilities)"


def check_fit_predict(subject: _Subject) -> None:
    model = subject.fit()
    task = subject.task()
    n = len(task.examples)
    scores, predicted = _score(model, task)
    assert scores.shape == (n,), f"score() gave shape {scores.shape}, expected ({n},)"
    assert np.all(np.isfinite(scores)), "score() gave a non-finite score"
    assert predicted.shape == (n,) and predicted.dtype == np.bool_, "predict() is not n bools"
    assert model.learner == subject.name, (
        f"the model says learner {model.learner!r}, expected {subject.name!r} (load_model "
        "finds the learner by this name)"
    )
    assert int(model.clauses_evaluated) >= 0


def check_round_trip(subject: _Subject) -> None:
    from ilpkit.core.model_files import load_model, save_model

    model = subject.fit()
    text = json.dumps(model.to_json())
    again = subject.learner().model_from_json(json.loads(text))
    assert _canonical(again) == _canonical(model), "model_from_json(to_json()) changed the model"
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.json"
        save_model(model, path)
        loaded = load_model(path)
    task = subject.task()
    assert np.array_equal(_score(loaded, task)[0], _score(model, task)[0]), (
        "a saved and loaded model scores the examples differently"
    )


def check_explain(subject: _Subject) -> None:
    from ilpkit.experiment.api import explain

    model = subject.fit()
    rules = model.rules()
    on_data = explain(model, subject.task())
    assert [str(r.clause) for r in on_data] == [str(r.clause) for r in rules], (
        "explain(model, data) does not list the model's rules"
    )
    for rule in on_data:
        assert 0.0 <= rule.precision <= 1.0 and 0.0 <= rule.recall <= 1.0


def check_same_seed(subject: _Subject) -> None:
    a, b = subject.fit(seed=7), subject.fit(seed=7)
    assert _canonical(a) == _canonical(b), "two fits with the same seed gave different models"


def check_native_swi(subject: _Subject) -> None:
    spec = subject.manager.get("backend", "swi")
    probe = getattr(spec.factory, "probe", None)
    statuses = probe() if probe is not None else []
    if not any(s.available for s in statuses):
        reasons = "; ".join(s.reason for s in statuses if s.reason) or "not available"
        raise CheckSkipped(f"the swi backend cannot run here: {reasons}")
    native, swi = subject.fit(backend="native"), subject.fit(backend="swi")
    strip = ("info",)
    a = {k: v for k, v in native.to_json().items() if k not in strip}
    b = {k: v for k, v in swi.to_json().items() if k not in strip}
    assert a == b, "the same seed gave different models on the native and swi backends"


def check_refuses_bad_options(subject: _Subject) -> None:
    from ilpkit.experiment.api import learn

    try:
        learn(subject.data, learner=subject.name, options={"learner": {"no_such_option_": 1}})
    except ConfigError as err:
        assert "no_such_option_" in str(err), f"the error does not name the option: {err}"
    else:
        raise AssertionError("a misspelt learner option was accepted")
    caps = subject.capabilities()
    for kind, takes, own in (
        ("search", caps.takes_search, caps.default_search),
        ("scorer", caps.takes_scorer, caps.default_scorer),
    ):
        if takes:
            continue
        other = next(n for n in subject.manager.names(kind) if n != own)  # type: ignore[arg-type]
        try:
            if kind == "search":
                learn(subject.data, learner=subject.name, search=other)
            else:
                learn(subject.data, learner=subject.name, scorer=other)
        except ConfigError as err:
            assert other in str(err), f"the refusal does not name the {kind}: {err}"
        else:
            raise AssertionError(
                f"learner {subject.name!r} declares takes_{kind}=False but accepted "
                f"{kind} {other!r}"
            )


def _fingerprint(task: Task) -> str:
    """What fit must not change: examples (atoms, labels, weights, folds), program, bias."""
    import hashlib

    ex = task.examples
    digest = hashlib.sha256()
    for array in (ex.labels, ex.weights, ex.folds):
        digest.update(np.ascontiguousarray(array).tobytes())
    digest.update("|".join(map(str, ex.atoms)).encode())
    prog = task.program
    digest.update(repr(sorted((k, len(v)) for k, v in prog.facts.items())).encode())
    digest.update(repr(sorted((k, len(v)) for k, v in prog.clauses.items())).encode())
    digest.update(repr(sorted(task.bias.settings.items(), key=str)).encode())
    return digest.hexdigest()


def check_leaves_its_input(subject: _Subject) -> None:
    """``fit`` does not change the task it learns from (a loaded Task is the caller's)."""
    from ilpkit.experiment.api import learn

    task = subject.task()
    before = _fingerprint(task)
    learn(task, learner=subject.name, settings=subject.settings,
          options={"learner": dict(subject.options)})  # fmt: skip
    assert _fingerprint(task) == before, "fit changed the task it was given"


def check_on_a_subset(subject: _Subject) -> None:
    """Fitting on a subset of the training examples (a cross-validation fold) works and
    scores every example."""
    from ilpkit.experiment.compose import Choices, Run, plugin_sections

    task = subject.task()
    labels = task.examples.labels
    pos = np.flatnonzero(labels == 1)
    neg = np.flatnonzero(labels == 0)
    subset = np.sort(np.concatenate([pos[: max(2, len(pos) - 1)], neg[: max(2, len(neg) - 1)]]))
    sections = plugin_sections(
        learner=subject.name, search=None, scorer=None, backend="native", executor="local",
        options={"learner": dict(subject.options)},
    )  # fmt: skip
    choices = Choices.model_validate({**sections, "settings": dict(subject.settings)})
    run = Run.of(choices, task, manager=subject.manager)
    with run.open_backend() as engine:
        model = run.fit(engine, train_ids=subset.astype(np.int64))
        scores = model.score(engine)
    assert scores.shape == (len(task.examples),) and np.all(np.isfinite(scores))


def check_same_model_on_every_executor(subject: _Subject) -> None:
    """A learner with members (seeds, theories) learns the same model when they run on
    worker processes as when they run here."""
    from ilpkit.experiment.api import learn

    if not subject.capabilities().has_members:
        raise CheckSkipped(f"learner {subject.name!r} has no members to run elsewhere")
    here = subject.fit()
    there = learn(
        subject.data,
        learner=subject.name,
        settings=subject.settings,
        options={"learner": dict(subject.options), "executor": {"workers": 2}},
        executor="processes",
    )
    assert _canonical(there) == _canonical(here), "members on worker processes changed the model"


CHECKS: Mapping[str, Callable[[_Subject], None]] = {
    "declares": check_declares,
    "fit_predict": check_fit_predict,
    "round_trip": check_round_trip,
    "explain": check_explain,
    "same_seed": check_same_seed,
    "native_swi": check_native_swi,
    "refuses_bad_options": check_refuses_bad_options,
    "leaves_its_input": check_leaves_its_input,
    "on_a_subset": check_on_a_subset,
    "same_model_on_every_executor": check_same_model_on_every_executor,
}


def learner_checks(
    name: str,
    *,
    options: Mapping[str, Any] | None = None,
    settings: Mapping[str, Any] | None = None,
    data: str = DATA,
    manager: PluginManager | None = None,
) -> list[LearnerCheck]:
    """The checks of learner ``name`` (for pytest parametrisation). ``options`` default to
    the learner's declared ``quick_options``; ``settings`` to a small clause budget."""
    manager = manager or get_plugin_manager()
    manager.get("learner", name)  # an unknown name fails here, with "did you mean"
    if options is None:
        factory = manager.get("learner", name).factory
        caps = capabilities_of(factory) if isinstance(factory, type) else LearnerCapabilities()
        options = dict(caps.quick_options)
    subject = _Subject(
        name, dict(options), dict(SETTINGS if settings is None else settings), data, manager
    )
    return [LearnerCheck(name, check, fn, subject) for check, fn in CHECKS.items()]


def check_learner(
    name: str,
    *,
    options: Mapping[str, Any] | None = None,
    settings: Mapping[str, Any] | None = None,
    data: str = DATA,
    manager: PluginManager | None = None,
) -> dict[str, str]:
    """Run every check on learner ``name``; raise AssertionError at the first failure.

    Returns each check's outcome: ``"passed"`` or ``"skipped: <reason>"``.
    """
    outcome: dict[str, str] = {}
    checks = learner_checks(name, options=options, settings=settings, data=data, manager=manager)
    for check in checks:
        try:
            check.fn(check.subject)
        except CheckSkipped as skip:
            outcome[check.name] = f"skipped: {skip}"
        except AssertionError as err:
            raise AssertionError(f"check_learner({name!r}): {check.name}: {err}") from err
        else:
            outcome[check.name] = "passed"
    return outcome
