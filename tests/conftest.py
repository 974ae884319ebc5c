"""Fixtures several test files share (each used to build its own copy by hand)."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ilpkit.core.formats import load_task
from ilpkit.core.plugins import PluginManager
from ilpkit.core.task import Task
from ilpkit.datasets import bundled_path
from ilpkit.plugins.backends.native.engine import NativeBackend


def pytest_configure(config: pytest.Config) -> None:
    """Started in the background by a non-interactive shell (``.ci/run &``), this process has
    SIGINT ignored, and every child it starts would inherit that: the tests that send Ctrl-C
    to a child (test_hostile_limits, test_run_lifecycle, test_learn_interrupt) need it to
    arrive as at a terminal, so Ctrl-C gets Python's own handler back here."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def manager() -> PluginManager:
    """A plugin registry of the built-ins only, whatever else is installed here."""
    return PluginManager(entry_points=False)


@pytest.fixture(scope="session")
def bundled() -> Callable[..., tuple[Task, NativeBackend]]:
    """``bundled("uwcse", i=2)``: a bundled dataset with Aleph settings overrides, loaded
    into a native backend."""

    def build(name: str, **settings: Any) -> tuple[Task, NativeBackend]:
        task = load_task(bundled_path(name))
        for key, value in settings.items():
            task.bias.settings.set_value(key, value)
        backend = NativeBackend()
        backend.load(task)
        return task, backend

    return build


# The README's quick command deselects these (`pytest -m "not heavy"`); `pytest -m heavy`
# runs them (.ci/run runs both). Whole modules that drive Prolog engines or compare every
# backend/engine, the sweeps of the public datasets folder (marker shared_data: every
# variant of ../shared/data loaded), and single end-to-end runs measured at over ~1.3 CPU s each
# (`pytest -p` with a getrusage per test, self + children, on a loaded 2-core machine).
HEAVY_MODULES = frozenset(
    {
        "test_backend_agreement.py",
        "test_native_agreement.py",
        "test_swi_backend.py",
        "test_subprocess_backend.py",
        "test_reader_swipl.py",
    }
)
HEAVY_TESTS = frozenset(
    {
        "test_experiment.py::test_uwcse_run_directory_holds_config_units_models_report_plots",
        "test_experiment.py::test_dask_local_cluster_gives_identical_results",
        "test_experiment.py::test_processes_executor_gives_identical_results",
        "test_experiment.py::test_report_plots_every_runs_mean_learning_curve",
        "test_experiment.py::test_report_compares_runs_with_a_paired_t_test",
        "test_synth.py::test_gleaner_ranks_well_and_recovers_planted_rules",
        "test_gleaner.py::test_cv_ships_gleaner_seeds_not_folds_to_the_executor",
        "test_gleaner.py::test_cv_with_seeds_on_worker_processes_matches_local",
        "test_gleaner.py::test_gleaner_cv_on_uwcse_reports_point_aurpc",
        "test_gleaner.py::test_cli_learn_gleaner_with_a_processes_executor_matches_in_process",
        "test_gleaner.py::test_same_model_with_seeds_on_worker_processes",
        "test_gleaner.py::test_cv_reports_each_seed_of_the_units_running_here",
        "test_resolution.py::test_deep_recursion_on_a_10000_list",  # 92 CPU s
        "test_resolution.py::test_throughput_benchmark",  # 39 CPU s
        "test_resolution.py::test_naive_reverse_of_500",  # 25 CPU s
        "test_boosting.py::test_cv_records_hillclimb_and_anytime_curves",
        "test_compose.py::test_cv_cli_api_and_toml_give_the_same_models",
        "test_ensembles.py::test_members_use_their_own_seed_orders_and_executors_agree",
        "test_api.py::test_api_cv_and_run_write_the_same_results",
        "test_single_theory.py::test_single_theory_end_to_end_on_uwcse_with_a_tune_fold",
        "test_gleanersrl.py::test_cv_on_uwcse_gives_calibrated_probabilities",
        "test_gleanersrl.py::test_predict_cli_writes_probabilities",
        "test_gleanersrl.py::test_same_model_on_native_and_swi",
        "test_gleanersrl.py::test_stage1_cache_is_shared_by_variants",
        "test_native_limits.py::test_runaway_ends_cleanly_in_bounded_memory",
        "test_prolog_injection.py::test_shell_anywhere_in_allowed_programs_runs_nothing",
        "test_prolog_injection.py::test_trusted_directives_run_on_every_prolog_engine",
        "test_prolog_memory.py::test_runaways_are_resource_limits_and_the_backend_survives",
        "test_run_lifecycle.py::test_a_killed_worker_ends_a_run_with_how_to_resume_and_resume_matches",
        "test_run_lifecycle.py::test_signals_end_a_processes_run_with_its_workers",
        "test_run_lifecycle.py::test_subprocess_backend_temp_folders_go_on_sigint_and_after_kill_9",
        "test_run_lifecycle.py::test_two_runs_racing_for_one_directory_leave_one_consistent_run",
        "test_tilde.py::test_same_tree_on_native_and_swi",
        "test_r4f_backends.py::test_same_forest_on_native_and_swi",
        "test_r4f.py::test_cv_and_explain_from_the_command_line",
        "test_r4f.py::test_r4f_end_to_end_on_mutagenesis",
        "test_example_plugin.py::test_listed_by_ilpkit_plugins",
        "test_example_plugin.py::test_its_own_tests_pass",
        "test_example_plugin.py::test_its_format_is_detected_and_chosen_by_name",
    }
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the heavy tests (see HEAVY_MODULES and HEAVY_TESTS)."""
    for item in items:
        module = item.path.name
        name = getattr(item, "originalname", item.name)
        sweeps_shared_data = item.get_closest_marker("shared_data") is not None
        if module in HEAVY_MODULES or f"{module}::{name}" in HEAVY_TESTS or sweeps_shared_data:
            item.add_marker(pytest.mark.heavy)


@pytest.fixture
def strict_loading() -> Iterator[None]:
    """Load data strictly (``load_task(strict=True)``): a syntax error in a background or
    mode file refuses the data instead of being skipped with a warning."""
    from ilpkit.core.formats.source import STRICT

    token = STRICT.set(True)
    try:
        yield
    finally:
        STRICT.reset(token)
