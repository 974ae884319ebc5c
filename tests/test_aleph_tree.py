"""``aleph-tree``: Aleph's classification and class-probability trees (``induce_tree``).

The expected trees of ``tests/data/aleph_tree`` (written for these tests: the data of Aleph's
own ``examples/tree`` comes without a licence to copy it) are those classic Aleph 5
(``aleph_orig.pl``, SWI-Prolog 9.0.4) prints for the same files, variables renamed as Aleph
names them.  The shipped examples themselves are checked when a copy of Aleph's repository is
at ``$ALEPH_DIR`` (default ``/tmp/aleph``), and against a live Aleph run when ``swipl`` is
installed as well.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ilpkit.core.bias_check import unused_settings_warning
from ilpkit.core.formats import load_task
from ilpkit.core.learner import parse_clause
from ilpkit.experiment.api import learn
from ilpkit.experiment.compose import open_named_backend
from ilpkit.plugins.learners.aleph_tree import body_modes_in_determination_order
from ilpkit.plugins.learners.aleph_tree.grow import cost_reduction, entropy, gini
from ilpkit.plugins.learners.aleph_tree.model import AlephTreeModel
from ilpkit.plugins.learners.aleph_tree.prune import (
    ModeLanguage,
    binomial_cdf,
    prune_rule,
    upper_error_rate,
)
from ilpkit.plugins.learners.aleph_tree.refine import AutoRefiner, root_clause, type_constants
from ilpkit.prolog.terms import Clause, Var, to_prolog
from tests.skips import engine_missing

DATA = Path(__file__).parent / "data" / "aleph_tree"
ALEPH = Path(os.environ.get("ALEPH_DIR", "/tmp/aleph"))
SHIPPED = ALEPH / "prolog" / "examples" / "tree"


def flat(text: str) -> str:
    return re.sub(r"\s+", "", text)


def rules_of(model: Any) -> list[str]:
    return [flat(str(c)) for c in model.rule_clauses()]


def training_accuracy(model: Any) -> float:
    (row,) = [r for r in model.info["evaluation"] if r["on"] == "training"]
    return float(row["accuracy"])


# -- impurity and gain, by hand ----------------------------------------------------------------


def test_entropy_and_gini_by_hand() -> None:
    # 3:5 -> -(3/8 log2 3/8 + 5/8 log2 5/8) = 0.375 * 1.415037 + 0.625 * 0.678072
    assert entropy([3, 5]) == pytest.approx(0.954434, abs=1e-6)  # Aleph's transcript
    assert entropy([6, 14]) == pytest.approx(0.881291, abs=1e-6)
    assert entropy([4, 0]) == 0.0 and entropy([]) == 0.0
    assert entropy([1, 1, 1, 1]) == pytest.approx(2.0)
    # Gini: sum_c p_c (1 - p_c) = 2 * 3/8 * 5/8
    assert gini([3, 5]) == pytest.approx(0.46875)
    assert gini([2, 2, 2]) == pytest.approx(2 / 3)


def test_expected_cost_reduction_by_hand() -> None:
    # tree/animals' first candidate: 6 mammals, 14 others; has_gills covers 4 others.
    # 0.881291 - (4 * 0 + 16 * 0.954434) / 20 = 0.881291 - 0.763547
    assert cost_reduction("entropy", [6, 14], [0, 4]) == pytest.approx(0.117744, abs=1e-6)
    # the split Aleph keeps: both children pure, the reduction is the node's entropy
    assert cost_reduction("entropy", [6, 14], [6, 0]) == pytest.approx(0.881291, abs=1e-6)
    # gini, 4:4 split into 3:1 and 1:3: 0.5 - (4 * 0.375 + 4 * 0.375) / 8
    assert cost_reduction("gini", [4, 4], [3, 1]) == pytest.approx(0.125)


# -- C4.5's pessimistic error ------------------------------------------------------------------


def test_upper_error_rate_is_c45_u_cf() -> None:
    # no error: P(X <= 0) = (1 - p)^N = CF, so p = 1 - CF^(1/N) (C4.5 book: U25%(0,6) = 0.206)
    for n in (1, 6, 9, 20):
        assert upper_error_rate(0, n, 0.25) == pytest.approx(1 - 0.25 ** (1 / n), abs=1e-4)
    assert upper_error_rate(0, 6, 0.25) == pytest.approx(0.206, abs=1e-3)
    # one error in six: (1-p)^6 + 6 p (1-p)^5 = 0.25 at p = 0.3895 (0.05177 + 0.19816)
    u = upper_error_rate(1, 6, 0.25)
    assert u == pytest.approx(0.3895, abs=1e-3)
    assert binomial_cdf(6, u, 1) == pytest.approx(0.25, abs=1e-5)
    assert upper_error_rate(3, 3, 0.25) == 1.0 and upper_error_rate(0, 0, 0.25) == 1.0


def _language() -> tuple[Any, ModeLanguage]:
    task = load_task(DATA / "fruit.b")
    head = root_clause(task.bias.modeh[0])
    modes = tuple(task.bias.modeb)
    consts = type_constants(task.program, {p.type for m in modes for p in m.constants()})
    return head, ModeLanguage(head.typed, modes, consts)


def test_pruning_drops_a_literal_that_changes_nothing() -> None:
    head, language = _language()
    a, c = Var("A"), Var("C")
    body = tuple(parse_clause("h(A) :- colour(A,green), weight(A,C), lteq(C,150).").body)
    assert body[1].args == (a, c)

    def counts_of(clause: Clause) -> np.ndarray:
        # dropping colour/2 covers the same 5 examples; anything else covers more errors
        text = flat(", ".join(to_prolog(t) for t in clause.body))
        return np.array([5.0, 0.0]) if text == "weight(A,C),lteq(C,150)" else np.array([5.0, 4])

    pruned = prune_rule(head.head, body, np.array([5.0, 0.0]), 0.25, language, counts_of)
    assert [flat(to_prolog(t)) for t in pruned.body] == ["weight(A,C)", "lteq(C,150)"]
    assert not pruned.changed  # the same estimate: the leaf keeps its examples
    assert pruned.error == pytest.approx(1 - 0.25 ** (1 / 5), abs=1e-4)


def test_pruning_takes_a_lower_estimate_and_keeps_the_mode_language() -> None:
    head, language = _language()
    body = tuple(parse_clause("h(A) :- weight(A,C), lteq(C,150), colour(A,red).").body)
    # lteq(C,150) alone is not in the mode language (C is no longer bound): never tried
    assert not language.linked(body[1:])
    assert language.linked(body[:1] + body[2:])
    tried: list[str] = []

    def counts_of(clause: Clause) -> np.ndarray:
        text = flat(", ".join(to_prolog(t) for t in clause.body))
        tried.append(text)
        # U(1, 3) = 0.61 for the leaf; 1 error in 11 without lteq: U(1, 11) = 0.23
        return np.array([10.0, 1.0]) if text == "weight(A,C),colour(A,red)" else np.array([3, 3])

    pruned = prune_rule(head.head, body, np.array([2.0, 1.0]), 0.25, language, counts_of)
    assert "lteq(C,150),colour(A,red)" not in tried
    assert [flat(to_prolog(t)) for t in pruned.body] == ["weight(A,C)", "colour(A,red)"]
    assert pruned.changed
    assert pruned.error == pytest.approx(upper_error_rate(1, 11, 0.25))
    assert upper_error_rate(1, 11, 0.25) < upper_error_rate(1, 3, 0.25)


# -- the refinement operator -------------------------------------------------------------------


def test_refinements_in_aleph_order_with_lookahead() -> None:
    task = load_task(DATA / "fruit.b")
    modes = body_modes_in_determination_order(task, ("class", 2))
    consts = type_constants(task.program, {"colour", "grams"})
    assert [to_prolog(c) for c in consts["grams"]] == ["100", "120", "150", "180"]
    refiner = AutoRefiner(modes, consts, clauselength=4, lookahead=2)
    got = [flat(", ".join(map(to_prolog, e.literals))) for e in refiner.refinements(
        root_clause(task.bias.modeh[0]))]  # fmt: skip
    # each literal, then its one-literal extensions, depth first; constants from the type
    # facts in file order; lteq needs a grams variable, which only weight/2 introduces
    assert got[:4] == [
        "colour(A,green)",
        "colour(A,green),colour(A,yellow)",
        "colour(A,green),colour(A,red)",
        "colour(A,green),weight(A,C)",
    ]
    assert "weight(A,C),lteq(C,100)" in got and "lteq(C,100)" not in got
    assert "colour(A,green),colour(A,green)" not in got  # an identical literal is skipped
    assert all(e.count("(") <= 3 for e in got)  # clauselength 4: at most 3 body literals


# -- end to end: Aleph's trees -----------------------------------------------------------------

ZOO = [  # classic Aleph 5: induce_tree on tests/data/aleph_tree/zoo
    "class(A,B):-not(has_feathers(A)),lays_eggs(A),B=fish.",
    "class(A,B):-not(has_feathers(A)),lays_eggs(A),B=fish.",
    "class(A,B):-not(lays_eggs(A)),B=mammal.",
    "class(A,B):-has_feathers(A),B=bird.",
]
FRUIT = [  # the same for fruit (a class_probability tree, gini, lookahead 2)
    "class(A,B):-colour(A,green),weight(A,C),lteq(C,150),B=unripe.",
    "class(A,B):-colour(A,green),not((weight(A,C),lteq(C,150))),B=unripe.",
    "class(A,B):-not(colour(A,green)),B=ripe.",
]


def test_zoo_is_alephs_pruned_tree() -> None:
    model = learn(DATA / "zoo.b", learner="aleph-tree")
    assert isinstance(model, AlephTreeModel)
    assert rules_of(model) == ZOO
    # two leaves pruned to the same rule (as Aleph prints them); one more pruned to
    # not(lays_eggs(A)), which mislabels the egg-laying echidna: 14 of 15 (Aleph: 0.9333)
    assert model.info["literals_pruned"] == 3
    assert training_accuracy(model) == pytest.approx(14 / 15)
    text = model.render_aleph()
    assert "[Rule 3] [Pos cover = 6 Neg cover = 0]" in text
    assert "training classes: mammal 6, bird 0, fish 0" in text


def test_fruit_is_alephs_class_probability_tree() -> None:
    model = learn(DATA / "fruit.b", learner="aleph-tree")
    assert rules_of(model) == FRUIT
    # Laplace-corrected leaf distributions, listed in Aleph's order
    text = flat(model.render_aleph())
    assert "random(B,[0.8-unripe,0.2-ripe])" in text
    assert "random(B,[0.5-ripe,0.5-unripe])" in text
    assert "random(B,[0.8888888888888888-ripe,0.1111111111111111-unripe])" in text
    assert training_accuracy(model) == pytest.approx(11 / 12)  # the 1:1 leaf errs once


def test_model_round_trips_and_predicts(tmp_path: Path) -> None:
    out = tmp_path / "zoo.json"
    model = learn(DATA / "zoo.b", learner="aleph-tree", out=out)
    again = AlephTreeModel.from_json(json.loads(out.read_text()))
    assert rules_of(again) == rules_of(model)
    task = load_task(DATA / "zoo.b")
    with open_named_backend("native", None, task, trust_data=False) as engine:
        predicted = again.predict(engine)
        scores = again.score(engine)
    atoms = [str(a) for a in task.examples.atoms]
    assert not predicted[atoms.index("class(echidna,mammal)")]
    assert predicted.sum() == 14
    # the score is the probability the example's rule gives its class
    assert scores[atoms.index("class(echidna,mammal)")] == pytest.approx(1 / 5)
    assert scores[atoms.index("class(cow,mammal)")] == 1.0


def test_tree_settings_are_read_by_aleph_tree_only() -> None:
    task = load_task(DATA / "zoo.b")
    assert unused_settings_warning(task, "aleph-tree") is None
    said = unused_settings_warning(task, "tilde")
    assert said is not None
    for name in ("classes", "confidence", "dependent", "prune_tree", "tree_type"):
        assert name in said
    assert unused_settings_warning(task) is None  # data check: ilpkit reads them


# -- the same tree on every backend --------------------------------------------------------------


def test_native_and_subprocess_backends_grow_the_same_tree() -> None:
    if shutil.which("swipl") is None:
        pytest.skip(engine_missing("swipl"))
    for stem in ("zoo", "fruit"):
        native = learn(DATA / f"{stem}.b", learner="aleph-tree").to_json()
        other = learn(DATA / f"{stem}.b", learner="aleph-tree", backend="subprocess").to_json()
        for model in (native, other):
            model.pop("info")
        assert other == native, stem


def test_a_negation_with_local_variables_on_native_and_subprocess() -> None:
    """``not((weight(A,C), lteq(C,150)))``: C is local to the negation (the native engine
    used to ask for its binding and refuse)."""
    if shutil.which("swipl") is None:
        pytest.skip(engine_missing("swipl"))
    task = load_task(DATA / "fruit.b")
    clause = parse_clause("class(A,B) :- colour(A,green), not((weight(A,C), lteq(C,150))).")
    covered = {}
    for name in ("native", "subprocess"):
        with open_named_backend(name, None, task, trust_data=False) as engine:
            covered[name] = engine.coverage(clause).ids.tolist()
    atoms = [str(task.examples.atoms[e]) for e in covered["native"]]
    assert atoms == ["class(f2,unripe)", "class(f10,ripe)"]
    assert covered["subprocess"] == covered["native"]


# -- Aleph's shipped examples (when a copy of Aleph is at hand) --------------------------------

ANIMALS = [
    "class(A,B):-has_covering(A,hair),B=mammal.",
    "class(A,B):-not(has_covering(A,hair)),B=nmammal.",
]
WEATHER = [  # Aleph 5 cannot extend the failed branch not((outlook(A,rain),windy(A,true)))
    "class(A,B):-outlook(A,rain),windy(A,true),B=dont_play.",
    "class(A,B):-not((outlook(A,rain),windy(A,true))),B=play.",
]
WEATHER_ALEPH4 = [  # examples/tree/typescript (Aleph 4), with extend_negated=always
    "class(A,B):-not((outlook(A,rain),windy(A,true))),outlook(A,sunny),humidity(A,C),"
    "lteq(C,70),B=play.",
    "class(A,B):-not((outlook(A,rain),windy(A,true))),outlook(A,sunny),"
    "not((humidity(A,C),lteq(C,70))),B=dont_play.",
    "class(A,B):-not((outlook(A,rain),windy(A,true))),not(outlook(A,sunny)),B=play.",
    "class(A,B):-outlook(A,rain),windy(A,true),B=dont_play.",
]


def _shipped() -> None:
    if not (SHIPPED / "animals.b").exists():
        pytest.skip(
            f"needs a copy of Aleph's repository at {ALEPH} (set ALEPH_DIR): "
            "git clone https://github.com/friguzzi/aleph"
        )


@pytest.mark.heavy
def test_alephs_shipped_tree_examples() -> None:
    _shipped()
    animals = learn(SHIPPED / "animals.b", learner="aleph-tree")
    assert rules_of(animals) == ANIMALS
    assert training_accuracy(animals) == 1.0
    weather = learn(SHIPPED / "weather.b", learner="aleph-tree")
    assert rules_of(weather) == WEATHER
    assert "random(B,[0.75-dont_play,0.25-play])" in flat(weather.render_aleph())
    assert training_accuracy(weather) == pytest.approx(11 / 14)
    old = learn(
        SHIPPED / "weather.b",
        learner="aleph-tree",
        options={"learner": {"extend_negated": "always"}},
    )
    assert rules_of(old) == WEATHER_ALEPH4
    assert training_accuracy(old) == 1.0


ALEPH_RULE = re.compile(r"\[Rule \d+\][^\n]*\n(class\(A,B\) :-\n(?:   .*\n)+)")


def _aleph_rules(folder: Path, stem: str) -> list[str]:
    proc = subprocess.run(
        ["swipl", "-g",
         f"consult('{ALEPH / 'prolog' / 'aleph_orig.pl'}'), read_all({stem}), induce_tree, halt"],
        capture_output=True, text=True, cwd=folder, timeout=120,
    )  # fmt: skip
    rules = [flat(m) for m in ALEPH_RULE.findall(proc.stdout)]
    # a class-probability rule ends in random(B, Distribution): ilpkit predicts its most
    # probable class, the last of equals in Aleph's listing (as Aleph's majority class)
    out = []
    for r in rules:
        if "random(" not in r:
            out.append(r)
            continue
        pairs = re.findall(r"([0-9.e-]+)-(\w+)", r[r.index("random(") :])
        top = max(float(p) for p, _ in pairs)
        chosen = [c for p, c in pairs if float(p) == top][-1]
        out.append(r[: r.index("random(")] + f"B={chosen}.")
    return out


@pytest.mark.heavy
@pytest.mark.parametrize(
    "folder,stem",
    [(DATA, "zoo"), (DATA, "fruit"), (SHIPPED, "animals"), (SHIPPED, "weather")],
)
def test_the_same_rules_as_a_live_aleph(folder: Path, stem: str) -> None:
    if shutil.which("swipl") is None:
        pytest.skip(engine_missing("swipl"))
    _shipped()
    aleph = _aleph_rules(folder, stem)
    assert aleph, "Aleph printed no theory"
    ours = rules_of(learn(folder / f"{stem}.b", learner="aleph-tree"))
    assert ours == aleph


# -- the learner the data asks for -------------------------------------------------------------


def test_learn_picks_aleph_tree_for_tree_data(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ilpkit.cli.main import app
    from ilpkit.datasets import resolve_data_path
    from ilpkit.experiment.compose import data_learner

    assert data_learner(load_task(DATA / "zoo.b")) == "aleph-tree"
    assert data_learner(load_task(resolve_data_path("trains"))) == "theory"
    task = load_task(DATA / "zoo.b")
    task.bias.settings.set_value("tree_type", "model")  # Aleph's model trees: not this one
    task.bias.settings.set_value("evalfn", "mse")
    assert data_learner(task) == "theory"
    out = tmp_path / "zoo.json"
    result = CliRunner().invoke(app, ["learn", str(DATA / "zoo.b"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "learner aleph-tree" in " ".join(result.output.split())
    assert json.loads(out.read_text())["learner"] == "aleph-tree"
    # a learner named is the learner used: theory refuses the tree evalfn, naming aleph-tree
    result = CliRunner().invoke(app, ["learn", str(DATA / "zoo.b"), "--learner", "theory"])
    assert result.exit_code == 2
    assert "--learner aleph-tree" in " ".join(result.output.split())


def test_what_aleph_tree_refuses() -> None:
    from ilpkit.errors import ConfigError, DataError

    for settings, error, says in (
        ({"mingain": 0}, ConfigError, "mingain must be above 0"),
        ({"tree_type": "regression"}, ConfigError, "regression and model trees"),
        ({"dependent": 1}, DataError, "must be a - output"),
        ({"dependent": 3}, DataError, "must name the class argument"),
    ):
        with pytest.raises(error, match=says):
            learn(DATA / "zoo.b", learner="aleph-tree", settings=settings)
