"""What R4F's random rules cost on Mutagenesis with every mode (ring perception included).

Usage (from the repository root):

    python benchmarks/r4f_rule_cost.py --backends native,swi-pyswip --rules 100

Draws ``--rules`` non-trivial random rules (seed 0, the data's ``i`` and ``clauselength``,
every body mode) and prints, per backend, CPU seconds of this process and its engine children
for

* saturation of the seeds the rules came from;
* coverage of every prefix of every rule through independent parts, each asked once
  (``SplitCoverage``, what R4F does): parts asked, parts reused, parts over the limit;
* coverage of the same prefixes as whole clauses, one ``coverage_many`` call per rule (what R4F
  did before): rules over the backend's resource limit (caught here, counted), and the
  slowest rules.

SWI-Prolog through pyswip or janus runs in this process, so its CPU is ours.  The native
engine keeps answers of rule-defined predicates once computed, so its whole-clause timings
(measured second) are lower than a cold start's; SWI-Prolog keeps none.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import ilpkit  # noqa: E402
from ilpkit.core.plugins import get_plugin_manager  # noqa: E402
from ilpkit.errors import ResourceLimitExceeded  # noqa: E402
from ilpkit.plugins.search.random_rules import RandomRuleGenerator  # noqa: E402

VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "native": ("native", {}),
    "swi-pyswip": ("swi", {"bridge": "pyswip"}),
    "swi-janus": ("swi", {"bridge": "janus"}),
}
"""In-process engines only: a subprocess engine's CPU is not ours until it exits, so its
phases could not be told apart."""


def cpu() -> float:
    """CPU seconds of this process and its waited-for children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure(variant: str, n_rules: int) -> dict[str, Any]:
    name, options = VARIANTS[variant]
    task = ilpkit.load_task("mutagenesis")
    backend = get_plugin_manager().make("backend", name, options)
    backend.load(task)
    train = task.examples.ids.astype(np.int64)
    settings = task.bias.settings
    generator = RandomRuleGenerator(
        backend,
        task.bias,
        train,
        random.Random(0),
        clauselength=int(settings["clauselength"]),
        depth=int(settings["i"]),
    )
    started = cpu()
    rules = [generator.next() for _ in range(n_rules)]
    split_total = cpu() - started
    whole_seconds, whole_over, slowest = 0.0, 0, []
    for rule in rules:
        t = cpu()
        try:
            backend.coverage_many(list(rule.prefixes), generator.among)
        except ResourceLimitExceeded:
            whole_over += 1
        spent = cpu() - t
        whole_seconds += spent
        slowest.append((spent, str(rule.clause)))
    backend.close()
    slowest.sort(reverse=True)
    return {
        "variant": variant,
        "rules": n_rules,
        "saturation": generator.saturation_seconds,
        "seeds": generator.saturated,
        "split": generator.coverage_seconds,
        "split_total": split_total,
        "asked": generator.split.asked,
        "reused": generator.split.reused,
        "parts_over": generator.split.over_limit,
        "rules_over": generator.over_limit,
        "whole": whole_seconds,
        "whole_over": whole_over,
        "slowest": slowest[:3],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backends", default="native,swi-pyswip")
    parser.add_argument("--rules", type=int, default=100)
    args = parser.parse_args()
    rows = [measure(v, args.rules) for v in args.backends.split(",")]
    print(
        "| backend | rules | seeds | saturation CPU s | split coverage CPU s | parts asked / "
        "reused / over limit | rules dropped | whole-clause coverage CPU s | whole clauses "
        "over limit |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['variant']} | {r['rules']} | {r['seeds']} | {r['saturation']:.1f} | "
            f"{r['split']:.1f} | {r['asked']} / {r['reused']} / {r['parts_over']} | "
            f"{r['rules_over']} | {r['whole']:.1f} | {r['whole_over']} |"
        )
    for r in rows:
        print(f"\n{r['variant']}: slowest rules as whole clauses (CPU s)")
        for seconds, clause in r["slowest"]:
            print(f"  {seconds:7.2f}  {clause}")


if __name__ == "__main__":
    main()
