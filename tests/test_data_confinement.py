"""Paths and trust come from the user, never from the data (issue 28).

* Every file the data names (Aleph settings ``train_pos``/``train_neg``/``test_pos``/
  ``test_neg``/``recordfile``/``goodfile``, includes, BoostSRL ``import:``) and every data
  file a format finds (``stem.f``, ``fs/f0.n``, ``exs.pl``, ``train_pos.txt``, ...) must
  resolve, symbolic links followed, inside the data folder; else loading fails naming the
  file, the line and the path, and nothing of the outside file appears in any message.
  ``--trust-data`` / ``trust_data=True`` reads them.
* A run directory's recorded ``trust_data = true`` is not trust: resuming it (or running its
  config.toml) without ``--trust-data`` is refused.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ilpkit
from ilpkit.cli.main import app
from ilpkit.core.formats import load_task
from ilpkit.errors import ConfigError, DataError

runner = CliRunner()

SECRET = "sk_live_c0nf1nement_5ecret"
OUTSIDE = "outside the data folder"

TASK_B = """:- modeh(1, p(+t)).
:- modeb(*, q(+t, -t)).
:- determination(p/1, q/2).
"""  # then the hostile line: line 4


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _secret_examples(tmp_path: Path) -> Path:
    """A file outside the data folder holding examples of the task's target (loads cleanly
    when trusted, so the test sees that it was read) and the secret."""
    return _write(tmp_path / "outside" / "secret.f", f"p({SECRET}).\n")


def _aleph(folder: Path, extra: str = "") -> Path:
    _write(folder / "d.b", TASK_B + extra + "q(a, b).\n")
    _write(folder / "d.f", "p(a).\n")
    _write(folder / "d.n", "p(b).\n")
    return folder


def _refused(args: list[str], *patterns: str) -> str:
    """Run the CLI; it must exit 2 with every pattern in its output and no secret."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    for pattern in patterns:
        assert re.search(pattern, result.output), (pattern, result.output)
    assert SECRET not in result.output
    return result.output


def _atoms(task: object) -> list[str]:
    return [str(a) for a in task.examples.atoms]  # type: ignore[attr-defined]


# -- Aleph settings naming a file -------------------------------------------------------------

SETTINGS = ("train_pos", "train_neg", "test_pos", "test_neg")


@pytest.mark.parametrize("key", SETTINGS)
@pytest.mark.parametrize("how", ["absolute", "relative"])
def test_a_setting_naming_a_file_outside_the_data_folder_is_refused(
    tmp_path: Path, key: str, how: str
) -> None:
    secret = _secret_examples(tmp_path)
    named = str(secret) if how == "absolute" else "../outside/secret.f"
    data = _aleph(tmp_path / "data", f":- set({key}, '{named}').\n")
    where = rf"d\.b:4:\d+: {key} '{re.escape(named)}' is {re.escape(str(secret))}, {OUTSIDE}"
    _refused(["data", "check", str(data)], where, "--trust-data")
    with pytest.raises(DataError, match=where) as info:
        load_task(data)
    assert SECRET not in str(info.value)
    with pytest.raises(DataError, match=where):
        ilpkit.load_task(str(data))
    # trusted: the outside file is read
    assert f"p({SECRET})" in _atoms(load_task(data, trust_data=True))
    assert f"p({SECRET})" in _atoms(ilpkit.load_task(str(data), trust_data=True))
    assert runner.invoke(app, ["data", "check", str(data), "--trust-data"]).exit_code == 0


