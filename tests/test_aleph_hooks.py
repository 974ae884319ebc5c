"""Aleph's hooks in the background (issue 33): ``prune/1`` and ``false/0`` honoured by the
theory and aleph learners on every backend, ``refine/2`` and ``cost/3`` refused when Aleph
would call them, each hook listed by ``data check`` and said once by ``learn``.

The task: positives p(a), p(b); negatives p(c), p(d); q holds of a, b; r of a, b, c; s of
a, b, d. Without hooks the one consistent clause of length 2 is ``p(A) :- q(A)``; without
``q`` the only consistent clause is ``p(A) :- r(A), s(A)`` (r alone covers c, s alone d).
The expected theories below follow from the Aleph manual's semantics of the hooks (and are
what classic Aleph 5 learns from the same files).
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ilpkit
from ilpkit.cli.main import app
from ilpkit.core.aleph_hooks import HookGate, defined_hooks, without_hooks
from ilpkit.core.formats import load_task
from ilpkit.prolog.terms import clause_to_prolog
from tests.skips import engine_missing

runner = CliRunner()

BASE = """\
:- modeh(1, p(+t)).
:- modeb(1, q(+t)).
:- modeb(1, r(+t)).
:- modeb(1, s(+t)).
:- determination(p/1, q/1).
:- determination(p/1, r/1).
:- determination(p/1, s/1).
q(a). q(b).
r(a). r(b). r(c).
s(a). s(b). s(d).
in_body(L, (L, _)).
in_body(L, (_, B)) :- in_body(L, B).
in_body(L, L).
"""

HOOKS = {
    "none": "",
    # no clause with q, nor any refinement of one
    "prune_q": "prune((p(_) :- Body)) :- in_body(q(_), Body).\n",
    # no acceptable clause with q (such clauses are still refined)
    "false_q": "false :- hypothesis(_, Body, _), in_body(q(_), Body).\n",
    # acceptable clauses have two body literals at least (clauses are refined to them)
    "false_short": "false :- hypothesis(_, Body, _), Body \\= (_, _).\n",
    # the same through the label [P, N, L]: L counts the head
    "false_label": "false :- hypothesis(_, _, [_, _, L]), L < 3.\n",
    # every clause under two body literals pruned: the empty clause first, so all clauses
    "prune_short": "prune((_ :- Body)) :- Body \\= (_, _).\n",
    # a cut in a constraint's clause cuts its later clauses, as in Prolog: only the
    # empty-bodied clause violates
    "false_cut": "false :- hypothesis(_, B, _), B \\= true, !, fail.\nfalse.\n",
    # a constraint on the target, which the background does not define: it fails (no
    # clause is refused) on every backend, as a mode predicate without clauses does
    "false_target": "false :- p(X), q(X).\n",
}

RS = ["p(A) :- r(A), s(A)."]
EXPECTED = {
    "none": ["p(A) :- q(A)."],
    "prune_q": RS,
    "false_q": RS,
    "false_cut": ["p(A) :- q(A)."],
    "false_target": ["p(A) :- q(A)."],
}


def _task(folder: Path, variant: str, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "t.b").write_text(BASE + extra + HOOKS[variant])
    (folder / "t.f").write_text("p(a).\np(b).\n")
    (folder / "t.n").write_text("p(c).\np(d).\n")
    return folder / "t"


def _rules(path: Path, learner: str, backend: str = "native", **options: object) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = ilpkit.learn(
            path, learner=learner, backend=backend, options={"backend": options}, evaluate=False
        )
    return [clause_to_prolog(r.clause) for r in model.rules()]


def _check(variant: str, learner: str, rules: list[str]) -> None:
    if variant in EXPECTED:
        assert rules == EXPECTED[variant]
    elif variant in ("false_short", "false_label"):
        # one clause of two body literals covering both positives and no negative: any
        # two of q, r, s
        assert len(rules) == 1 and rules[0].count("(A)") == 3, rules
    elif variant == "prune_short":
        # no clause survives; Aleph's induce keeps each seed as a ground fact
        assert rules == (["p(a).", "p(b)."] if learner == "aleph" else []), rules
    else:
        raise AssertionError(variant)


@pytest.mark.parametrize("learner", ["aleph", "theory"])
@pytest.mark.parametrize("variant", sorted(HOOKS))
def test_prune_and_false_change_what_is_learnt(tmp_path: Path, variant: str, learner: str) -> None:
    _check(variant, learner, _rules(_task(tmp_path, variant), learner))


ENGINES = [
    pytest.param("subprocess", {"engine": "swipl"}, "swipl", id="swipl"),
    pytest.param("subprocess", {"engine": "gprolog"}, "gprolog", id="gprolog"),
]
VARIANTS = ["prune_q", "false_q", "false_short", "false_cut", "false_target"]


@pytest.mark.parametrize(("backend", "options", "exe"), ENGINES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_backend_gives_the_same_theory(
    tmp_path: Path, variant: str, backend: str, options: dict[str, str], exe: str
) -> None:
    if shutil.which(exe) is None:
        pytest.skip(engine_missing(exe))
    path = _task(tmp_path, variant)
    expected = _rules(path, "aleph")
    _check(variant, "aleph", expected)
    assert _rules(path, "aleph", backend, **options) == expected


@pytest.mark.heavy  # 5 learn runs in a child each: ~9 s
@pytest.mark.parametrize("bridge", ["janus", "pyswip"])
def test_swi_in_process_gives_the_same_theories(tmp_path: Path, bridge: str) -> None:
    # SWI-Prolog in the process: one bridge a process, so each runs in a child
    import subprocess
    import sys

    from ilpkit.core.model_files import load_model
    from tests.test_swi_backend import ROOT, bridge_available, bridge_env

    bridge_available(bridge)
    for variant in VARIANTS:
        path = _task(tmp_path / variant, variant)
        out = tmp_path / f"{variant}.json"
        command = [
            sys.executable, "-m", "ilpkit", "learn", str(path), "-q", "--learner", "aleph",
            "--backend", "swi", "--set", f"backend.bridge={bridge}", "-o", str(out),
        ]  # fmt: skip
        proc = subprocess.run(
            command, capture_output=True, text=True, cwd=ROOT, env=bridge_env(bridge), timeout=300
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        got = [clause_to_prolog(r.clause) for r in load_model(out).rules()]
        assert got == _rules(path, "aleph"), variant


def test_the_gate_answers_prune_and_false_through_the_backend(tmp_path: Path) -> None:
    from ilpkit.core.coverage import Counts
    from ilpkit.core.learner import parse_clause
    from ilpkit.plugins.backends.native.engine import NativeBackend

    task = load_task(_task(tmp_path, "prune_q", HOOKS["false_label"]))
    backend = NativeBackend()
    backend.load(task)
    gate = HookGate.of(backend, task)
    assert gate is not None
    counts = Counts(2.0, 0.0, 2.0, 2.0)
    assert gate.pruned(parse_clause("p(A) :- r(A), q(A)."))
    assert not gate.pruned(parse_clause("p(A) :- r(A), s(A)."))
    assert gate.violated(parse_clause("p(A) :- r(A), s(A)."), counts, 2)  # L < 3
    assert not gate.violated(parse_clause("p(A) :- r(A), s(A)."), counts, 3)


def test_learn_says_once_what_happens_to_the_hooks(tmp_path: Path) -> None:
    path = str(_task(tmp_path, "prune_q", HOOKS["false_q"]))
    result = runner.invoke(app, ["learn", path, "--learner", "aleph", "-q"])
    assert result.exit_code == 0, result.output
    said = [line for line in result.output.splitlines() if "Aleph hooks" in line]
    assert len(said) == 1, result.output
    assert "prune/1 (" in said[0] and "t.b:15:1) and false/0 (" in said[0]
    assert "honoured by learner aleph with search bf" in said[0]


def test_the_python_api_warns_with_the_same_line(tmp_path: Path) -> None:
    with pytest.warns(UserWarning, match=r"prune/1 \(.*t\.b:14:1\) honoured by learner theory"):
        ilpkit.learn(_task(tmp_path, "prune_q"), evaluate=False)


def test_data_check_lists_every_hook(tmp_path: Path) -> None:
    extra = ":- set(refine, user).\nrefine(false, p(_)).\ncost(_, _, 0).\n"
    path = str(_task(tmp_path, "prune_q", extra))
    result = runner.invoke(app, ["data", "check", path])
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if "Aleph hooks" in x)
    assert "prune/1 (" in line and "honoured by learner aleph or theory with search bf" in line
    assert "refine/2 (" in line and "t.b:15:1): refused" in line
    assert (
        "cost/3 (" in line and "t.b:16:1) not used (Aleph calls it only with evalfn=user)" in line
    )


def test_user_refine_is_refused_with_its_line_and_the_way_on(tmp_path: Path) -> None:
    path = str(_task(tmp_path, "none", ":- set(refine, user).\nrefine(false, p(_)).\n"))
    result = runner.invoke(app, ["learn", path, "--learner", "aleph", "-q"])
    assert result.exit_code == 2, result.output
    assert "t.b:15:1: refine/2: Aleph's user refinement operator" in result.output
    assert "--set data.aleph_hooks=ignore" in result.output
    ok = runner.invoke(
        app, ["learn", path, "--learner", "aleph", "--set", "data.aleph_hooks=ignore"]
    )
    assert ok.exit_code == 0, ok.output
    assert "Aleph hooks ignored (data.aleph_hooks=ignore): refine/2 (" in ok.output
    assert "p(A) :- q(A)." in ok.output


def test_refine_and_cost_without_their_settings_are_only_said_unused(tmp_path: Path) -> None:
    # Aleph calls refine/2 only with set(refine, user) and cost/3 only with evalfn=user
    path = str(_task(tmp_path, "none", "refine(false, p(_)).\ncost(_, _, 0).\n"))
    result = runner.invoke(app, ["learn", path, "--learner", "aleph", "-q"])
    assert result.exit_code == 0, result.output
    assert "refine/2 (" in result.output and "not used (Aleph calls it only with set(" in (
        result.output
    )


def test_user_cost_is_said_unused_when_a_scorer_stands_in(tmp_path: Path) -> None:
    path = str(_task(tmp_path, "none", ":- set(evalfn, user).\ncost(_, _, 0).\n"))
    result = runner.invoke(app, ["learn", path, "--learner", "aleph", "-q"])
    assert result.exit_code == 2, result.output  # evalfn=user: no scorer for it
    result = runner.invoke(app, ["learn", path, "--learner", "aleph", "--scorer", "coverage"])
    assert result.exit_code == 0, result.output
    assert "not used (scorer coverage stands in for evalfn=user)" in result.output


@pytest.mark.parametrize(
    ("variant", "args", "who"),
    [
        ("prune_q", ["--learner", "gleaner"], "learner gleaner with search rrr"),
        ("false_q", ["--search", "rrr"], "learner theory with search rrr"),
    ],
)
def test_a_run_that_cannot_honour_prune_or_false_is_refused(
    tmp_path: Path, variant: str, args: list[str], who: str
) -> None:
    path = str(_task(tmp_path, variant))
    result = runner.invoke(app, ["learn", path, "-q", *args])
    assert result.exit_code == 2, result.output
    assert "t.b:14:1: " in result.output and f"{who} does not honour it" in result.output
    ok = runner.invoke(app, ["learn", path, "-q", *args, "--set", "data.aleph_hooks=ignore"])
    assert ok.exit_code == 0, ok.output


def test_ignore_learns_as_if_the_data_had_no_hooks(tmp_path: Path) -> None:
    path = _task(tmp_path, "prune_q", HOOKS["false_q"])
    task = load_task(path)
    assert [h.key for h in defined_hooks(task)] == [("prune", 1), ("false", 0)]
    assert defined_hooks(without_hooks(task)) == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = ilpkit.learn(path, options={"data": {"aleph_hooks": "ignore"}}, evaluate=False)
    assert [clause_to_prolog(r.clause) for r in model.rules()] == EXPECTED["none"]


def test_hypothesis_outside_a_goal_of_false_is_refused(tmp_path: Path) -> None:
    from ilpkit.errors import DataError

    task = load_task(_task(tmp_path, "none", "false :- X = hypothesis(_, _, _), X == a.\n"))
    with pytest.raises(DataError, match=r"t\.b:14:1: hypothesis/3 is answered"):
        HookGate(None, task)


def test_cv_says_it_once_and_refuses_as_learn_does(tmp_path: Path) -> None:
    path = str(_task(tmp_path / "data", "prune_q"))
    args = ["cv", path, "--folds", "2", "-q"]
    result = runner.invoke(app, [*args, "--learner", "aleph", "--out", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    said = [line for line in result.output.splitlines() if "Aleph hooks" in line]
    assert len(said) == 1 and "honoured by learner aleph with search bf" in said[0], said
    result = runner.invoke(app, [*args, "--learner", "gleaner", "--out", str(tmp_path / "g")])
    assert result.exit_code == 2, result.output
    assert "t.b:14:1: prune/1" in result.output
