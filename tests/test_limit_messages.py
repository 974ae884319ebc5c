"""A Prolog engine's limit message names the ilpkit option to raise (issue 33): the engines
say ``inference limit of 1000 exceeded``, which names nothing a user can set."""

from __future__ import annotations

import shutil

import pytest

from ilpkit.errors import ResourceLimitExceeded
from ilpkit.plugins.backends.base import limit_hint
from ilpkit.plugins.backends.prolog.subprocess_backend import SubprocessBackend, SubprocessOptions
from ilpkit.prolog.terms import Clause
from tests.reference_prover import require_backends, term
from tests.test_subprocess_backend import task_with_rules


@pytest.mark.parametrize(
    ("text", "option"),
    [
        ("swipl: inference limit of 1000 exceeded", "--set backend.step_limit=N"),
        ("SWI-Prolog: time limit of 2 s exceeded", "--set backend.timeout=SECONDS"),
        ("gprolog: memory limit of 64 MB exceeded", "--set backend.memory_limit_mb=MB"),
    ],
)
def test_each_limit_names_its_option(text: str, option: str) -> None:
    assert option in limit_hint(text)


def test_other_messages_get_no_hint() -> None:
    assert limit_hint("swipl: unknown procedure foo/0") == ""


def test_an_endless_query_on_swipl_names_step_limit() -> None:
    if shutil.which("swipl") is None:
        if require_backends("swipl"):
            pytest.fail("ILPKIT_REQUIRE_BACKENDS lists swipl but it is not on PATH")
        pytest.skip("swipl is not on PATH")
    task = task_with_rules(["spin :- spin"], ["p(a, b)"], ["t(a)"], [])
    backend = SubprocessBackend(SubprocessOptions(engine="swipl", step_limit=1000))
    try:
        backend.load(task)
        with pytest.raises(ResourceLimitExceeded) as caught:
            backend.coverage(Clause.from_term(term("t(A) :- p(A, _), spin")))
    finally:
        backend.close()
    message = str(caught.value)
    assert "inference limit of 1000 exceeded" in message, message
    assert "raise backend.step_limit (--set backend.step_limit=N)" in message, message