def test_an_outside_file_is_never_echoed_in_an_error(tmp_path: Path) -> None:
    """The report of issue 28: ``test_pos`` naming a file of other facts made the loader
    quote them (``example api_key(sk_live_...) is for api_key/1``)."""
    secret = _write(tmp_path / "home" / "credentials", f"api_key({SECRET}).\n")
    data = _aleph(tmp_path / "data", f":- set(test_pos, '{secret}').\n")
    _refused(["data", "check", str(data)], rf"d\.b:4:\d+: test_pos .* {OUTSIDE}")
    _refused(["learn", str(data), "--quiet"], rf"d\.b:4:\d+: test_pos .* {OUTSIDE}")
    # with --trust-data the file is read (and its clause quoted: the user chose to read it)
    trusted = runner.invoke(app, ["data", "check", str(data), "--trust-data"])
    assert trusted.exit_code == 2 and SECRET in trusted.output


@pytest.mark.parametrize("key", ["recordfile", "goodfile"])
def test_output_file_settings_outside_the_data_folder_are_refused(tmp_path: Path, key: str) -> None:
    target = tmp_path / "elsewhere" / "log.txt"
    data = _aleph(tmp_path / "data", f":- set({key}, '{target}').\n")
    where = rf"d\.b:4:\d+: {key} '{re.escape(str(target))}' is .*log\.txt, {OUTSIDE}"
    _refused(["data", "check", str(data)], where)
    assert load_task(data, trust_data=True).bias.settings[key] == str(target)
    # inside the data folder (UW-CSE's ai.b sets recordfile 'test.out'): accepted
    _aleph(tmp_path / "data", f":- set({key}, 'test.out').\n")
    assert load_task(data).bias.settings[key] == "test.out"


def test_settings_naming_files_inside_the_data_folder_are_read(tmp_path: Path) -> None:
    data = _aleph(
        tmp_path / "data",
        ":- set(train_pos, 'sub/train.f').\n:- set(test_pos, './test.f').\n",
    )
    _write(data / "sub" / "train.f", "p(a).\n")
    _write(data / "test.f", "p(c).\n")
    task = load_task(data)
    assert sorted(_atoms(task)) == ["p(a)", "p(b)", "p(c)"]
    assert task.fold_names == ["train", "test"]


# -- includes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["absolute", "sibling", "parent"])
def test_an_include_outside_the_data_folder_is_refused(tmp_path: Path, how: str) -> None:
    """Before issue 28 the folder holding the data folder was readable too: pointed at
    ``~/dl/task``, the data could include ``../.aws/credentials`` through ``~/dl``."""
    secret = _write(tmp_path / "outside" / "secret.pl", f"q({SECRET}, b).\n")
    if how == "parent":
        secret = _write(tmp_path / "secret.pl", f"q({SECRET}, b).\n")
    named = {
        "absolute": str(secret),
        "sibling": "../outside/secret",
        "parent": "../secret.pl",
    }[how]
    data = _aleph(tmp_path / "data", f":- ['{named}'].\n")
    where = rf"d\.b:4:\d+: '{re.escape(named)}' is .*secret(\.pl)?, {OUTSIDE}"
    _refused(["data", "check", str(data)], where)
    with pytest.raises(DataError, match=where):
        load_task(data)
    facts = load_task(data, trust_data=True).program.facts[("q", 2)]
    assert any(SECRET in str(args[0]) for args in facts)


# -- symbolic links ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["d.b", "d.f", "d.n", "fs/f0.f"])
def test_a_data_file_linked_outside_the_data_folder_is_refused(tmp_path: Path, name: str) -> None:
    data = _aleph(tmp_path / "data")
    if name.startswith("fs/"):
        _write(data / "fs" / "f1.f", "p(a).\n")
        _write(data / "fs" / "f1.n", "p(b).\n")
    outside = {
        "d.b": _write(tmp_path / "outside" / "x.b", TASK_B + f"q({SECRET}, a).\n"),
        "d.n": _write(tmp_path / "outside" / "x.n", f"p({SECRET}).\n"),
    }.get(name) or _secret_examples(tmp_path)
    link = data / name
    link.unlink(missing_ok=True)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside)
    where = rf"{re.escape(str(link))}: resolves to {re.escape(str(outside))}, {OUTSIDE}"
    _refused(["data", "check", str(data)], where)
    with pytest.raises(DataError, match=where):
        load_task(data)
    trusted = load_task(data, trust_data=True)
    assert SECRET in str(_atoms(trusted)) + str(trusted.program.facts)


