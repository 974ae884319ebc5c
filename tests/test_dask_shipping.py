"""A Dask cluster whose workers cannot see the data gets it by content (ilpkit.core.shipping).

A ``dask scheduler`` and two ``dask worker`` processes are started as separate processes in
folders of their own, each worker in a mount namespace where the dataset's folder is an
empty tmpfs (as on another machine): with ``executor.ship_data=true`` the cross-validation
gives the same results as a local run; without it, the workers fail to read the data.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import ilpkit
from ilpkit.core import shipping
from ilpkit.datasets import bundled_path

pytestmark = pytest.mark.heavy

DASK = Path(sys.executable).with_name("dask")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    if not DASK.exists() or shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("needs the dask command (ilpkit[dask]), unshare and root for the namespace")
    data = tmp_path / "data" / "trains"
    shutil.copytree(bundled_path("trains"), data)
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = []
    (tmp_path / "scheduler").mkdir()
    procs.append(
        subprocess.Popen(
            [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            cwd=tmp_path / "scheduler",
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    )
    for k in range(2):
        home = tmp_path / f"worker{k}"
        home.mkdir()
        hide = f"mount -t tmpfs none {tmp_path / 'data'}"
        worker = f"exec {DASK} worker {address} --nthreads 1 --no-dashboard"
        procs.append(
            subprocess.Popen(
                ["unshare", "-m", "sh", "-c", f"{hide} && {worker}"],
                cwd=home,
                env={**os.environ, "ILPKIT_CACHE": str(home / "cache")},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
    from distributed import Client

    deadline = time.monotonic() + 60
    while True:
        try:
            with Client(address, timeout=5) as client:
                if len(client.scheduler_info()["workers"]) == 2:
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            pytest.fail("the dask cluster did not start in 60 s")
        time.sleep(0.5)
    try:
        yield address, data
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def cv(data: Path, out: Path, **executor: object) -> dict[str, object]:
    return ilpkit.cv(
        str(data),
        out=out,
        learner="gleaner",
        options={"learner": {"seeds": 2, "clauses_per_seed": 30}, "executor": executor},
        executor="dask" if executor else "local",
        parallel="folds",
        folds=2,
    )


def test_workers_that_cannot_see_the_data_get_it_by_content(
    cluster: tuple[str, Path], tmp_path: Path
) -> None:
    address, data = cluster
    local = cv(data, tmp_path / "local")
    shipped = cv(data, tmp_path / "shipped", address=address, ship_data=True)
    assert shipped["summary"] == local["summary"]
    # the run directory records the path, never the shipped content
    assert "sha256:" not in (tmp_path / "shipped" / "config.toml").read_text()
    with pytest.raises(Exception, match=r"does not exist|not found|no such|No such"):
        cv(data, tmp_path / "unshipped", address=address)
    # each worker unpacked the data once into its own cache
    caches = [p for p in tmp_path.glob("worker*/cache/shipped/*") if p.is_dir()]
    assert 1 <= len(caches) <= 2
    assert json.loads((tmp_path / "shipped" / "results.json").read_text())["n_units"] == 2


def test_a_pack_is_the_same_wherever_it_is_made(tmp_path: Path) -> None:
    a, b = tmp_path / "a" / "trains", tmp_path / "b" / "trains"
    shutil.copytree(bundled_path("trains"), a)
    shutil.copytree(bundled_path("trains"), b)
    first, second = shipping.pack(a), shipping.pack(b)
    assert first.digest == second.digest
    os.environ["ILPKIT_CACHE"] = str(tmp_path / "cache")
    try:
        where = shipping.receive(first)
    finally:
        del os.environ["ILPKIT_CACHE"]
    assert sorted(p.name for p in where.iterdir()) == sorted(p.name for p in a.iterdir())
    task = ilpkit.load_task(str(where))
    assert len(task.examples) == 10
