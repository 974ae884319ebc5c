"""The built-in combiners: each the combination step of a published method, taken out of its
learner (:mod:`ilpkit.core.combiner`), plus a logistic-regression baseline.

The package imports none of its modules: :mod:`ilpkit.plugins.builtin` names each spec's
module, imported when that combiner is first used.
"""
