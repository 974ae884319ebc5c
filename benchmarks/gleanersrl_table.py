"""GleanerSRL's MCE table (gleanersrl Fig. 3(b)): test MCE per fold for each run directory,
mean ± sample sd, and the K-fold paired t-test of each run against the first.

    python benchmarks/gleanersrl_table.py runs/gsrl/binned-dot runs/gsrl/boolean-dot ...

Each argument is an ``ilpkit cv`` run directory; the row label is the directory's name.  The
last row, ``prior``, is a reference: every test example gets the tune fold's positive rate
(no model at all).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from ilpkit.core.metrics import mean_cross_entropy, paired_t_test
from ilpkit.core.task import POS
from ilpkit.experiment.cv import load_configured_task, splits
from ilpkit.experiment.runs import RunDirectory


def prior_row(run: Path) -> dict[str, float]:
    """MCE of predicting the tune fold's positive rate for every test example, per fold."""
    config = RunDirectory(run).config()
    task = load_configured_task(config)
    labels = task.examples.labels
    out = {}
    for split in splits(task, config):
        rate = float(np.mean(labels[split.tune] == POS))
        test = labels[split.test]
        probs = np.full(len(test), rate)
        out[split.name] = mean_cross_entropy(probs, test == POS, min(rate, 1 - rate))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--metric", default="mce")
    args = parser.parse_args()
    table = {run.name: {u.fold_name: u.metrics.get(args.metric, math.nan)
                        for u in RunDirectory(run).units()} for run in args.runs}  # fmt: skip
    if args.metric == "mce":
        table["prior"] = prior_row(args.runs[0])
    folds = sorted({f for row in table.values() for f in row})
    first = args.runs[0].name
    print(f"| variant | {' | '.join(folds)} | mean ± sd | t-test vs {first} |")
    print("| --- |" + " --- |" * (len(folds) + 2))
    base = np.array([table[first].get(f, math.nan) for f in folds])
    for name, row in table.items():
        values = np.array([row.get(f, math.nan) for f in folds])
        cells = " | ".join(f"{v:.4f}" for v in values)
        spread = f"{np.nanmean(values):.4f} ± {np.nanstd(values, ddof=1):.4f}"
        test = "-"
        if name != first:
            t = paired_t_test(values, base)
            test = f"t = {t.t:+.2f}, p = {t.p_value:.3f}"
        print(f"| {name} | {cells} | {spread} | {test} |")


if __name__ == "__main__":
    main()
