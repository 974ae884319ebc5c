"""Learn an Aleph-style theory on a bundled dataset from Python and score its examples.

python examples/learn_theory.py            # trains
python examples/learn_theory.py uwcse      # UW-CSE advisedby (about 20 s)
"""

from __future__ import annotations

import sys

from ilpkit.core.formats import load_task
from ilpkit.core.learner import LearnContext
from ilpkit.core.metrics import auroc, aurpc, pr_points_from_scores
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.core.task import POS
from ilpkit.datasets import bundled_path
from ilpkit.plugins.backends.native.engine import NativeBackend


def main(name: str) -> None:
    task = load_task(bundled_path(name))
    if name == "uwcse":  # the data asks for nodes=500000, i=5: far longer than an example
        for key, value in {
            "i": 2,
            "nodes": 500,
            "clauselength": 4,
            "minpos": 2,
            "minacc": 0.05,
        }.items():
            task.bias.settings.set_value(key, value)
    backend = NativeBackend()
    backend.load(task)
    manager = get_plugin_manager()
    ctx = LearnContext(
        backend=backend,
        make_search=lambda: manager.make("search", "topdown"),
        scorer=manager.make("scorer", "laplace"),
        settings=task.bias.settings,
        seed=0,
    )
    model = manager.make("learner", "theory", {"max_rules": 5}).fit(task, ctx)
    for rule in model.rules():
        print(f"{rule.clause}   TP={rule.tp:g} FP={rule.fp:g} precision={rule.precision:.3f}")
    scores = model.score(backend)
    labels = (task.examples.labels == POS).astype(int)
    print(
        f"{model.clauses_evaluated} clauses evaluated; on the training data: "
        f"AUROC {auroc(scores, labels):.3f}, "
        f"AURPC {aurpc(pr_points_from_scores(scores, labels)):.3f}"
    )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "trains")