def test_files_the_user_names_are_not_confined(tmp_path: Path) -> None:
    """The user's own choices: a linked data folder, a linked .b file given by name."""
    real = _aleph(tmp_path / "real")
    linked = tmp_path / "linked"
    linked.symlink_to(real, target_is_directory=True)
    assert _atoms(load_task(linked)) == ["p(a)", "p(b)"]
    _write(tmp_path / "mine" / "d.b", TASK_B + "q(a, b).\n")
    data = tmp_path / "data"
    data.mkdir()
    (data / "d.b").symlink_to(tmp_path / "mine" / "d.b")
    _write(data / "d.f", "p(a).\n")
    assert _atoms(load_task(data / "d.b")) == ["p(a)"]  # named: the user's
    assert _atoms(load_task(data / "d")) == ["p(a)"]  # the stem names d.b too
    with pytest.raises(DataError, match=OUTSIDE):  # found in the folder: a data file
        load_task(data)


# -- BoostSRL ---------------------------------------------------------------------------------


def _boostsrl(folder: Path, bk: str = "") -> Path:
    _write(folder / "x_bk.txt", "mode: p(+t).\nmode: q(+t, -t).\n" + bk)
    _write(folder / "x_facts.txt", "q(a, b).\n")
    _write(folder / "x_pos.txt", "p(a).\n")
    _write(folder / "x_neg.txt", "p(b).\n")
    return folder


@pytest.mark.parametrize("how", ["absolute", "relative"])
def test_a_boostsrl_import_outside_the_data_folder_is_refused(tmp_path: Path, how: str) -> None:
    secret = _write(tmp_path / "outside" / "secret_bk.txt", f"q({SECRET}, b).\n")
    named = str(secret) if how == "absolute" else "../outside/secret_bk.txt"
    data = _boostsrl(tmp_path / "data", f'import: "{named}".\n')
    where = rf"x_bk\.txt:3:\d+: '{re.escape(named)}' is {re.escape(str(secret))}, {OUTSIDE}"
    _refused(["data", "check", str(data)], where)
    with pytest.raises(DataError, match=where):
        load_task(data)
    facts = load_task(data, trust_data=True).program.facts[("q", 2)]
    assert any(SECRET in str(args[0]) for args in facts)


@pytest.mark.parametrize("name", ["x_pos.txt", "x_facts.txt", "train/x_pos.txt"])
def test_a_boostsrl_file_linked_outside_the_data_folder_is_refused(
    tmp_path: Path, name: str
) -> None:
    data = tmp_path / "data"
    if name.startswith("train/"):
        _boostsrl(data / "train")
        _boostsrl(data / "test")
    else:
        _boostsrl(data)
    outside = _write(tmp_path / "outside" / "secret.txt", f"p({SECRET}).\n")
    link = data / name
    link.unlink()
    link.symlink_to(outside)
    _refused(["data", "check", str(data)], rf"{re.escape(name)}: resolves to .*secret\.txt")
    with pytest.raises(DataError, match=OUTSIDE):
        load_task(data)
    trusted = load_task(data, trust_data=True)
    assert SECRET in str(_atoms(trusted)) + str(trusted.program.facts)


# -- Popper and ilp-experiments ---------------------------------------------------------------

BIAS = "head_pred(p,1).\nbody_pred(q,2).\n"


def _popper(folder: Path, bk: str = "q(a, b).\n") -> Path:
    _write(folder / "bias.pl", BIAS)
    _write(folder / "bk.pl", bk)
    _write(folder / "exs.pl", "pos(p(a)).\nneg(p(b)).\n")
    return folder


