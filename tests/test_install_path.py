"""The README's set-up path cannot leave a shadow package behind (issue 33).

numba's on-disk cache of the coverage kernel used to be written next to the source, i.e. into
``site-packages/ilpkit/backends/native/__pycache__`` of a ``pip install .``; replacing that
install with ``pip install -e .`` (the README's test command) left the folder behind, which then
shadowed the editable install (``cannot import name '__version__' from 'ilpkit'``)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _env(cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)
    env["ILPKIT_CACHE"] = str(cache)
    return env


def test_numba_caches_the_kernel_outside_the_package(tmp_path: Path) -> None:
    probe = (
        "import numba.core.config as c, ilpkit.plugins.backends.native.kernels as k, os\n"
        "print(c.CACHE_DIR)\nprint(k._CACHE)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        env=_env(tmp_path / "cache"),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    assert out[0] == str(tmp_path / "cache" / "numba")
    assert out[1] == "True"
    assert (tmp_path / "cache" / "numba").is_dir()


def test_numba_imported_first_still_caches_outside_the_package(tmp_path: Path) -> None:
    probe = (
        "import numba\nimport numba.core.config as c\nassert not c.CACHE_DIR\n"
        "import ilpkit.plugins.backends.native.kernels as k\nprint(c.CACHE_DIR)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        env=_env(tmp_path / "cache"),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    assert out[0] == str(tmp_path / "cache" / "numba")


def test_an_unwritable_cache_folder_turns_the_disk_cache_off(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    probe = "import ilpkit.plugins.backends.native.kernels as k\nprint(k._CACHE)\n"
    out = subprocess.run(
        [sys.executable, "-c", probe],
        env=_env(blocker / "cache"),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    assert out[0] == "False"


def _readme_blocks() -> tuple[str, str]:
    """The README's set-up command and test command, as written there."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    setup = next(b for b in blocks if "pip install -q ." in b).strip()
    tests = next(b for b in blocks if "-e '.[test]'" in b).strip()
    return setup, tests


@pytest.mark.heavy
def test_readme_setup_then_test_command_leave_a_working_ilpkit(tmp_path: Path) -> None:
    """The README's two commands in order in a fresh clone and venv, then ``ilpkit`` again.

    Offline and quick: the new venv sees this venv's dependencies through a ``.pth`` file and
    pip installs ilpkit alone (``--no-deps``); the test command's pytest run is replaced by
    one ``ilpkit`` command (the suite itself is what is running this)."""
    setup, tests = _readme_blocks()
    clone = tmp_path / "clone"
    shutil.copytree(
        ROOT,
        clone,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "*.egg-info", "build", "__pycache__", ".mypy_cache", ".ruff_cache",
            ".pytest_cache", "runs",
        ),
    )  # fmt: skip
    base = Path(getattr(sys, "_base_executable", sys.executable))
    deps = sysconfig.get_paths()["purelib"]
    venv = (
        f"{base} -m venv .venv && "
        f"echo {deps} > $(.venv/bin/python -c 'import sysconfig;"
        f'print(sysconfig.get_paths()["purelib"])\')/deps.pth'
    )
    setup = setup.replace("python3 -m venv .venv", venv).replace(
        "pip install -q .", "pip install -q --no-deps ."
    )
    tests = (
        tests.replace("python3 -m venv .venv", venv)
        .replace("pip install -q -e '.[test]'", "pip install -q --no-deps -e '.[test]'")
        .replace('.venv/bin/python -m pytest -q -m "not heavy" -n 2', ".venv/bin/ilpkit --version")
    )
    assert "--no-deps ." in setup and "--no-deps -e" in tests and "pytest" not in tests
    env = _env(tmp_path / "cache")
    for command in (setup, tests, ".venv/bin/ilpkit explain uwcse-model.json"):
        done = subprocess.run(
            command, shell=True, cwd=clone, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    site = Path(
        subprocess.run(
            [str(clone / ".venv/bin/python"), "-c",
             "import sysconfig;print(sysconfig.get_paths()['purelib'])"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    )  # fmt: skip
    assert not (site / "ilpkit").exists(), sorted(p.name for p in (site / "ilpkit").rglob("*"))
    from ilpkit.plugins.backends.native import ckernel

    if ckernel._compiler() is not None:  # the C kernel, built into the cache
        assert list((tmp_path / "cache" / "ckernel").glob("_ilpkit_cover_rows-*")), "not built"
    else:  # numba's kernel, cached there
        assert list((tmp_path / "cache" / "numba").rglob("*.nbi")), "the kernel was not cached"
