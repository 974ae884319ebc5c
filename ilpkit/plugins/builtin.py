"""Built-in plugins, registered through the same hook a third-party package implements.

``pyproject.toml`` announces this module in the ``ilpkit.plugins`` entry point group, and
:class:`ilpkit.core.plugins.PluginManager` also registers it by name, so the built-ins are
there when ilpkit runs from a source tree; the manager skips the entry point when it has
already registered the module. To add a built-in, append a row to :data:`DEFERRED` naming
the module and attribute that hold its ``PluginSpec``.

The manager registers :data:`DEFERRED` without calling the hook and imports a plugin's
module only when that plugin is looked up (issue 32: importing all of them cost every
command about 0.2 CPU s). The hook returns the same specs, every module imported, for
whoever calls it through pluggy; ``tests/test_plugins.py`` checks that the two agree.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any, Final

from ilpkit.core.plugins import DeferredSpec, PluginSpec, hookimpl

DEFERRED: Final[tuple[DeferredSpec, ...]] = (
    DeferredSpec("backend", "native", "ilpkit.plugins.backends.native.engine", "SPEC"),
    DeferredSpec(
        "backend", "subprocess", "ilpkit.plugins.backends.prolog.subprocess_backend", "SPEC"
    ),
    DeferredSpec("backend", "swi", "ilpkit.plugins.backends.prolog.swi_backend", "SPEC"),
    DeferredSpec("executor", "local", "ilpkit.plugins.executors.local", "SPEC"),
    DeferredSpec("executor", "processes", "ilpkit.plugins.executors.processes", "SPEC"),
    DeferredSpec("executor", "dask", "ilpkit.plugins.executors.dask_cluster", "SPEC"),
    DeferredSpec("scorer", "coverage", "ilpkit.plugins.scorers.aleph", "SPECS"),
    DeferredSpec("scorer", "compression", "ilpkit.plugins.scorers.aleph", "SPECS"),
    DeferredSpec("scorer", "laplace", "ilpkit.plugins.scorers.aleph", "SPECS"),
    DeferredSpec("scorer", "mestimate", "ilpkit.plugins.scorers.aleph", "SPECS"),
    DeferredSpec("scorer", "auto_m", "ilpkit.plugins.scorers.aleph", "SPECS"),
    DeferredSpec("scorer", "accuracy", "ilpkit.plugins.scorers.aleph", "SPECS"),
    DeferredSpec("scorer", "wracc", "ilpkit.plugins.scorers.aleph", "SPECS"),
    DeferredSpec("scorer", "precision", "ilpkit.plugins.scorers.rates", "SPECS"),
    DeferredSpec("scorer", "recall", "ilpkit.plugins.scorers.rates", "SPECS"),
    DeferredSpec("scorer", "f1", "ilpkit.plugins.scorers.rates", "SPECS"),
    DeferredSpec("scorer", "pr", "ilpkit.plugins.scorers.rates", "SPECS"),
    DeferredSpec("scorer", "foil_gain", "ilpkit.plugins.scorers.foil", "SPECS"),
    DeferredSpec("scorer", "aurpc", "ilpkit.plugins.scorers.ranking", "SPECS"),
    DeferredSpec("scorer", "auroc", "ilpkit.plugins.scorers.ranking", "SPECS"),
    DeferredSpec("scorer", "posonly", "ilpkit.plugins.scorers.posonly", "SPECS"),
    DeferredSpec(
        "scorer", "posonly-unlabeled", "ilpkit.plugins.scorers.posonly_unlabeled", "SPECS"
    ),
    DeferredSpec("search", "topdown", "ilpkit.plugins.search.topdown", "SPECS"),
    DeferredSpec("search", "bf", "ilpkit.plugins.search.topdown", "SPECS"),
    DeferredSpec("search", "hillclimb", "ilpkit.plugins.search.hillclimb", "SPEC"),
    DeferredSpec("search", "rrr", "ilpkit.plugins.search.rrr", "SPEC"),
    DeferredSpec("search", "random-rules", "ilpkit.plugins.search.random_rules", "SPEC"),
    DeferredSpec("search", "directed-rrr", "ilpkit.plugins.search.directed_rrr", "SPEC"),
    DeferredSpec("learner", "theory", "ilpkit.plugins.learners.theory", "SPEC"),
    DeferredSpec("learner", "aleph", "ilpkit.plugins.learners.theory", "ALEPH_SPEC"),
    DeferredSpec("learner", "prankboost", "ilpkit.plugins.learners.boosting", "SPECS"),
    DeferredSpec("learner", "rankboost", "ilpkit.plugins.learners.boosting", "SPECS"),
    DeferredSpec("learner", "gleaner", "ilpkit.plugins.learners.gleaner", "SPEC"),
    DeferredSpec("learner", "aleph-ensemble", "ilpkit.plugins.learners.ensembles", "SPEC"),
    DeferredSpec("learner", "single-theory", "ilpkit.plugins.learners.single_theory", "SPEC"),
    DeferredSpec("learner", "tilde", "ilpkit.plugins.learners.tilde", "SPEC"),
    DeferredSpec("learner", "aleph-tree", "ilpkit.plugins.learners.aleph_tree", "SPEC"),
    DeferredSpec("format", "aleph", "ilpkit.plugins.formats", "SPECS"),
    DeferredSpec("format", "boostsrl", "ilpkit.plugins.formats", "SPECS"),
    DeferredSpec("format", "popper", "ilpkit.plugins.formats", "SPECS"),
    DeferredSpec("learner", "gleanersrl", "ilpkit.plugins.learners.gleanersrl.learner", "SPEC"),
    DeferredSpec("kernel", "dot", "ilpkit.plugins.learners.gleanersrl", "KERNEL_SPECS"),
    DeferredSpec("kernel", "precision", "ilpkit.plugins.learners.gleanersrl", "KERNEL_SPECS"),
    DeferredSpec("kernel", "recall", "ilpkit.plugins.learners.gleanersrl", "KERNEL_SPECS"),
    DeferredSpec("kernel", "both-pos", "ilpkit.plugins.learners.gleanersrl", "KERNEL_SPECS"),
    DeferredSpec("kernel", "info", "ilpkit.plugins.learners.gleanersrl", "KERNEL_SPECS"),
    DeferredSpec("learner", "r4f", "ilpkit.plugins.learners.r4f", "SPEC"),
    DeferredSpec("learner", "static-rf", "ilpkit.plugins.learners.static_rf", "SPEC"),
    DeferredSpec("learner", "pool", "ilpkit.plugins.learners.pool", "SPEC"),
    DeferredSpec("combiner", "gleaner", "ilpkit.plugins.combiners.gleaner", "SPEC"),
    DeferredSpec("combiner", "vote", "ilpkit.plugins.combiners.vote", "SPEC"),
    DeferredSpec("combiner", "weighted", "ilpkit.plugins.combiners.weighted", "SPEC"),
    DeferredSpec("combiner", "rankboost", "ilpkit.plugins.combiners.rankboost", "SPEC"),
    DeferredSpec("combiner", "svm", "ilpkit.plugins.combiners.svm", "SPEC"),
    DeferredSpec("combiner", "forest", "ilpkit.plugins.combiners.forest", "SPEC"),
    DeferredSpec("combiner", "logistic", "ilpkit.plugins.combiners.logistic", "SPEC"),
)
"""Every built-in plugin: its kind and name, and where its spec is defined."""


def load(row: DeferredSpec) -> PluginSpec[Any]:
    """The spec ``row`` names (its module imported)."""
    found = getattr(importlib.import_module(row.module), row.attr)
    specs: Sequence[PluginSpec[Any]] = found if isinstance(found, Sequence) else [found]
    return next(s for s in specs if (s.kind, s.name) == (row.kind, row.name))


@hookimpl
def ilpkit_register_plugins() -> list[PluginSpec[Any]]:
    """The plugins shipped with ilpkit."""
    return [load(row) for row in DEFERRED]