@pytest.mark.parametrize("name", ["bias.pl", "bk.pl", "exs.pl"])
def test_a_popper_file_linked_outside_the_data_folder_is_refused(tmp_path: Path, name: str) -> None:
    data = _popper(tmp_path / "data")
    text = {"bias.pl": BIAS + f"body_pred({SECRET},1).\n", "bk.pl": f"q({SECRET}, b).\n"}
    outside = _write(tmp_path / "outside" / name, text.get(name, f"pos(p({SECRET})).\n"))
    (data / name).unlink()
    (data / name).symlink_to(outside)
    _refused(["data", "check", str(data)], rf"{re.escape(name)}: resolves to .*{OUTSIDE}")
    with pytest.raises(DataError, match=OUTSIDE):
        load_task(data, format="popper")
    trusted = load_task(data, format="popper", trust_data=True)
    seen = str(_atoms(trusted)) + str(trusted.program.facts) + str(trusted.bias.modeb)
    assert SECRET in seen


def test_a_popper_background_include_outside_the_data_folder_is_refused(tmp_path: Path) -> None:
    _write(tmp_path / "outside" / "secret.pl", f"q({SECRET}, b).\n")
    data = _popper(tmp_path / "data", ":- consult('../outside/secret').\n")
    where = rf"bk\.pl:1:\d+: '\.\./outside/secret' is .*, {OUTSIDE}"
    _refused(["data", "check", str(data), "--format", "popper"], where)
    facts = load_task(data, format="popper", trust_data=True).program.facts[("q", 2)]
    assert any(SECRET in str(args[0]) for args in facts)


def test_shared_files_of_the_folder_above_are_read_but_must_lie_there(tmp_path: Path) -> None:
    """ilp-experiments tasks (``imdb/prolog_ilpexp/imdb1``) take bias and background from the
    folder above: read from there, but not through a link leading elsewhere."""
    root = tmp_path / "collection"
    _write(root / "bias.pl", BIAS)
    _write(root / "bk.pl", "q(a, b).\n")
    task1 = root / "task1"
    _write(task1 / "exs.pl", "pos(p(a)).\nneg(p(b)).\n")
    task = load_task(task1, format="popper")
    assert _atoms(task) == ["p(a)", "p(b)"]
    assert task.program.facts[("q", 2)]
    # the shared background may include files beside it, not further out
    _write(root / "more.pl", "q(b, c).\n")
    _write(root / "bk.pl", "q(a, b).\n:- [more].\n")
    assert len(load_task(task1, format="popper").program.facts[("q", 2)]) == 2
    _write(tmp_path / "secret.pl", f"q({SECRET}, b).\n")
    _write(root / "bk.pl", "q(a, b).\n:- ['../secret'].\n")
    with pytest.raises(DataError, match=rf"bk\.pl:2:\d+: '\.\./secret' is .*, {OUTSIDE}"):
        load_task(task1, format="popper")
    # a shared file that is a link out of the folder above
    (root / "bk.pl").unlink()
    (root / "bk.pl").symlink_to(tmp_path / "secret.pl")
    _refused(["data", "check", str(task1), "--format", "popper"], r"bk\.pl: resolves to")
    assert load_task(task1, format="popper", trust_data=True).program.facts[("q", 2)]
    # and the data folder's own files cannot reach the folder above by a link
    (root / "bk.pl").unlink()
    _write(root / "bk.pl", "q(a, b).\n")
    _write(root / "other" / "exs.pl", f"pos(p({SECRET})).\n")
    (task1 / "exs.pl").unlink()
    (task1 / "exs.pl").symlink_to(root / "other" / "exs.pl")
    _refused(["data", "check", str(task1), "--format", "popper"], r"exs\.pl: resolves to")


# -- trust is not taken from a run directory ---------------------------------------------------

TINY_CV = ["cv", "trains", "--folds", "2", "--set", "nodes=10", "--quiet"]
RECORDED = r"records backend\.trust_data = true.*pass --trust-data"


