"""random-rules: legal generation order, what "uniform" means, non-trivial rules, prefix
coverage, determinism, and the search plugin from the command line."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ilpkit
from ilpkit.core.coverage import Coverage
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.core.refine import Refiner
from ilpkit.errors import ConfigError
from ilpkit.plugins.search.random_rules import (
    RandomRuleGenerator,
    draw_rule,
    prefix_clauses,
    restrict_bias,
)
from ilpkit.prolog.terms import indicator


def loaded(name: str) -> tuple[Any, Any]:
    task = ilpkit.load_task(name)
    backend = get_plugin_manager().make("backend", "native", {})
    backend.load(task)
    return task, backend


class RecordingRandom(random.Random):
    """Records every list ``choice`` picks from, to check what each step is uniform over."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.offered: list[list[int]] = []

    def choice(self, seq: Any) -> Any:
        self.offered.append(list(seq))
        return super().choice(seq)


def test_each_literal_is_uniform_over_the_literals_whose_inputs_are_bound() -> None:
    _, backend = loaded("trains")
    bottom = backend.saturate(0, depth=2)
    refiner = Refiner(bottom)
    heads = bottom.head_inputs
    for seed in range(30):
        rng = RecordingRandom(seed)
        order = draw_rule(refiner, rng, 4)
        assert 1 <= len(order) <= 4
        used: list[int] = []
        for step, offered in enumerate(rng.offered):
            # offered = every unused literal whose inputs the head or an earlier-positioned
            # literal already in the rule outputs (the module docstring's definition)
            expected = [
                k
                for k in range(len(bottom))
                if k not in used
                and all(
                    v in heads or any(v in bottom.literals[j].outputs for j in used if j < k)
                    for v in bottom.literals[k].inputs
                )
            ]
            assert offered == expected
            used.append(order[step])
        assert tuple(used) == order
        # every prefix, in generation order, is a legal clause
        for k in range(1, len(order) + 1):
            assert refiner.is_legal(tuple(sorted(order[:k])))


def test_generation_order_is_kept_in_the_prefix_clauses() -> None:
    _, backend = loaded("trains")
    bottom = backend.saturate(0, depth=2)
    order = draw_rule(Refiner(bottom), random.Random(5), 4)
    prefixes = prefix_clauses(bottom, order)
    assert len(prefixes) == len(order)
    for k, clause in enumerate(prefixes, 1):
        expected = [bottom.literals[i].term for i in order[:k]]
        assert len(clause.body) == k
        assert clause.is_variant(type(clause)(bottom.head, tuple(expected)))


def generator(task: Any, backend: Any, seed: int, **kw: Any) -> RandomRuleGenerator:
    train = task.examples.ids
    return RandomRuleGenerator(
        backend, task.bias, train, random.Random(seed), clauselength=5, depth=2, **kw
    )


def test_rules_are_non_trivial_and_prefix_coverage_is_the_prefix_clause_coverage() -> None:
    task, backend = loaded("mutagenesis")
    bias = restrict_bias(task.bias, "atm,bond")
    train = task.examples.ids[::2]  # a training subset: coverage is asked only on it
    gen = RandomRuleGenerator(backend, bias, train, random.Random(1), clauselength=4, depth=2)
    among = Coverage(train, len(task.examples))
    for _ in range(15):
        rule = gen.next()
        assert 0 < len(rule.coverage[-1]) < len(train)
        assert int(rule.seed) in set(train.tolist())
        assert rule.seed in set(rule.coverage[-1].ids.tolist())  # a rule covers its seed
        for clause, cov in zip(rule.prefixes, rule.coverage, strict=True):
            alone = backend.coverage(clause, among)
            np.testing.assert_array_equal(cov.ids, alone.ids)
        # coverage shrinks along the prefixes
        sizes = [len(c) for c in rule.coverage]
        assert sizes == sorted(sizes, reverse=True)
        for clause in rule.prefixes:
            assert {indicator(lit)[0] for lit in clause.body} <= {"atm", "bond"}
    assert gen.kept == 15 and gen.generated >= 15
    assert gen.clauses >= sum(1 for _ in range(15))


def test_the_stream_is_deterministic_given_the_seed() -> None:
    task, backend = loaded("trains")
    a = [str(generator(task, backend, 7).next().clause) for _ in range(1)]
    g1, g2, g3 = (generator(task, backend, s) for s in (7, 7, 8))
    a = [str(g1.next().clause) for _ in range(10)]
    b = [str(g2.next().clause) for _ in range(10)]
    c = [str(g3.next().clause) for _ in range(10)]
    assert a == b and a != c


def test_restrict_bias_names_unknown_predicates() -> None:
    task, _ = loaded("mutagenesis")
    assert [m.name for m in restrict_bias(task.bias, "bond/4").modeb] == ["bond", "bond"]
    assert restrict_bias(task.bias, None) is task.bias
    with pytest.raises(ConfigError, match="no body mode for atom"):
        restrict_bias(task.bias, "atm,atom")


def test_learn_with_the_random_rules_search(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ilpkit.cli.main import app

    out = tmp_path / "m.json"
    args = ["learn", "trains", "--search", "random-rules", "--scorer", "laplace",
            "--set", "nodes=200", "--seed", "2", "--quiet", "--out", str(out)]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    model = json.loads(out.read_text())
    assert model["rules"], "the covering learner kept no random rule"
    again = tmp_path / "again.json"
    result = CliRunner().invoke(app, [*args[:-1], str(again)])
    assert json.loads(again.read_text())["rules"] == model["rules"]  # seeded: same theory


def test_the_generator_stops_at_the_time_limit_and_keeps_no_partial_bottom_clause() -> None:
    from ilpkit.core.split_coverage import backend_memo
    from ilpkit.core.timelimit import clear_stop, request_stop

    task, backend = loaded("trains")
    request_stop("test")
    try:
        cut = backend.saturate(0, depth=2)
        gen = generator(task, backend, 3)
        assert gen.next() is None  # not the BiasError of 1,000 trivial rules
    finally:
        clear_stop()
    assert cut.truncated and len(cut) == 0
    whole = backend.saturate(0, depth=2)
    assert not whole.truncated and len(whole) > 0
    memo = backend_memo(backend)
    assert memo is None or not memo.bottoms  # nothing cut was kept for the next search
    rule = gen.next()  # the limit gone: rules again, from whole bottom clauses
    assert rule is not None and 0 < len(rule.coverage[-1]) < len(task.examples)
