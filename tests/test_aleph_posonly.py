"""Aleph's positive-only evaluation (``set(evalfn, posonly)``; Muggleton, ILP-96).

The scorer ``posonly`` on counts worked out by hand, the random examples drawn from the head
mode's types, their coverage on the native and the SWI-Prolog subprocess backends, and a
whole run on ``tests/data/aleph_posonly`` -- a small task in the shape of Aleph's
posonly/animals example (written for these tests: Aleph's examples carry no licence that
allows copying them). Classic Aleph (``aleph_orig.pl``, SWI-Prolog 9), given ilpkit's random
sample in place of its own, learns the theory pinned below with the same number of clauses
constructed; so it does for seeds 0-29 on this task and on posonly/animals.
"""

from __future__ import annotations

import math
import random
import shutil
from pathlib import Path

import pytest

import ilpkit
from ilpkit.core.bias import Bias, parse_mode
from ilpkit.core.coverage import Counts, Coverage
from ilpkit.core.formats import load_task
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.core.random_examples import RandomSample, generate, type_domain, with_examples
from ilpkit.core.task import NEG
from ilpkit.errors import BiasError, ConfigError
from ilpkit.prolog.reader import read_term
from ilpkit.prolog.terms import Clause, Const, Struct, Var, clause_to_prolog, to_prolog

DATA = Path(__file__).resolve().parent / "data" / "aleph_posonly" / "vehicles.b"


def term(text: str) -> Struct:
    parsed = read_term(text)
    assert isinstance(parsed, Struct)
    return parsed


# --------------------------------------------------------------------------------------------
# The score: ln P - ln((R' + 1) / (|R| + 2)) - L / P
# --------------------------------------------------------------------------------------------


def posonly() -> object:
    return get_plugin_manager().make("scorer", "posonly")


def test_the_score_by_hand() -> None:
    scorer = posonly()
    # P = 4, R' = 1 of |R| = 20, L = 2: ln 4 - ln(2/22) - 2/4 = ln 44 - 0.5
    assert scorer.score(Counts(4, 1, 4, 20), 2) == pytest.approx(3.2841896339, abs=1e-9)
    # P = 6, R' = 0 of 20, L = 1 (no body): ln 6 + ln 22 - 1/6
    assert scorer.score(Counts(6, 0, 9, 20), 1) == pytest.approx(4.7161352559, abs=1e-9)
    # the values of Aleph's own trace of posonly/animals (its typescript): [4/-1.29928] is
    # class(A,bird) covering 4 positives and 5 of 20 random examples: 2.43558
    assert scorer.score(Counts(4, 5, 20, 20), 1) == pytest.approx(2.43558, abs=1e-5)
    assert scorer.score(Counts(4, 0, 20, 20), 2) == pytest.approx(3.97734, abs=1e-5)
    # no positive covered: nothing to score
    assert scorer.score(Counts(0, 3, 4, 20), 2) == -math.inf


def test_the_start_label_charges_one_literal_more() -> None:
    # Aleph's start label [1, 0, 2]: ln 1 + ln 22 - 3 = 0.0910425 (its trace's "best label")
    scorer = posonly()
    assert scorer.label_score(Counts(1, 0, 1, 20), 2) == pytest.approx(0.0910425, abs=1e-7)
    assert scorer.score(Counts(1, 0, 1, 20), 3) == scorer.label_score(Counts(1, 0, 1, 20), 2)


def test_posonly_unlabeled_keeps_the_other_formula() -> None:
    scorer = get_plugin_manager().make("scorer", "posonly-unlabeled")
    # TP 4, FP 1 of N 20, L 2: 4 ln(22/2) - 2
    assert scorer.score(Counts(4, 1, 4, 20), 2) == pytest.approx(4 * math.log(11) - 2)
    assert not getattr(scorer, "random_examples", False)


def test_fewer_random_examples_and_more_positives_score_higher() -> None:
    scorer = posonly()
    assert scorer.score(Counts(4, 0, 4, 20), 2) > scorer.score(Counts(4, 1, 4, 20), 2)
    assert scorer.score(Counts(5, 1, 5, 20), 2) > scorer.score(Counts(4, 1, 5, 20), 2)
    assert scorer.score(Counts(4, 1, 4, 20), 2) > scorer.score(Counts(4, 1, 4, 20), 3)