def _unfinish(run_dir: Path) -> None:
    """Make ``run_dir`` an interrupted run again: one unit and the results gone."""
    (run_dir / "units" / "r0-f1.json").unlink()
    (run_dir / "results.json").unlink()


def _one_line(text: str) -> str:
    return " ".join(text.split())


def test_resuming_a_trusted_run_needs_trust_data_again(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    made = runner.invoke(app, [*TINY_CV, "--out", str(run_dir), "--trust-data"])
    assert made.exit_code == 0, made.output
    assert "trust_data = true" in (run_dir / "config.toml").read_text()
    _unfinish(run_dir)
    refused = runner.invoke(app, ["cv", "--resume", str(run_dir), "--quiet"])
    assert refused.exit_code == 2, refused.output
    assert re.search(RECORDED, _one_line(refused.output)), refused.output
    assert not (run_dir / "units" / "r0-f1.json").exists()  # nothing ran
    resumed = runner.invoke(app, ["cv", "--resume", str(run_dir), "--quiet", "--trust-data"])
    assert resumed.exit_code == 0, resumed.output
    assert (run_dir / "units" / "r0-f1.json").exists()


def test_a_tampered_config_toml_grants_no_trust(tmp_path: Path) -> None:
    """Someone hands over a run directory whose config.toml says trust_data = true."""
    run_dir = tmp_path / "run"
    assert runner.invoke(app, [*TINY_CV, "--out", str(run_dir)]).exit_code == 0
    _unfinish(run_dir)
    config = run_dir / "config.toml"
    text = config.read_text()
    assert "trust_data" not in text
    untrusted = '[backend]\nname = "native"\noptions = {}\n'
    assert untrusted in text
    trusted = '[backend]\nname = "native"\n\n[backend.options]\ntrust_data = true\n'
    config.write_text(text.replace(untrusted, trusted))
    assert "trust_data = true" in config.read_text()
    for args in (
        ["cv", "--resume", str(run_dir), "--quiet"],
        ["run", str(config), "--out", str(run_dir), "--resume", "--quiet"],
        ["run", str(config), "--out", str(tmp_path / "copy"), "--quiet"],
    ):
        refused = runner.invoke(app, args)
        assert refused.exit_code == 2, (args, refused.output)
        assert re.search(RECORDED, _one_line(refused.output)), refused.output
    assert not (tmp_path / "copy").exists()
    with pytest.raises(ConfigError, match=RECORDED):
        ilpkit.run(config, out=tmp_path / "copy")
    with pytest.raises(ConfigError, match=RECORDED):  # the API's resume of the same run
        ilpkit.cv("trains", out=run_dir, folds=2, settings={"nodes": 10}, resume=True)
    assert not (run_dir / "units" / "r0-f1.json").exists()
    # the user's own --trust-data (or trust_data=True) is trust
    resumed = runner.invoke(
        app, ["run", str(config), "--out", str(run_dir), "--resume", "--quiet", "--trust-data"]
    )
    assert resumed.exit_code == 0, resumed.output
    assert (run_dir / "units" / "r0-f1.json").exists()
    results = ilpkit.run(config, out=tmp_path / "copy", trust_data=True)
    assert results["n_units"] == 2


def test_trust_data_given_again_on_the_command_line_is_kept(tmp_path: Path) -> None:
    """``--set backend.trust_data=true`` on the command line is the user's too."""
    run_dir = tmp_path / "run"
    made = runner.invoke(app, [*TINY_CV, "--out", str(run_dir), "--trust-data"])
    assert made.exit_code == 0, made.output
    config = run_dir / "config.toml"
    copy = tmp_path / "copy"
    args = ["run", str(config), "--out", str(copy), "--quiet"]
    again = runner.invoke(app, [*args, "--set", "backend.trust_data=true"])
    assert again.exit_code == 0, again.output
    assert "trust_data = true" in (copy / "config.toml").read_text()
    assert os.path.isfile(copy / "results.json")
