"""GleanerSRL's MCE table (gleanersrl Fig. 3(b)): test MCE per fold for each run directory,
mean ± sample sd, and the K-fold paired t-test of each run against the first.

    python benchmarks/gleanersrl_table.py runs/gsrl/binned-dot runs/gsrl/boolean-dot ...

Each argument is an ``ilpkit cv`` run directory; the row label is the directory's name.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from ilpkit.core.metrics import paired_t_test
from ilpkit.core.runs import RunDirectory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--metric", default="mce")
    args = parser.parse_args()
    table = {run.name: {u.fold_name: u.metrics.get(args.metric, math.nan)
                        for u in RunDirectory(run).units()} for run in args.runs}  # fmt: skip
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
