"""GleanerSRL: the learner (``gleanersrl``) and its ``kernel`` plugins (Table 1)."""

from ilpkit.plugins.combiners.kernels import SPECS as KERNEL_SPECS
from ilpkit.plugins.learners.gleanersrl.learner import SPEC, GleanerSRLLearner, GleanerSRLOptions
from ilpkit.plugins.learners.gleanersrl.model import GleanerSRLModel

__all__ = ["KERNEL_SPECS", "SPEC", "GleanerSRLLearner", "GleanerSRLModel", "GleanerSRLOptions"]
