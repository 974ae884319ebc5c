"""Every registered learner passes the contract suite (ilpkit.testing): learners added later
are picked up from the plugin registry without a change here."""

from __future__ import annotations

import pytest

from ilpkit.core.plugins import get_plugin_manager
from ilpkit.errors import PluginError
from ilpkit.testing import LearnerCheck, check_learner, learner_checks

SLOW = {"same_model_on_every_executor"}
"""Checks that start worker processes: with the heavy tests."""

CHECKS = [
    pytest.param(check, marks=[pytest.mark.heavy] if check.name in SLOW else [])
    for name in get_plugin_manager().names("learner")
    for check in learner_checks(name)
]


@pytest.mark.parametrize("check", CHECKS, ids=str)
def test_learner_contract(check: LearnerCheck) -> None:
    check.run()


def test_check_learner_reports_every_check_and_rejects_an_unknown_learner() -> None:
    outcome = check_learner("theory")
    assert set(outcome) >= {"fit_predict", "round_trip", "same_seed", "refuses_bad_options"}
    assert all(v == "passed" or v.startswith("skipped: ") for v in outcome.values())
    with pytest.raises(PluginError, match="did you mean 'theory'"):
        check_learner("theroy")


def test_a_broken_learner_fails_the_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite can fail: a learner whose models forget their rules on reload is caught."""
    from ilpkit.plugins.learners.theory import TheoryLearner, TheoryModel

    def lossy(self: TheoryLearner, data: dict) -> TheoryModel:  # type: ignore[type-arg]
        return TheoryModel.from_json({**data, "rules": data["rules"][1:], "found_after": None})

    monkeypatch.setattr(TheoryLearner, "model_from_json", lossy)
    (round_trip,) = [c for c in learner_checks("theory") if c.name == "round_trip"]
    with pytest.raises(AssertionError, match="changed the model"):
        round_trip.run()
