"""Turn pydantic validation errors into messages that name the key the user wrote.

Both plugin options (``learner 'theory': option 'max_rules': ...``) and run files
(``run.toml: learner.options: ...``) are validated by pydantic; this module turns each
error into an :class:`Issue` -- the key path and a short message ending in what was given --
so each caller only decides how to prefix it.
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

_MAX_REPR = 60


@dataclass(frozen=True)
class Issue:
    """One problem: where (``loc``, as pydantic reports it) and what (``message``)."""

    loc: tuple[str | int, ...]
    message: str

    @property
    def path(self) -> str:
        """The key path as a user writes it: ``learner.options``, ``rules[2].name``."""
        out = ""
        for part in self.loc:
            if isinstance(part, int):
                out += f"[{part}]"
            else:
                out += f".{part}" if out else part
        return out


def issues(error: ValidationError, model: type[BaseModel], *, noun: str = "key") -> list[Issue]:
    """One :class:`Issue` per error in ``error``, raised while validating ``model``.

    An unknown key gets ``unknown <noun>; did you mean 'x'? (valid <noun>s: a, b)`` instead
    of pydantic's "Extra inputs are not permitted"; every other message ends with
    ``(got <value>)`` so the user sees what was read.
    """
    found: list[Issue] = []
    for err in error.errors(include_url=False):
        loc = tuple(err["loc"])
        if err["type"] == "extra_forbidden" and loc:
            found.append(Issue(loc, _unknown_key(str(loc[-1]), field_names(model, loc[:-1]), noun)))
            continue
        message = str(err["msg"])
        if err["type"] != "missing":
            message += f" (got {short_repr(err['input'])})"
        found.append(Issue(loc, message))
    return found


def field_names(model: type[BaseModel], loc: tuple[str | int, ...] = ()) -> list[str]:
    """Field names of the (nested) model found at ``loc``; empty when it is not a model."""
    current: type[BaseModel] = model
    for part in loc:
        if isinstance(part, int):
            return []
        field = current.model_fields.get(part)
        annotation = field.annotation if field is not None else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return []
        current = annotation
    return list(current.model_fields)


def suggest(word: str, choices: list[str]) -> str | None:
    """The closest of ``choices`` to ``word`` (difflib), or ``None`` when none is close."""
    close = difflib.get_close_matches(word, choices, n=1)
    return close[0] if close else None


def short_repr(value: object) -> str:
    """``repr`` cut to a length that fits in a one-line message."""
    text = repr(value)
    return text if len(text) <= _MAX_REPR else text[: _MAX_REPR - 3] + "..."


def _unknown_key(key: str, known: list[str], noun: str) -> str:
    message = f"unknown {noun}"
    guess = suggest(key, known)
    if guess is not None:
        message += f"; did you mean {guess!r}?"
    if known:
        message += f" (valid {noun}s: {', '.join(known)})"
    else:
        message += f" (no {noun}s are accepted here)"
    return message


NONE_WORDS = frozenset({"none", "null"})
"""Spellings of "no value" accepted where an option's help says ``None = ...``: TOML has no
null, and ``--set backend.step_limit=None`` arrives as text."""


def _accepts_none(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        return type(None) in typing.get_args(annotation)
    return annotation is None or annotation is type(None)


def none_words_to_none(model: type[BaseModel], data: Any) -> Any:
    """``data`` with ``"none"``/``"None"``/``"null"`` replaced by ``None`` in the fields of
    ``model`` that accept None (for a ``model_validator(mode="before")``); other fields keep
    the text, so an option that takes a string still gets ``"none"``."""
    if not isinstance(data, Mapping):
        return data
    out = dict(data)
    for name, value in data.items():
        field = model.model_fields.get(str(name))
        if (
            field is not None
            and isinstance(value, str)
            and value.strip().lower() in NONE_WORDS
            and _accepts_none(field.annotation)
        ):
            out[name] = None
    return out
