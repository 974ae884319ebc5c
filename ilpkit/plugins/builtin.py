"""Built-in plugins, registered through the same hook a third-party package implements.

``pyproject.toml`` announces this module in the ``ilpkit.plugins`` entry point group, and
:class:`ilpkit.core.plugins.PluginManager` also registers it by name, so the built-ins are
there when ilpkit runs from a source tree; the manager skips the entry point when it has
already registered the module. To add a built-in, append its ``PluginSpec`` below.
"""

from __future__ import annotations

from typing import Any

from ilpkit.core.plugins import PluginSpec, hookimpl
from ilpkit.plugins.backends import native, subprocess, swi
from ilpkit.plugins.combiners import SPECS as COMBINER_SPECS
from ilpkit.plugins.executors import dask_cluster, local, processes
from ilpkit.plugins.formats import SPECS as FORMAT_SPECS
from ilpkit.plugins.learners import (
    boosting,
    ensembles,
    gleaner,
    gleanersrl,
    pool,
    r4f,
    single_theory,
    static_rf,
    theory,
    tilde,
)
from ilpkit.plugins.scorers import SPECS as SCORER_SPECS
from ilpkit.plugins.search import directed_rrr, hillclimb, random_rules, rrr, topdown


@hookimpl
def ilpkit_register_plugins() -> list[PluginSpec[Any]]:
    """The plugins shipped with ilpkit."""
    return [
        native.SPEC,
        subprocess.SPEC,
        swi.SPEC,
        local.SPEC,
        processes.SPEC,
        dask_cluster.SPEC,
        *SCORER_SPECS,
        *topdown.SPECS,
        hillclimb.SPEC,
        rrr.SPEC,
        random_rules.SPEC,
        directed_rrr.SPEC,
        theory.SPEC,
        theory.ALEPH_SPEC,
        *boosting.SPECS,
        gleaner.SPEC,
        ensembles.SPEC,
        single_theory.SPEC,
        tilde.SPEC,
        *FORMAT_SPECS,
        gleanersrl.SPEC,
        *gleanersrl.KERNEL_SPECS,
        r4f.SPEC,
        static_rf.SPEC,
        pool.SPEC,
        *COMBINER_SPECS,
    ]
