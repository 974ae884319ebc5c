"""The TOML writer: whatever it writes, tomllib reads back equal."""

from __future__ import annotations

import math
import tomllib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ilpkit.experiment.tomlw import dumps, format_string

keys = st.text(max_size=8)
scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=20),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=20,
)


@given(st.dictionaries(keys, values, max_size=6))
def test_round_trip(data: dict[str, Any]) -> None:
    assert tomllib.loads(dumps(data)) == data


def test_layout_of_a_run_config() -> None:
    text = dumps(
        {
            "data": {"path": "d", "format": "auto"},
            "seed": 3,
            "backend": {"name": "native", "options": {}},
            "learner": {"name": "theory", "options": {"max_rules": 10, "nested": {"a": 1.5}}},
        }
    )
    assert text == (
        "seed = 3\n"
        '\n[data]\npath = "d"\nformat = "auto"\n'
        '\n[backend]\nname = "native"\noptions = {}\n'
        '\n[learner]\nname = "theory"\n'
        "\n[learner.options]\nmax_rules = 10\n"
        "\n[learner.options.nested]\na = 1.5\n"
    )


@pytest.mark.parametrize(
    "key", ["a.b", "with space", "", "é", 'quo"te', "back\\slash", "tab\there", "x=y"]
)
def test_keys_that_need_quotes(key: str) -> None:
    data = {key: {key: 1}, "t": {key: [1, {key: 2}]}}
    assert tomllib.loads(dumps(data)) == data


@pytest.mark.parametrize("text", ['"', "\\", "\n\r\t\b\f", "\x00\x1f\x7f", "é ☃ 𝄞", "'''"])
def test_strings_with_special_characters(text: str) -> None:
    assert tomllib.loads(f"v = {format_string(text)}")["v"] == text


def test_special_floats() -> None:
    back = tomllib.loads(dumps({"a": math.inf, "b": -math.inf, "c": math.nan, "d": -0.0}))
    assert back["a"] == math.inf
    assert back["b"] == -math.inf
    assert math.isnan(back["c"])
    assert math.copysign(1, back["d"]) == -1


def test_empty_document() -> None:
    assert dumps({}) == ""


def test_none_is_refused_with_its_key() -> None:
    with pytest.raises(ValueError, match=r"learner\.options\.x: TOML has no null"):
        dumps({"learner": {"options": {"x": None}}})


def test_unsupported_types_are_refused() -> None:
    with pytest.raises(ValueError, match="cannot write bytes"):
        dumps({"b": b"x"})
    with pytest.raises(ValueError, match="keys must be strings"):
        dumps({1: 2})  # type: ignore[dict-item]


def test_key_ending_in_a_newline_is_quoted() -> None:
    # "$" in a regular expression also matches before a final newline: keys must not rely on it
    data = {"0\n": {"": False}, "a\n": []}
    assert tomllib.loads(dumps(data)) == data
