"""The PU experiment of ticer-pu-relational.txt (Figures 1 and 2) on the four tasks.

For each task (``benchmarks/pu_tasks.py`` builds them), each label frequency c in
{0.1, 0.3, 0.5, 0.7, 0.9} and ``--labelings`` PU labelings (5 in the paper), cross-validates
PU classifiers with ``ilpkit cv``'s PU labeling (train folds relabeled, test folds true); the
first four by default (``--classifiers``):

* ``ticer``:    TILDE, probabilities divided by TIcER's estimate of c;
* ``true-c``:   TILDE, probabilities divided by the true c;
* ``c=1``:      TILDE, unlabeled examples taken as negative, no adjustment;
* ``posonly``:  Aleph-style covering (``theory``, topdown) with Muggleton's positive-only
                score over the unlabeled examples as the random sample (scorer
                ``posonly-unlabeled``), at least 2 positives a rule;
* ``aleph-posonly``: the same covering with Aleph's ``evalfn(posonly)`` (scorer ``posonly``):
                its random sample drawn from the head type's facts, the unlabeled examples
                ignored, at least 2 positives a rule (the paper's baseline).

It prints F1 (mean over folds and labelings) per task, c and classifier, TIcER's mean absolute
error of c, and writes Figure 1 (F1 vs c) and Figure 2 (|c_hat - c| vs c) as PNGs.  Runs are
kept under ``--root`` and reused when present (rerun to resume).

    python benchmarks/pu_tasks.py
    python benchmarks/bench_pu.py --root runs/pu-exp --labelings 5 --plots docs/img
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

import ilpkit
from ilpkit.core.degenerate import PU_NO_LABELED_POSITIVE

ROOT = Path(__file__).resolve().parents[1]
TASKS = {
    "imdb": 5,
    "mutagenesis": 5,
    "uwcse": None,
    "webkb": None,
    "imdb-director": 5,
    "mutagenesis-inactive": 5,
    "uwcse-professor": None,
    "webkb-nonfaculty": None,
}
"""Task -> stratified folds (None: the task's own grouped folds); the last four are the first
four with their classes swapped (the paper labels either class positive)."""
DEFAULT_TASKS = "imdb,mutagenesis,uwcse,webkb"
FREQUENCIES = (0.1, 0.3, 0.5, 0.7, 0.9)
CLASSIFIERS: dict[str, dict[str, Any]] = {
    "ticer": {"learner": "tilde", "options": {"learner": {"c": "ticer"}}},
    "true-c": {"learner": "tilde", "options": {"learner": {"c": "true"}}},
    "c=1": {"learner": "tilde", "options": {"learner": {"c": 1.0}}},
    "posonly": {
        "learner": "theory",
        "search": "topdown",
        "scorer": "posonly-unlabeled",
        "options": {"learner": {"unlabeled": "negative", "max_rules": 10}},
        "settings": {"noise": 1_000_000, "minpos": 2, "minacc": 0.0, "nodes": 1000},
    },
    "aleph-posonly": {
        "learner": "theory",
        "search": "topdown",
        "scorer": "posonly",
        "options": {"learner": {"max_rules": 10}},
        "settings": {"minpos": 2, "nodes": 1000},
    },
}
DEFAULT_CLASSIFIERS = "ticer,true-c,c=1,posonly"


def run_one(
    data: Path, out: Path, task: str, c: float, labelings: int, how: dict[str, Any]
) -> dict[str, Any]:
    if not (out / "results.json").exists():
        ilpkit.cv(
            data / task,
            out=out,
            learner=how["learner"],
            search=how.get("search"),  # None: the learner's own (TILDE takes no search)
            scorer=how.get("scorer"),
            folds=TASKS[task],
            pu_label_frequency=c,
            pu_labelings=labelings,
            settings=how.get("settings"),
            options=how.get("options"),
            resume=out.exists(),
        )
    results: dict[str, Any] = json.loads((out / "results.json").read_text())
    return results


def c_estimates(out: Path) -> list[float]:
    """TIcER's estimates of c, one per unit that learned (a unit with no labeled training
    positive has the empty theory, no estimate: counted by :func:`unlabeled_units`)."""
    models = [json.loads(p.read_text()) for p in sorted((out / "models").glob("*.json"))]
    return [float(m["c"]) for m in models if "c" in m]


def unlabeled_units(results: dict[str, Any]) -> int:
    """Units whose PU labeling left no labeled training positive (scored as the empty
    theory, in the F1 means)."""
    return len(results.get("degenerate", {}).get(PU_NO_LABELED_POSITIVE, []))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "runs" / "pu-data")
    parser.add_argument("--root", type=Path, default=ROOT / "runs" / "pu-exp")
    parser.add_argument("--labelings", type=int, default=5)
    parser.add_argument("--tasks", default=DEFAULT_TASKS, help=f"any of {','.join(TASKS)}")
    parser.add_argument(
        "--classifiers", default=DEFAULT_CLASSIFIERS, help=f"any of {','.join(CLASSIFIERS)}"
    )
    parser.add_argument("--plots", type=Path, default=None, help="Folder for the two PNGs.")
    args = parser.parse_args()
    tasks = args.tasks.split(",")
    names = args.classifiers.split(",")
    unknown = [n for n in tasks if n not in TASKS] + [n for n in names if n not in CLASSIFIERS]
    if unknown:
        parser.error(f"unknown task or classifier: {', '.join(unknown)}")
    f1: dict[tuple[str, float, str], tuple[float, float]] = {}
    err: dict[tuple[str, float], tuple[float, float]] = {}
    seconds: dict[str, float] = {}
    empty: dict[tuple[str, float], int] = {}
    for task in tasks:
        started = time.process_time()
        for c in FREQUENCIES:
            for name in names:
                how = CLASSIFIERS[name]
                out = args.root / task / f"c{c}" / name
                results = run_one(args.data, out, task, c, args.labelings, how)
                values = [u["metrics"]["f1"] for u in results["units"]]
                f1[(task, c, name)] = (float(np.mean(values)), float(np.std(values)))
                empty[(task, c)] = unlabeled_units(results)
                if name == "ticer":
                    errors = [abs(x - c) for x in c_estimates(out)]
                    err[(task, c)] = (float(np.mean(errors)), float(np.std(errors)))
            print(f"{task} c={c} done", flush=True)
        seconds[task] = time.process_time() - started
    print_tables(tasks, names, f1, err, seconds)
    print_unlabeled(empty, args.labelings)
    if args.plots is not None:
        plot(tasks, names, f1, err, args.plots)


def print_tables(
    tasks: list[str],
    names: list[str],
    f1: dict[tuple[str, float, str], tuple[float, float]],
    err: dict[tuple[str, float], tuple[float, float]],
    seconds: dict[str, float],
) -> None:
    print("\nF1 (mean ± sd over folds x labelings)\n")
    print("| task | c | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for task in tasks:
        for c in FREQUENCIES:
            cells = [f"{f1[(task, c, n)][0]:.3f} ± {f1[(task, c, n)][1]:.3f}" for n in names]
            print(f"| {task} | {c} | " + " | ".join(cells) + " |")
    if not err:
        return
    print("\nTIcER: mean absolute error of c (± sd over folds x labelings)\n")
    print("| task | " + " | ".join(f"c={c}" for c in FREQUENCIES) + " | mean | CPU s (all runs) |")
    print("|---|" + "---|" * (len(FREQUENCIES) + 2))
    for task in tasks:
        cells = [f"{err[(task, c)][0]:.3f} ± {err[(task, c)][1]:.3f}" for c in FREQUENCIES]
        mean = np.mean([err[(task, c)][0] for c in FREQUENCIES])
        print(f"| {task} | " + " | ".join(cells) + f" | {mean:.3f} | {seconds[task]:.0f} |")


def print_unlabeled(empty: dict[tuple[str, float], int], labelings: int) -> None:
    """Which (task, c) had units with no labeled training positive (the same labelings for
    every classifier: the draw depends on the seed, not the learner)."""
    hit = {k: v for k, v in empty.items() if v}
    if not hit:
        return
    print(
        f"\nUnits whose labeling left no labeled training positive ({labelings} labelings "
        "per fold; scored as the empty theory, every example negative)\n"
    )
    print("| task | c | units |")
    print("|---|---|---|")
    for (task, c), n in sorted(hit.items()):
        print(f"| {task} | {c} | {n} |")


def plot(
    tasks: list[str],
    names: list[str],
    f1: dict[tuple[str, float, str], tuple[float, float]],
    err: dict[tuple[str, float], tuple[float, float]],
    folder: Path,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, len(tasks), figsize=(3.6 * len(tasks), 3.2), sharey=True)
    for ax, task in zip(np.atleast_1d(axes), tasks, strict=True):
        for name in names:
            ys = [f1[(task, c, name)][0] for c in FREQUENCIES]
            ax.plot(FREQUENCIES, ys, marker="o", label=name)
        ax.set_title(task)
        ax.set_xlabel("label frequency c")
        ax.set_xticks(FREQUENCIES)
        ax.grid(alpha=0.3)
    np.atleast_1d(axes)[0].set_ylabel("F1")
    np.atleast_1d(axes)[-1].legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(folder / "pu-f1.png", dpi=120)
    plt.close(fig)
    if not err:
        return
    fig, ax = plt.subplots(figsize=(5, 3.4))
    for task in tasks:
        ax.errorbar(
            FREQUENCIES,
            [err[(task, c)][0] for c in FREQUENCIES],
            yerr=[err[(task, c)][1] for c in FREQUENCIES],
            marker="o",
            capsize=3,
            label=task,
        )
    ax.set_xlabel("label frequency c")
    ax.set_ylabel("|TIcER estimate - c|")
    ax.set_xticks(FREQUENCIES)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(folder / "pu-c-error.png", dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
