"""The built-in dataset formats, apart from the configuration models: command options name
them without importing pydantic (``ilpkit --help`` stays quick)."""

from __future__ import annotations

from enum import StrEnum


class DataFormat(StrEnum):
    """The built-in dataset formats (``auto``: detect); installed format plugins add more,
    so ``data.format`` takes any registered name."""

    AUTO = "auto"
    ALEPH = "aleph"
    BOOSTSRL = "boostsrl"
    POPPER = "popper"
