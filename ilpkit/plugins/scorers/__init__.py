"""Built-in clause scorers (plugin kind ``"scorer"``): Aleph's evalfns, rates, FOIL gain,
and the ranking objectives of PRankBoost and RankBoost.

Each scorer implements :class:`ilpkit.core.scoring.Scorer` on weighted counts (unweighted
data is weights of 1) and is built by ``get_plugin_manager().make("scorer", name, options)``.
The package imports none of its modules: :mod:`ilpkit.plugins.builtin` names each spec's
module, imported when that scorer is first used (a run uses one scorer, not seven modules).
"""