# --------------------------------------------------------------------------------------------
# The random sample
# --------------------------------------------------------------------------------------------


def native(task: object) -> object:
    backend = get_plugin_manager().make("backend", "native", {})
    backend.load(task)
    return backend


def test_the_sample_respects_the_types_and_size_and_is_seeded() -> None:
    task = load_task(DATA)
    backend = native(task)
    vehicles = set(type_domain("vehicle", backend.answers))
    kinds = set(type_domain("kind", backend.answers))
    assert len(vehicles) == 20 and kinds == {
        Const(k) for k in ("road", "pedal", "boat", "aircraft")
    }
    first = generate(task, ("kind", 2), 500, random.Random(1), backend.answers)
    assert len(first) == 500
    assert all(a.name == "kind" and len(a.args) == 2 for a in first)
    assert {a.args[0] for a in first} == vehicles  # 500 draws reach all 20
    assert {a.args[1] for a in first} == kinds
    assert generate(task, ("kind", 2), 500, random.Random(1), backend.answers) == first
    assert generate(task, ("kind", 2), 500, random.Random(2), backend.answers) != first
    assert generate(task, ("kind", 2), 0, random.Random(1), backend.answers) == []


def test_the_sample_fills_nested_places_and_draws_among_head_modes() -> None:
    task = load_task(DATA)
    bias = Bias()
    bias.modeh.append(parse_mode("modeh", Const(1), term("p(+vehicle, f(#kind), c)")))
    bias.modeh.append(parse_mode("modeh", Const(1), term("p(#count, g, +kind)")))
    from dataclasses import replace

    task2 = replace(task, bias=bias)
    got = generate(task2, ("p", 3), 200, random.Random(0), native(task).answers)
    shapes = {(type(a.args[1]).__name__, to_prolog(a.args[2])[:1]) for a in got}
    assert ("Struct", "c") in shapes  # p(vehicle, f(kind), c)
    assert any(to_prolog(a.args[1]) == "g" for a in got)  # p(count, g, kind)
    assert all(not isinstance(x, Var) for a in got for x in a.args)


def test_the_sample_needs_a_head_mode_and_type_facts() -> None:
    task = load_task(DATA)
    answers = native(task).answers
    with pytest.raises(BiasError, match="modeh"):
        generate(task, ("other", 1), 3, random.Random(0), answers)
    from dataclasses import replace

    bias = Bias()
    bias.modeh.append(parse_mode("modeh", Const(1), term("kind(+spaceship,#kind)")))
    with pytest.raises(BiasError, match="spaceship"):
        generate(replace(task, bias=bias), ("kind", 2), 3, random.Random(0), answers)


def test_the_sample_is_appended_and_the_backend_gets_its_task_back() -> None:
    task = load_task(DATA)
    backend = native(task)
    n = len(task.examples)
    with RandomSample(task, backend, 20, random.Random(0), ("kind", 2)) as sample:
        assert backend.n_examples == n + 20
        assert sample.ids.tolist() == list(range(n, n + 20))
        assert (sample.task.examples.labels[n:] == NEG).all()
        assert sample.task.examples.atoms[:n] == task.examples.atoms
    assert backend.n_examples == n
    assert with_examples(task, []).examples == task.examples


def sample_coverage(backend_name: str, options: dict[str, object]) -> list[list[int]]:
    task = load_task(DATA)
    backend = get_plugin_manager().make("backend", backend_name, options)
    backend.load(task)
    try:
        with RandomSample(task, backend, 60, random.Random(7), ("kind", 2)) as sample:
            among = Coverage(sample.ids, backend.n_examples)
            clauses = [
                Clause(term("kind(A,boat)"), (term("travels(A,water)"),)),
                Clause(term("kind(A,road)"), (term("no_engine(A)"),)),
                Clause(term("kind(A,B)"), (term("has_wheels(A,0)"),)),
                Clause(term("kind(A,aircraft)"), ()),
            ]
            return [c.tolist() for c in backend.coverage_many(clauses, among)]
    finally:
        backend.close()


