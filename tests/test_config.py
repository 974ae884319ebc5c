"""Run configuration: TOML files, error messages, --set overrides, plugin resolution."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ilpkit.core.plugins import PluginManager
from ilpkit.errors import ConfigError
from ilpkit.experiment.config import (
    RUN_KINDS,
    DataConfig,
    DataFormat,
    PluginChoice,
    RunConfig,
    apply_overrides,
    dump_config,
    load_config,
    parse_set_options,
    parse_value,
    resolve_plugins,
)
from ilpkit.plugins.executors.local import LocalOptions
from ilpkit.plugins.learners.theory import TheoryOptions


def write(tmp_path: Path, text: str, name: str = "run.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def config_error(path: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return str(info.value)


# -- loading ---------------------------------------------------------------------------------


def test_a_bundled_dataset_name_stays_a_name_unless_a_folder_has_it(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, '[data]\npath = "uwcse"\n')).data.path == Path("uwcse")
    (tmp_path / "uwcse").mkdir()
    config = load_config(write(tmp_path, '[data]\npath = "uwcse"\n'))
    assert config.data.path == tmp_path / "uwcse"


def test_minimal_file_gets_the_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[data]\npath = "data/uwcse"\n'))
    assert config.data == DataConfig(path=tmp_path / "data" / "uwcse")
    assert config.data.format == DataFormat.AUTO
    # search and scorer: auto (the learner's prescribed ones, else the data's settings);
    # combiner: auto (the learner's own combination)
    assert [config.plugin(k).name for k in RUN_KINDS] == [
        "native",
        "auto",
        "auto",
        "theory",
        "auto",
        "local",
    ]
    assert config.learner.options == {}
    assert config.seed == 0
    assert config.output is None


def test_full_file(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            """
            seed = 7
            output = "/abs/out"
            backend = "swi"

            [data]
            path = "data/train"
            format = "aleph"
            stem = "advisedby"

            [learner]
            name = "gleaner"
            options = { bins = 20, seeds = [1, 2] }
            """,
        )
    )
    assert config.seed == 7
    assert config.output == Path("/abs/out")
    assert config.backend == PluginChoice(name="swi")
    assert config.data.format == "aleph"
    assert config.data.stem == "advisedby"
    assert config.learner.options == {"bins": 20, "seeds": [1, 2]}


def test_paths_are_relative_to_the_file(tmp_path: Path) -> None:
    sub = tmp_path / "exp"
    sub.mkdir()
    config = load_config(write(sub, '[data]\npath = "../data"\n'))
    assert config.data.path == sub / "../data"


def test_output_relative_to_the_file(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, 'output = "runs"\n[data]\npath = "d"\n'))
    assert config.output == tmp_path / "runs"


def test_unknown_key_is_an_error_with_a_suggestion(tmp_path: Path) -> None:
    path = write(tmp_path, 'bakcend = "swi"\n[data]\npath = "d"\n')
    message = config_error(path)
    assert message.startswith(f"{path}: bakcend: unknown key; did you mean 'backend'?")
    keys = "data, backend, search, scorer, learner, combiner, executor, seed, settings, cv, output"
    assert f"(valid keys: {keys})" in message


def test_unknown_nested_key_and_missing_key(tmp_path: Path) -> None:
    path = write(tmp_path, '[data]\npaht = "d"\n')
    lines = config_error(path).splitlines()
    assert f"{path}: data.path: Field required" in lines
    assert any(
        line.startswith(f"{path}: data.paht: unknown key; did you mean 'path'?") for line in lines
    )


def test_missing_data_section(tmp_path: Path) -> None:
    assert config_error(write(tmp_path, "seed = 1\n")).endswith("run.toml: data: Field required")


def test_bad_plugin_options_name_the_key_path(tmp_path: Path) -> None:
    path = write(tmp_path, '[data]\npath = "d"\n[learner]\nname = "theory"\noptions = 3\n')
    assert config_error(path) == (
        f"{path}: learner.options: Input should be a valid dictionary (got 3)"
    )


def test_bad_values_say_what_was_read(tmp_path: Path) -> None:
    path = write(tmp_path, 'seed = "x"\n[data]\npath = "d"\nformat = "csv"\n')
    lines = config_error(path).splitlines()
    assert lines[0].startswith(f"{path}: data.format: Input should be 'auto', 'aleph'")
    assert lines[0].endswith("(got 'csv')")
    assert lines[1].startswith(f"{path}: seed: Input should be a valid integer")
    assert lines[1].endswith("(got 'x')")


def test_unknown_key_inside_a_plugin_choice(tmp_path: Path) -> None:
    path = write(tmp_path, '[data]\npath = "d"\n[backend]\nname = "swi"\ntimeout = 5\n')
    assert config_error(path).startswith(f"{path}: backend.timeout: unknown key")


def test_toml_syntax_error_has_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, '[data]\npath = "d"\nseed = = 3\n')
    message = config_error(path)
    assert re.fullmatch(rf"{re.escape(str(path))}:3:\d+: invalid TOML: .+", message), message


def test_unreadable_files(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    assert config_error(missing) == f"{missing}: no such config file"
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    assert config_error(binary).startswith(f"{binary}: not UTF-8 text")
    assert "cannot read" in config_error(tmp_path)


# -- writing ---------------------------------------------------------------------------------


def sample_config(tmp_path: Path) -> RunConfig:
    return RunConfig(
        data=DataConfig(path=tmp_path / "data", format=DataFormat.POPPER, stem="s"),
        backend=PluginChoice(name="swi", options={"timeout": 2.5, "flags": ["a", "b"]}),
        learner=PluginChoice(
            name="theory",
            options={"max_rules": 10, "note": 'quote " and \\ and\nnewline', "sub": {"x": True}},
        ),
        seed=42,
        output=tmp_path / "out",
    )


def test_dump_and_load_round_trip(tmp_path: Path) -> None:
    config = sample_config(tmp_path)
    assert load_config(write(tmp_path, dump_config(config))) == config


def test_dump_of_defaults_round_trips(tmp_path: Path) -> None:
    config = RunConfig(data=DataConfig(path=tmp_path / "d"))
    text = dump_config(config)
    assert "output" not in text  # None is left out, and reads back as the default
    assert 'name = "native"' in text
    assert load_config(write(tmp_path, text)) == config


def test_relative_paths_dump_as_written(tmp_path: Path) -> None:
    config = RunConfig(data=DataConfig(path=Path("data")))
    assert 'path = "data"' in dump_config(config)
    assert load_config(write(tmp_path, dump_config(config))).data.path == tmp_path / "data"


def test_dump_refuses_none_in_options(tmp_path: Path) -> None:
    config = RunConfig(
        data=DataConfig(path=tmp_path), learner=PluginChoice(name="t", options={"x": None})
    )
    with pytest.raises(ConfigError, match=r"learner\.options\.x: TOML has no null"):
        dump_config(config)


# -- --set -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("5", 5),
        ("-3", -3),
        ("0.5", 0.5),
        ("1e3", 1000.0),
        ("true", True),
        ("false", False),
        ("swi", "swi"),
        ('"5"', "5"),
        ("'true'", "true"),
        ("[1, 2]", [1, 2]),
        ("data/uwcse", "data/uwcse"),
        ("2024-01-01", "2024-01-01"),
        ("", ""),
        ("a b", "a b"),
        ("1\nx = 2", "1\nx = 2"),
    ],
)
def test_parse_value(text: str, value: Any) -> None:
    assert parse_value(text) == value
    assert type(parse_value(text)) is type(value)


def test_parse_set_options_routes_plugin_keys_to_options() -> None:
    got = parse_set_options(
        [
            "backend=swi",
            "backend.timeout=5",
            "learner.options.name=x",
            "learner.name=theory",
            "seed=3",
            "data.format=aleph",
            " search . beam = 4 ",
            "seed=4",
        ]
    )
    assert got == {
        "backend": {"name": "swi", "options": {"timeout": 5}},
        "learner": {"options": {"name": "x"}, "name": "theory"},
        "search": {"options": {"beam": 4}},
        "seed": 4,
        "data": {"format": "aleph"},
    }


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (["seed"], "expected KEY=VALUE"),
        (["=3"], "expected KEY=VALUE"),
        (["data..path=x"], "expected KEY=VALUE"),
        (["data=x", "data.path=y"], "data was already set to 'x'"),
        (["data.path=y", "data=x"], "data is a section, not a value"),
    ],
)
def test_parse_set_options_errors(items: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_set_options(items)


def test_apply_overrides(tmp_path: Path) -> None:
    base = RunConfig(
        data=DataConfig(path=tmp_path),
        backend=PluginChoice(name="native", options={"a": 1}),
    )
    merged = apply_overrides(base, ["backend.timeout=5", "seed=9", "data.format=boostsrl"])
    assert merged.backend == PluginChoice(name="native", options={"a": 1, "timeout": 5})
    assert merged.seed == 9
    assert merged.data.format == DataFormat.BOOSTSRL
    assert base.seed == 0  # the base is not changed


def test_choosing_another_plugin_drops_the_old_options(tmp_path: Path) -> None:
    base = RunConfig(
        data=DataConfig(path=tmp_path), backend=PluginChoice(name="native", options={"a": 1})
    )
    assert apply_overrides(base, ["backend=swi"]).backend == PluginChoice(name="swi")
    assert apply_overrides(base, ["backend=native"]).backend.options == {"a": 1}
    both = apply_overrides(base, ["backend=swi", "backend.timeout=5"])
    assert both.backend == PluginChoice(name="swi", options={"timeout": 5})


def test_apply_overrides_to_a_mapping() -> None:
    config = apply_overrides({"data": {"path": "d"}, "learner": "x"}, ["learner.k=1"])
    assert config.learner == PluginChoice(name="x", options={"k": 1})


def test_apply_overrides_errors_name_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        apply_overrides(RunConfig(data=DataConfig(path=tmp_path)), ["seed=x", "sed=1"])
    lines = str(info.value).splitlines()
    assert lines[0].startswith("--set: seed: Input should be a valid integer")
    assert lines[1].startswith("--set: sed: unknown key; did you mean 'seed'?")


# -- plugins ---------------------------------------------------------------------------------


def test_resolve_plugins_validates_each_choice(tmp_path: Path, manager: PluginManager) -> None:
    config = apply_overrides(
        RunConfig(data=DataConfig(path=tmp_path)),
        ["learner.max_rules=3", "executor.check_pickle=true"],
    )
    resolved = resolve_plugins(config, manager)
    assert resolved["learner"] == TheoryOptions(max_rules=3)  # the real theory learner
    assert resolved["executor"] == LocalOptions(check_pickle=True)
    # search, scorer and combiner are auto here: ilpkit.experiment.compose.resolve names them
    assert set(resolved) == set(RUN_KINDS) - {"search", "scorer", "combiner"}


def test_resolve_plugins_reports_every_problem(tmp_path: Path, manager: PluginManager) -> None:
    path = write(
        tmp_path,
        'backend = "nativ"\n'
        '[data]\npath = "d"\n'
        '[learner]\nname = "theory"\noptions = { max_rules = "x" }\n',
    )
    with pytest.raises(ConfigError) as info:
        resolve_plugins(load_config(path), manager, where="run.toml")
    lines = str(info.value).splitlines()
    assert lines[0] == (
        "run.toml: backend.name: no backend named 'nativ'; did you mean 'native'? "
        "(available backends: native, subprocess, swi)"
    )
    assert lines[1].startswith(
        "run.toml: learner.options: learner 'theory': option 'max_rules': "
        "Input should be a valid integer"
    )
    assert lines[1].endswith("(got 'x')")
    assert len(lines) == 2
