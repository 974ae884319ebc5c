"""YAP's timer ball is a limit the data's ``catch/3`` cannot catch (no YAP needed).

YAP 8.0.2's ``time_out/3`` (``library(timeout)``) arms ``alarm/4`` and leaves the expiry to
the default ``sig_alarm`` handler, which throws the atom ``timeout`` through the goal.  A
catch-all in the data (``p(X) :- catch(spin, _, p(X))``) caught it and ran on with no timer
left.  The YAP prelude declares the ball the engine's limit (``ilpkit_engine_limit_ball/1``),
and the server's ``ilpkit_catch/3`` throws it on.  Checked here with SWI-Prolog running the
server's ``ilpkit_catch/3`` and YAP's declaration of its ball.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ilpkit.plugins.backends.prolog.profiles import PROFILES

pytestmark = pytest.mark.skipif(shutil.which("swipl") is None, reason="runs the server in swipl")

GOAL = (
    "catch((ilpkit_catch(throw(timeout), _, true), R = caught), B, R = passed(B)), "
    "write(R), nl, halt"
)


def hook_clauses(engine: str) -> str:
    """The engine prelude's ``ilpkit_engine_limit_ball/1`` clauses."""
    found = re.findall(r"^ilpkit_engine_limit_ball\(.*$", PROFILES[engine].prelude, re.M)
    assert found, f"the {engine} prelude must define ilpkit_engine_limit_ball/1"
    return "\n".join(found) + "\n"


def data_catch_all(tmp_path: Path, hooks: str) -> str:
    from importlib.resources import files

    server = files("ilpkit.plugins.backends.prolog").joinpath("ilpkit_server.pl").read_text("utf-8")
    program = tmp_path / "server.pl"
    program.write_text(server + "\n" + hooks, encoding="utf-8")
    out = subprocess.run(
        ["swipl", "-q", "-f", "none", "-g", GOAL, "-t", "halt(1)", str(program)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return out.stdout.strip()


def test_yaps_timer_ball_passes_through_the_datas_catch_all(tmp_path: Path) -> None:
    assert data_catch_all(tmp_path, hook_clauses("yap")) == "passed(timeout)"


@pytest.mark.parametrize("engine", ["swipl", "gprolog"])
def test_elsewhere_the_atom_timeout_is_the_datas_own_ball(engine: str, tmp_path: Path) -> None:
    assert data_catch_all(tmp_path, hook_clauses(engine)) == "caught"