def test_the_sample_is_covered_alike_on_native_and_swipl() -> None:
    if shutil.which("swipl") is None:
        pytest.skip("swipl is not on PATH (apt-get install -y swi-prolog-nox)")
    on_native = sample_coverage("native", {})
    assert all(on_native) and len(set(map(tuple, on_native))) == 4
    assert sample_coverage("subprocess", {"engine": "swipl"}) == on_native


# --------------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------------

SEED0 = [
    "kind(A,aircraft) :- has_wings(A).",
    "kind(A,road) :- travels(A,land).",
    "kind(A,pedal) :- has_pedals(A).",
    "kind(A,boat) :- has_wheels(A,0).",
    "kind(A,aircraft).",
]
"""What classic Aleph learns from vehicles.b with ilpkit's seed-0 sample (23 clauses)."""


def test_the_aleph_learner_learns_alephs_theory_from_positives_alone() -> None:
    model = ilpkit.learn(DATA, learner="aleph", seed=0)
    assert [clause_to_prolog(r.clause) for r in model.rules()] == SEED0
    assert model.clauses_evaluated == 23
    assert model.info["random_examples"] == 20
    assert model.info["random_covered"] == [1, 0, 1, 2, 7]  # Aleph's "Rand cover" too
    # every positive covered; the rules' FP are of the (absent) negatives, not the sample
    assert [r.fp for r in model.rules()] == [0] * 5
    assert sum(r.tp for r in model.rules()) >= 20


def test_the_run_is_reproducible_and_the_seed_draws_the_sample() -> None:
    again = ilpkit.learn(DATA, learner="aleph", seed=0)
    assert [clause_to_prolog(r.clause) for r in again.rules()] == SEED0
    other = ilpkit.learn(DATA, learner="aleph", seed=1)
    # seed 1 (Aleph agrees with its sample too): 4 rules, 19 clauses
    assert [clause_to_prolog(r.clause) for r in other.rules()] == [
        "kind(A,aircraft) :- travels(A,air).",
        "kind(A,road) :- has_engine(A).",
        "kind(A,pedal) :- has_pedals(A).",
        "kind(A,boat) :- travels(A,water).",
    ]
    assert other.clauses_evaluated == 19


def test_gsamplesize_and_negatives(tmp_path: Path) -> None:
    # a larger sample is drawn when asked; negatives change nothing (Aleph ignores them)
    folder = tmp_path / "v"
    shutil.copytree(DATA.parent, folder)
    (folder / "vehicles.n").write_text("kind(car,boat).\nkind(jet,road).\n")
    model = ilpkit.learn(
        folder / "vehicles.b", learner="aleph", seed=0, settings={"gsamplesize": 50}
    )
    assert model.info["random_examples"] == 50
    base = ilpkit.learn(folder / "vehicles.b", learner="aleph", seed=0)
    assert [clause_to_prolog(r.clause) for r in base.rules()] == SEED0


def test_a_learner_that_draws_no_sample_refuses_posonly() -> None:
    with pytest.raises(ConfigError, match="random examples"):
        ilpkit.learn(DATA, learner="gleaner", scorer="posonly", seed=0)


def test_the_theory_learner_takes_the_datas_evalfn_and_minpos() -> None:
    model = ilpkit.learn(DATA, learner="theory", seed=0, settings={"minpos": 3})
    assert model.rules() and all(r.tp >= 3 for r in model.rules())
    assert all(len(r.clause.body) <= 1 for r in model.rules())  # clauselength 2


def test_the_theory_is_the_same_on_swipl() -> None:
    if shutil.which("swipl") is None:
        pytest.skip("swipl is not on PATH (apt-get install -y swi-prolog-nox)")
    model = ilpkit.learn(DATA, learner="aleph", seed=0, backend="subprocess")
    assert [clause_to_prolog(r.clause) for r in model.rules()] == SEED0
    assert model.clauses_evaluated == 23
