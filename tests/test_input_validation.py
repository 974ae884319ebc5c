"""Bad input gets an ilpkit error naming file:line (or the option), never a traceback, and
numeric settings and backend options are range-checked (issue 21, items 6 and 7)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ilpkit.core.bias import MAX_I, Settings
from ilpkit.core.formats import load_task
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.errors import BiasError, ConfigError, DataError
from ilpkit.experiment.config import MAX_TOML_DEPTH, apply_overrides, load_config, parse_value
from ilpkit.plugins.backends.native.engine import NativeOptions
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import Const

ROOT = Path(__file__).resolve().parents[1]

BIAS = ":- modeh(1, p(+a)).\n:- modeb(*, q(+a, -a)).\n"


def aleph(tmp_path: Path, b: str = BIAS, f: str = "p(x).\n", n: str = "p(y).\n") -> Path:
    (tmp_path / "t.b").write_text(b + "q(x, y).\n")
    (tmp_path / "t.f").write_text(f)
    (tmp_path / "t.n").write_text(n)
    return tmp_path


# -- examples and modes ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("example", "what"),
    [("1.", "a number"), ("2.5.", "a number"), ('"abc".', "not an atom"), ("[].", "not an atom")],
)
def test_an_example_that_is_no_goal_is_refused_with_its_location(
    tmp_path: Path, example: str, what: str
) -> None:
    # '"abc"' reads as a code list under Aleph's double_quotes=codes, a list is no goal either
    folder = aleph(tmp_path, f=f"p(x).\n{example}\n")
    with pytest.raises(DataError, match=r"t\.f:2:1: example .* is ") as info:
        load_task(folder, format="aleph")
    assert what in str(info.value) or "is for ./2" in str(info.value)


def test_popper_style_wrapped_numbers_are_refused(tmp_path: Path) -> None:
    (tmp_path / "bias.pl").write_text("head_pred(p, 1).\nbody_pred(q, 2).\n")
    (tmp_path / "bk.pl").write_text("q(x, y).\n")
    (tmp_path / "exs.pl").write_text("pos(p(x)).\nneg(3).\n")
    with pytest.raises(DataError, match=r"exs\.pl:2:1: example 3 is a number"):
        load_task(tmp_path, format="popper")


@pytest.mark.parametrize("template", ["[]", "'[]'", "[q(+a)]"])
def test_a_mode_whose_template_is_no_predicate_is_refused(tmp_path: Path, template: str) -> None:
    folder = aleph(tmp_path, b=f":- modeh(1, p(+a)).\n:- modeb(*, {template}).\n")
    with pytest.raises(BiasError, match=r"t\.b:2:1: modeb\(\*, .*\): the template"):
        load_task(folder, format="aleph")


# -- redefined built-ins --------------------------------------------------------------------


@pytest.mark.parametrize("clause", ["succ(a, b).", "length(L, N) :- N = 0.", "atom(x).", "true."])
def test_redefining_a_system_builtin_is_a_load_error(tmp_path: Path, clause: str) -> None:
    folder = aleph(tmp_path, b=BIAS + clause + "\n")
    with pytest.raises(DataError, match=r"t\.b:3:1: this clause defines .* built-in predicate"):
        load_task(folder, format="aleph")


def test_redefining_a_library_predicate_is_allowed(tmp_path: Path) -> None:
    # append/3, member/2 ...: user definitions win, as with SWI-Prolog's autoloader
    folder = aleph(tmp_path, b=BIAS + "member(X, [X|_]).\nfalse :- q(x, x).\n")
    task = load_task(folder, format="aleph")
    assert ("member", 2) in task.program.clauses


def test_boostsrl_facts_redefining_a_builtin_are_refused(tmp_path: Path) -> None:
    (tmp_path / "train").mkdir()
    (tmp_path / "train" / "train_facts.txt").write_text("q(x, y).\nsucc(a, b).\n")
    (tmp_path / "train" / "train_pos.txt").write_text("p(x).\n")
    (tmp_path / "train" / "train_neg.txt").write_text("p(y).\n")
    (tmp_path / "train" / "train_bk.txt").write_text("mode: p(+a).\nmode: q(+a, -a).\n")
    with pytest.raises(DataError, match=r"train_facts\.txt:2:1: this clause defines succ/2"):
        load_task(tmp_path, format="boostsrl")


# -- Aleph settings -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("set(i, 1000000000)", f"an integer from 1 to {MAX_I}"),
        ("set(i, 0)", "an integer from 1 to"),
        ("set(clauselength, 0)", "the head counts as one literal"),
        ("set(nodes, -5)", "an integer of at least 1"),
        ("set(noise, -1)", "a number of at least 0"),
        ("set(minacc, 2.5)", "a number from 0 to 1"),
        ("set(minposfrac, -0.1)", "a number from 0 to 1"),
        ("set(searchtime, -1)", "a number of at least 0 (or inf)"),
        ("set(minacc, inf)", "a number"),
    ],
)
def test_numeric_settings_out_of_range_are_refused(
    tmp_path: Path, setting: str, message: str
) -> None:
    folder = aleph(tmp_path, b=BIAS + f":- {setting}.\n")
    with pytest.raises(BiasError, match=r"t\.b:3:1: set\(") as info:
        load_task(folder, format="aleph")
    assert message in str(info.value)


def test_settings_at_their_bounds_are_accepted() -> None:
    settings = Settings()
    for name, value in [("i", MAX_I), ("minacc", 1), ("minacc", 0), ("noise", 0.25)]:
        settings.set_value(name, value)
    settings.set_value("searchtime", 0)
    settings.set_term("openlist", Const("inf"))
    assert settings["i"] == MAX_I and settings["openlist"] == float("inf")


def test_a_misspelled_setting_gets_a_did_you_mean() -> None:
    with pytest.raises(
        BiasError, match="unknown setting 'clauselenght'; did you mean 'clauselength'"
    ):
        Settings().set_value("clauselenght", 3)


def test_the_cli_refuses_a_huge_i_at_once(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ilpkit", "learn", "trains", "--set", "i=1000000000", "-q"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 2
    assert "set(i, 1000000000): expected an integer from 1 to 50" in proc.stderr
    assert "Traceback" not in proc.stderr


# -- backend options ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("step_limit", -1, "greater than or equal to 1"),
        ("step_limit", 0, "greater than or equal to 1"),
        ("timeout", -3, "greater than 0"),
        ("memory_limit_mb", 0, "greater than 0"),
    ],
)
def test_backend_option_ranges(option: str, value: object, message: str) -> None:
    with pytest.raises(ConfigError, match=rf"option '{option}': .*{message}"):
        get_plugin_manager().validate_options("backend", "native", {option: value})


@pytest.mark.parametrize("word", ["None", "none", "null", "NULL"])
def test_none_spellings_mean_unlimited_where_the_help_says_so(word: str) -> None:
    options = get_plugin_manager().validate_options(
        "backend", "native", {"step_limit": word, "timeout": word, "memory_limit_mb": word}
    )
    assert isinstance(options, NativeOptions)
    assert (options.step_limit, options.timeout, options.memory_limit_mb) == (None, None, None)


def test_none_through_set_and_toml(tmp_path: Path) -> None:
    config = apply_overrides(
        {"data": {"path": "trains"}}, ["backend=native", "backend.step_limit=None"]
    )
    options = get_plugin_manager().validate_options(
        "backend", config.plugin("backend").name, config.plugin("backend").options
    )
    assert options.step_limit is None  # type: ignore[attr-defined]
    run = tmp_path / "run.toml"
    run.write_text(
        '[data]\npath = "trains"\n[backend]\nname = "native"\noptions = { timeout = "none" }\n'
    )
    loaded = load_config(run)
    options = get_plugin_manager().validate_options(
        "backend", "native", loaded.plugin("backend").options
    )
    assert options.timeout is None  # type: ignore[attr-defined]


def test_a_string_option_keeps_the_word_none() -> None:
    # only fields that accept None turn "none" into None
    assert parse_value("none") == "none"


# -- TOML -----------------------------------------------------------------------------------


def test_toml_nested_ten_thousand_deep_is_a_config_error(tmp_path: Path) -> None:
    run = tmp_path / "run.toml"
    run.write_text('seed = 1\n# [[[ in a comment\ns = "[[[["\nx = ' + "[" * 10_000 + "]" * 10_000)
    with pytest.raises(ConfigError, match=rf"run\.toml:4:{MAX_TOML_DEPTH + 5}: arrays and inline"):
        load_config(run)


def test_toml_a_few_levels_deep_is_fine(tmp_path: Path) -> None:
    run = tmp_path / "run.toml"
    run.write_text(
        '[data]\npath = "trains"\n[learner]\nname = "theory"\noptions = { max_rules = 3 }\n'
    )
    assert load_config(run).plugin("learner").options == {"max_rules": 3}


def test_a_deep_set_value_stays_text() -> None:
    text = "[" * 5000 + "]" * 5000
    assert parse_value(text) == text


# -- reader limits through a loader ---------------------------------------------------------


def test_a_deep_operator_chain_in_background_is_a_located_error(tmp_path: Path) -> None:
    folder = aleph(tmp_path, b=BIAS + "r(" + "+".join(["a"] * 600) + ").\n")
    with pytest.raises(DataError, match=r"t\.b:3:1: term nested too deeply"):
        load_task(folder, format="aleph", strict=True)
    (warning,) = load_task(folder, format="aleph").warnings  # skipped, as SWI-Prolog does
    assert "t.b:3:1: term nested too deeply" in warning


def test_reader_errors_are_ilpkit_errors_for_text_with_surrogates() -> None:
    with pytest.raises(DataError, match="surrogate"):
        PrologReader().read_term("p('\udc80')")
