"""Data files are not trusted code: what a background program may make an engine do.

ilpkit never consults a raw data file in a Prolog engine.  It loads the program its own reader
parsed, and before that :func:`check_program` refuses (with file and line) directives ilpkit
did not interpret and clause bodies that call built-ins outside a side-effect-free allow-list,
unless the user trusts the data (``--trust-data``).
"""

from __future__ import annotations

from ilpkit.core.task import Task


def check_program(task: Task, *, trust_data: bool = False) -> None:
    """Raise :class:`~ilpkit.core.errors.DataError` naming every unsafe construct in ``task``.

    Interface placeholder: the allow-list check is being written (issue 5); until then this
    accepts every program.
    """
    del task, trust_data
