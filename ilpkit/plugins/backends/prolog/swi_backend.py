"""The ``swi`` backend: SWI-Prolog inside the Python process (janus-swi or pyswip).

Why in process: no pipe, no second copy of the data, and the same engine the subprocess
backend drives, so the same answers.  Each backend instance loads the program that
:mod:`~ilpkit.plugins.backends.prolog.export` writes (never a raw data file) into a Prolog module of
its own, ``ilpkit_task_<n>``, together with a private copy of ``ilpkit_server.pl`` and the
hooks below, so several instances live side by side; :meth:`SwiBackend.close` unloads and
destroys that module.  The module's default import module is ``system``, so nothing a host
program defines in ``user`` leaks into the task.

Every request is one call: a string in (the request term), a string out (coverage ids as
text, answers written canonically); a batch of clauses is one call, each clause's coverage
computed inside Prolog for all its candidate examples, with the inference limit per example
and the time limit per clause (as in the subprocess backend).

Bridges (option ``bridge``): ``janus`` (janus-swi, SWI-Prolog >= 9.1.12) and ``pyswip``
(any SWI-Prolog with a shared library, e.g. Debian's 9.0.4).  A process holds one libswipl,
so the first bridge started wins and the other is refused with a message.  A bridge is only
imported after a child process proved that importing it works, since a libswipl that finds
another version's home aborts the process (``incompatible VM-signature``).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal, Protocol

from pydantic import Field

from ilpkit.core.coverage import Coverage
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.safety import query_roots
from ilpkit.core.task import Task
from ilpkit.errors import (
    BackendUnavailable,
    IlpkitError,
    ResourceLimitExceeded,
    UnsafeProgramError,
)
from ilpkit.plugins.backends.base import (
    Backend,
    BackendOptions,
    BackendStatus,
    describe_clause,
    limit_hint,
)
from ilpkit.plugins.backends.prolog.export import ExportedProgram, export_program
from ilpkit.plugins.backends.prolog.profiles import swipl_hooks
from ilpkit.plugins.backends.prolog.subprocess_backend import (
    AmongMemo,
    PrologEngineError,
    _calls,
    _rename,
    _text,
    load_warnings,
    parse_ids,
)
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import (
    Clause,
    Const,
    Struct,
    Term,
    Var,
    conjunction,
    indicator,
    list_items,
    to_prolog,
)

log = logging.getLogger(__name__)

BridgeName = Literal["janus", "pyswip"]
JANUS_HOME_ENV: Final = "ILPKIT_SWIPL_JANUS_HOME"
JANUS_MIN_VERSION: Final = 90112


class SwiOptions(BackendOptions):
    """Options of the swi backend."""

    bridge: Literal["auto", "janus", "pyswip"] = Field(
        default="auto",
        description="How Python reaches SWI-Prolog: janus (janus-swi, SWI-Prolog >= 9.1.12), "
        "pyswip (older SWI-Prolog, e.g. Debian's 9.0.4), or auto (janus when it works, "
        "else pyswip; the bridge already running in this process, if any).",
    )
    memory_limit_mb: float | None = Field(
        default=1024.0,
        gt=0,
        description="Memory one query may take (MB): the growth of this process's resident "
        "memory while SWI-Prolog answers it, checked every 50 ms (atoms and big integers "
        "included); a query past it is a resource-limit error and the backend stays usable. "
        "None = unlimited.",
    )
    janus_home: str | None = Field(
        default=None,
        description="SWI-Prolog home for janus (the directory with boot.prc); default "
        f"${JANUS_HOME_ENV}, else $SWI_HOME_DIR, else the home of the libswipl janus-swi "
        "was built against.",
    )


# --------------------------------------------------------------------------------------------
# Prolog side: the engine hooks of ilpkit_server.pl for an in-process SWI-Prolog, and the
# request entry point.  Loaded into each task module after the server file.
# --------------------------------------------------------------------------------------------

REQUESTS: Final = r"""
% ilpkit_swi_request(+Text, -Reply): Text is one request term, Reply a string:
%   load(File)                          l(Problems)
%   cover(Clauses, Among, Secs, Steps)  c followed by each clause's ids, "1,2,3;;4"
%   answers(Goal, Max, Secs, Steps)     a(Answers)
%   defined(Name, Arity)                dtrue | dfalse
%   limits(MB)                          ok
% or, on an error, e(Kind, Text, Culprit, Index): Culprit is the Name/Arity of an unknown
% procedure, thrown for a term that is no error(_, _), else none; Index is the clause of a
% batch, else -1.
% Nothing escapes: a Prolog exception reaching the bridge would be turned into a message
% by SWI-Prolog's message translation (see ilpkit_message/2 in the server for why not).
ilpkit_swi_request(Text, Reply) :-
    (   catch(( term_string(Request, Text),
                ilpkit_swi_handle(Request, Reply0) ),
              E,
              ilpkit_swi_error(E, -1, Reply0))
    ->  Reply = Reply0
    ;   Reply = "e(error,'the request failed',none,-1)"
    ).

ilpkit_swi_handle(load(File), Reply) :- !,
    ilpkit_load(File, Problems),
    ilpkit_prepare,
    ilpkit_swi_canonical(l(Problems), Reply).
ilpkit_swi_handle(cover(Clauses, Among0, Secs, Steps), Reply) :- !,
    ilpkit_among(Among0, Among),
    ilpkit_call_batch(ilpkit_swi_cover(Clauses, 0, Among, Secs, Steps, Parts, Error)),
    (   Error == none
    ->  atomic_list_concat([c|Parts], Reply0),
        atom_string(Reply0, Reply)
    ;   Error = error(E, Index),
        ilpkit_swi_error(E, Index, Reply)
    ).
ilpkit_swi_handle(answers(Goal, Max, Secs, Steps), Reply) :- !,
    ilpkit_call_time_limited(ilpkit_answers(Goal, Max, Steps, Answers), Secs),
    ilpkit_swi_canonical(a(Answers), Reply).
ilpkit_swi_handle(limits(MB), "ok") :- !,
    ilpkit_set_memory_limit(MB).
ilpkit_swi_handle(safe(Goals), Reply) :- !,
    context_module(M),
    ilpkit_swi_prove(Goals, M, [], Made, Reply),
    forall(ilpkit_member(PI, Made), abolish(M:PI)).
ilpkit_swi_handle(defined(Name, Arity), Reply) :- !,
    (   ilpkit_defined(Name, Arity)
    ->  Reply = "dtrue"
    ;   Reply = "dfalse"
    ).

% ilpkit_swi_prove(+Goals, +M, +Made0, -Made, -Reply): SWI-Prolog's library(sandbox) proves
% each goal (and all it can call) safe in module M; Reply is "ok" or unsafe(Goal, Text).  A
% call of a predicate nothing defines (BoostSRL's all/3) only raises an existence error when
% run, but stops the proof: it is declared dynamic for the proof (Made) and abolished after.
ilpkit_swi_prove([], _, Made, Made, "ok").
ilpkit_swi_prove([Goal|Goals], M, Made0, Made, Reply) :-
    catch(sandbox:safe_goal(M:Goal), E, true),
    (   var(E)
    ->  ilpkit_swi_prove(Goals, M, Made0, Made, Reply)
    ;   E = error(existence_error(procedure, _:Head), _),
        callable(Head),
        functor(Head, Name, Arity),
        \+ current_predicate(M:Name/Arity),
        \+ ilpkit_member(Name/Arity, Made0)
    ->  dynamic(M:Name/Arity),
        ilpkit_swi_prove([Goal|Goals], M, [Name/Arity|Made0], Made, Reply)
    ;   Made = Made0,
        ilpkit_message(E, Text0),
        (   E = error(_, sandbox(_, Parents)),
            is_list(Parents),
            ilpkit_swi_chain(Parents, Chain)
        ->  ilpkit_format_atom('~w, reached through ~w', [Text0, Chain], Text)
        ;   Text = Text0
        ),
        ilpkit_swi_canonical(unsafe(Goal, Text), Reply)
    ).

% "copy_file/2 <- ev/1": the predicates through which the sandbox reached a goal.
ilpkit_swi_chain(Parents, Chain) :-
    findall(PI,
            ( ilpkit_member(P, Parents),
              strip_module(P, _, G),
              callable(G),
              functor(G, N, A),
              \+ ilpkit_member(N, [',', ';', '->', '*->', '\\+', catch, findall, forall]),
              ilpkit_format_atom('~q/~w', [N, A], PI) ),
            PIs),
    PIs \== [],
    atomic_list_concat(PIs, ' <- ', Chain).

ilpkit_swi_cover([], _, _, _, _, [], none).
ilpkit_swi_cover([c(Head, Body)|Clauses], I, Among, Secs, Steps, Parts, Error) :-
    catch(ilpkit_call_time_limited(ilpkit_coverage(Head, Body, Among, Steps, Ids), Secs),
          E, true),
    (   var(E)
    ->  atomic_list_concat(Ids, ',', Part),
        (   I =:= 0
        ->  Parts = [Part|More]
        ;   Parts = [';', Part|More]
        ),
        I1 is I + 1,
        ilpkit_swi_cover(Clauses, I1, Among, Secs, Steps, More, Error)
    ;   Parts = [],
        Error = error(E, I),
        (   E = ilpkit_limit(memory(_))
        ->  garbage_collect,
            garbage_collect_atoms
        ;   true
        )
    ).

ilpkit_swi_error(E, Index, Reply) :-
    catch(( ilpkit_swi_classify(E, Kind, Text, Culprit),
            ilpkit_swi_canonical(e(Kind, Text, Culprit, Index), Reply0) ),
          _, fail), !,
    Reply = Reply0.
ilpkit_swi_error(_, Index, Reply) :-
    format(string(Reply), "e(error,'an error that ilpkit cannot write',none,~q)", [Index]).

ilpkit_swi_classify(E, error, 'an unbound exception', none) :-
    var(E), !.
ilpkit_swi_classify(E, limit, Text, none) :-
    E = ilpkit_limit(What), !,
    ilpkit_limit_text(What, Text).
ilpkit_swi_classify(E, limit, Text, none) :-
    ilpkit_is_limit(E), !,
    ilpkit_message(E, Text).
ilpkit_swi_classify(E, error, Text, Culprit) :-
    ilpkit_message(E, Text),
    (   E = error(Formal, _), nonvar(Formal)
    ->  (   Formal = existence_error(procedure, C)
        ->  strip_module(C, _, Culprit)
        ;   Culprit = none
        )
    ;   Culprit = thrown
    ).

ilpkit_swi_canonical(Term, String) :-
    with_output_to(string(String), write_canonical(Term)).
"""

GLUE: Final = swipl_hooks(in_process=True) + "\n" + REQUESTS
"""What each task module loads after ilpkit_server.pl."""


# --------------------------------------------------------------------------------------------
# Bridges: detection (in a child process), start (once per process)
# --------------------------------------------------------------------------------------------


class Bridge(Protocol):
    name: str

    def run(self, goal: str) -> None: ...

    def request(self, module: str, text: str) -> str: ...


@dataclass(frozen=True)
class Preflight:
    """What a child process found when it started a bridge."""

    bridge: BridgeName
    ok: bool
    version: str
    """SWI-Prolog version (``9.2.9``), empty when unknown."""
    home: str
    reason: str
    """Why it does not work, with what to do (empty when ``ok``)."""


_LOCK = threading.RLock()
_ACTIVE: dict[BridgeName, Bridge] = {}
_PREFLIGHTS: dict[tuple[str, str], Preflight] = {}
_MODULES = itertools.count(1)


def version_text(number: int | None) -> str:
    """``90209`` -> ``9.2.9``."""
    if not number:
        return ""
    return f"{number // 10000}.{number // 100 % 100}.{number % 100}"


def swipl_on_path() -> tuple[str | None, str, str]:
    """The ``swipl`` on PATH, its version and its libswipl (``""`` when unknown), asked
    without ``SWI_HOME_DIR`` (which would make another version's ``swipl`` abort)."""
    exe = shutil.which("swipl")
    if exe is None:
        return None, "", ""
    env = {k: v for k, v in os.environ.items() if k != "SWI_HOME_DIR"}
    try:
        out = subprocess.run(
            [exe, "--dump-runtime-variables"], capture_output=True, text=True, timeout=30, env=env
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return exe, "", ""
    version = re.search(r'PLVERSION="(\d+)"', out)
    lib = re.search(r'PLLIBSWIPL="([^"]*)"', out)
    return (
        exe,
        version_text(int(version.group(1))) if version else "",
        lib.group(1) if lib else "",
    )


def _path_note() -> str:
    exe, version, _ = swipl_on_path()
    if exe is None:
        return "no swipl on PATH"
    return f"swipl on PATH: {exe} ({version or 'version unknown'})"


def janus_home(options: SwiOptions) -> tuple[str, str]:
    """The home to give janus and where it came from (``""`` = derive from the library)."""
    if options.janus_home:
        return options.janus_home, "option janus_home"
    if os.environ.get(JANUS_HOME_ENV):
        return os.environ[JANUS_HOME_ENV], f"${JANUS_HOME_ENV}"
    if os.environ.get("SWI_HOME_DIR"):
        return os.environ["SWI_HOME_DIR"], "$SWI_HOME_DIR"
    return "", "the libswipl janus-swi is linked against"


def preflight(bridge: BridgeName, options: SwiOptions | None = None) -> Preflight:
    """Start ``bridge`` in a child process and report what happened (cached per process)."""
    options = options if options is not None else SwiOptions()
    home, source = janus_home(options) if bridge == "janus" else ("", "")
    key = (bridge, home)
    with _LOCK:
        if key not in _PREFLIGHTS:
            _PREFLIGHTS[key] = _run_preflight(bridge, home, source)
        return _PREFLIGHTS[key]


def _run_preflight(bridge: BridgeName, home: str, source: str) -> Preflight:
    if bridge == "janus":
        from ilpkit.plugins.backends.prolog.swi_janus import PREFLIGHT

        args = [sys.executable, "-c", PREFLIGHT, home]
    else:
        from ilpkit.plugins.backends.prolog.swi_pyswip import PREFLIGHT

        args = [sys.executable, "-c", PREFLIGHT]
    try:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        return Preflight(bridge, False, "", home, f"cannot run the {bridge} check: {exc}")
    stages: dict[str, dict[str, object]] = {}
    for line in proc.stdout.splitlines():
        if line.startswith("ILPKIT "):
            info = json.loads(line[7:])
            stages[str(info["stage"])] = info
    fatal = _fatal_text(proc.stderr)
    if bridge == "janus":
        return _janus_verdict(stages, fatal, home, source, proc.returncode)
    return _pyswip_verdict(stages, fatal, proc.returncode)


def _fatal_text(stderr: str) -> str:
    """The gist of a crash: SWI-Prolog's ``[FATAL ERROR: ...]`` or the last lines."""
    m = re.search(r"\[FATAL ERROR:[^\]]*\]", stderr, re.S)
    if m:
        return " ".join(m.group(0).split())
    lines = [x for x in stderr.strip().splitlines() if x.strip()]
    return " | ".join(lines[-3:])


def _janus_verdict(
    stages: dict[str, dict[str, object]], fatal: str, home: str, source: str, rc: int
) -> Preflight:
    install = (
        "install it against SWI-Prolog >= 9.1.12: SWIPL=/path/to/that/bin/swipl pip install "
        "--no-cache-dir --no-binary janus-swi janus-swi (.ci/install-prolog.sh and "
        ".ci/install-bridges.sh do this), or use bridge='pyswip'"
    )
    if "missing" in stages:
        return Preflight("janus", False, "", home, f"janus-swi is not installed; {install}")
    if "link" in stages:
        return Preflight(
            "janus",
            False,
            "",
            home,
            f"janus-swi cannot load its SWI-Prolog library: {stages['link'].get('error')}; "
            f"reinstall it: {install}",
        )
    located = stages.get("located", {})
    lib = str(located.get("lib") or "?")
    lib_version = version_text(_int(located.get("lib_version")))
    used_home = str(located.get("home") or home)
    ready = stages.get("ready")
    if ready is not None:
        number = _int(ready.get("version"))
        version = version_text(number)
        if number is not None and number < JANUS_MIN_VERSION:
            return Preflight(
                "janus",
                False,
                version,
                used_home,
                f"janus-swi runs SWI-Prolog {version}, older than 9.1.12; {install}",
            )
        return Preflight("janus", True, version, str(ready.get("home") or used_home), "")
    built = f"janus-swi is linked against {lib}" + (
        f" (SWI-Prolog {lib_version})" if lib_version else ""
    )
    if "VM-signature" in fatal or "boot" in fatal or "home" in fatal.lower():
        where = (
            f"the home {used_home} (from {source})" if used_home else "the SWI-Prolog home it found"
        )
        derived = ""
        if lib != "?":
            derived = (
                f" (for this library: {_home_of(lib) or 'the lib/swipl directory of its build'})"
            )
        reason = (
            f"janus-swi cannot start SWI-Prolog: {fatal}. {built}, but {where} belongs to "
            f"another SWI-Prolog version. Set {JANUS_HOME_ENV} to the home of the SWI-Prolog "
            f"janus-swi was built against, the directory holding boot.prc{derived}; do not "
            f"export SWI_HOME_DIR (it breaks other SWI-Prolog versions). {_path_note()}"
        )
    else:
        reason = (
            f"janus-swi did not start (exit code {rc}): {fatal or 'no message'}. {built}; "
            f"home {used_home or '(none)'} (from {source}). {_path_note()}"
        )
    return Preflight("janus", False, lib_version, used_home, reason)


def _pyswip_verdict(stages: dict[str, dict[str, object]], fatal: str, rc: int) -> Preflight:
    install = (
        "install SWI-Prolog with its shared library (Debian: apt-get install swi-prolog-nox) "
        "and put its swipl on PATH, or set both LIBSWIPL_PATH and SWI_HOME_DIR"
    )
    if "missing" in stages:
        return Preflight(
            "pyswip", False, "", "", f"pyswip is not installed (pip install pyswip); {_path_note()}"
        )
    if "link" in stages:
        return Preflight(
            "pyswip",
            False,
            "",
            "",
            f"pyswip cannot find SWI-Prolog: {stages['link'].get('error')}; {install}",
        )
    located = stages.get("located", {})
    lib = str(located.get("lib") or "?")
    home = str(located.get("home") or "")
    ready = stages.get("ready")
    if ready is not None:
        return Preflight(
            "pyswip", True, version_text(_int(ready.get("version"))), str(ready.get("home")), ""
        )
    env_home = os.environ.get("SWI_HOME_DIR")
    if "VM-signature" in fatal and env_home:
        if lib == "?":
            lib = swipl_on_path()[2] or "the libswipl of the swipl on PATH"
        reason = (
            f"pyswip cannot start SWI-Prolog: {fatal}. pyswip loads {lib}, but SWI_HOME_DIR="
            f"{env_home} is another SWI-Prolog version's home; unset SWI_HOME_DIR (for janus, "
            f"set {JANUS_HOME_ENV} instead). {_path_note()}"
        )
    else:
        reason = (
            f"pyswip did not start SWI-Prolog (exit code {rc}): {fatal or 'no message'}; "
            f"library {lib}, home {home or '?'}. {_path_note()}"
        )
    return Preflight("pyswip", False, "", home, reason)


def _int(value: object) -> int | None:
    return value if isinstance(value, int) else None


def _home_of(lib: str) -> str:
    """The SWI-Prolog home of a libswipl: ``swipl.home`` beside it, else the first parent
    directory holding ``boot.prc``."""
    d = Path(lib).parent
    marker = d / "swipl.home"
    if marker.exists():
        return str((d / marker.read_text().strip()).resolve())
    for parent in [d, *d.parents]:
        if (parent / "boot.prc").exists():
            return str(parent)
    return ""


def _foreign_bridge() -> BridgeName | None:
    """A bridge someone else started in this process (not through this module)."""
    if "janus_swi" in sys.modules:
        return "janus"
    if "pyswip.prolog" in sys.modules:
        return "pyswip"
    return None


def start_bridge(options: SwiOptions) -> Bridge:
    """The process's bridge, started now if needed; refuses a second libswipl."""
    with _LOCK:
        running: BridgeName | None = active_bridge() or _foreign_bridge()
        wanted = options.bridge
        if running is not None:
            if wanted not in ("auto", running):
                other = "pyswip" if wanted == "janus" else "janus"
                raise BackendUnavailable(
                    f"this process already runs SWI-Prolog through {running}; a process can "
                    f"hold one SWI-Prolog library, so it cannot start {wanted} as well. Use "
                    f"bridge='{running}' (or 'auto') here, or run the {wanted} backend in "
                    f"another process (e.g. the processes executor); {other} is in use."
                )
            if running not in _ACTIVE:
                _ACTIVE[running] = _make_bridge(running, options)
            return _ACTIVE[running]
        order: list[BridgeName] = ["janus", "pyswip"] if wanted == "auto" else [wanted]
        reasons = []
        for name in order:
            check = preflight(name, options)
            if check.ok:
                bridge = _make_bridge(name, options, home=check.home)
                _ACTIVE[name] = bridge
                log.info("swi backend: %s bridge, SWI-Prolog %s", name, check.version)
                return bridge
            reasons.append(f"{name}: {check.reason}")
        raise BackendUnavailable("the swi backend cannot start SWI-Prolog:\n" + "\n".join(reasons))


def _make_bridge(name: BridgeName, options: SwiOptions, *, home: str = "") -> Bridge:
    if name == "janus":
        from ilpkit.plugins.backends.prolog.swi_janus import JanusBridge

        return JanusBridge(home or janus_home(options)[0] or None)
    from ilpkit.plugins.backends.prolog.swi_pyswip import PyswipBridge

    return PyswipBridge()


def active_bridge() -> BridgeName | None:
    """The bridge this process runs (None before the first ``swi`` backend starts)."""
    for name in _ACTIVE:
        return "janus" if name == "janus" else "pyswip"
    return None


# --------------------------------------------------------------------------------------------
# The backend
# --------------------------------------------------------------------------------------------


class SwiBackend(Backend):
    """Coverage and saturation answered by SWI-Prolog in this process."""

    name = "swi"
    prefers_batches = True
    """A search asks for all refinements of a node in one ``coverage_many`` call
    (:meth:`ilpkit.core.search.SearchContext.prefetch`): one request instead of one per
    clause."""

    def __init__(self, options: SwiOptions | None = None) -> None:
        super().__init__(options if options is not None else SwiOptions())
        self.opts: SwiOptions = self.options  # type: ignore[assignment]
        self.bridge_name = ""
        self.version = ""
        self.warnings: list[str] = []
        self.load_seconds = 0.0
        self._bridge: Bridge | None = None
        self._module: str | None = None
        self._support: str | None = None
        self._exported: ExportedProgram | None = None
        self._defined: dict[tuple[str, int], bool] = {}
        self._among = AmongMemo()
        self._reader = PrologReader(double_quotes="string")
        self._finalizer: weakref.finalize[..., SwiBackend] | None = None

    @classmethod
    def probe(cls) -> list[BackendStatus]:
        """Each bridge started in a child process (nothing is loaded into this one)."""
        out = []
        names: tuple[BridgeName, ...] = ("janus", "pyswip")
        for name in names:
            variant = f"bridge={name}"
            running = active_bridge() or _foreign_bridge()
            if running is not None and running != name:
                out.append(
                    BackendStatus(variant, False, "", f"this process already runs {running}")
                )
                continue
            check = preflight(name)
            out.append(BackendStatus(variant, check.ok, check.version, check.reason))
        return out

    # -- lifecycle ------------------------------------------------------------------------------
    def _load(self, task: Task) -> None:
        import time

        exported = export_program(
            task,
            trust_data=self.options.trust_data,
            bound_integers=True,
            random_seed=self.random_seed,
        )
        self.close()
        bridge = start_bridge(self.opts)
        self._bridge = bridge
        self.bridge_name = bridge.name
        module = f"ilpkit_task_{next(_MODULES)}"
        workdir = Path(tempfile.mkdtemp(prefix="ilpkit-swi-"))
        start = time.perf_counter()
        try:
            support = workdir / f"{module}.pl"
            support.write_text(_server_text() + "\n" + GLUE, encoding="utf-8")
            program = workdir / "program.pl"
            program.write_text(exported.text, encoding="utf-8")
            with _LOCK:
                bridge.run(
                    f"M = {module}, set_module(M:class(temporary)), "
                    f"set_module(M:base(system)), "
                    f"load_files(M:{_quoted(str(support))}, [silent(true)])"
                )
                self._module = module
                self._support = str(support)
                self._finalizer = weakref.finalize(self, _wipe, bridge, module, str(support))
                self._finalizer.atexit = False
                reply = self._request(f"load({_quoted(str(program))})", "load")
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        self.load_seconds = time.perf_counter() - start
        self._exported = exported
        self._defined = {}
        term = self._parse(reply)
        if type(term) is not Struct or term.name != "l":
            self.close()
            raise PrologEngineError(f"SWI-Prolog: unexpected answer to load: {reply[:300]}")
        self._load_problems(list_items(term.args[0])[0])
        if not self.options.trust_data:
            self._prove_safe(task)
        self.version = self._version()
        limit = self.opts.memory_limit_mb
        self._request(f"limits({'none' if limit is None else repr(float(limit))})", "limits")

    def _prove_safe(self, task: Task) -> None:
        """Untrusted data runs inside this process, where no operating-system fence can
        hold it: SWI-Prolog's ``library(sandbox)`` (what SWISH relies on) must prove every
        predicate a query can reach safe, or the load is refused (docs/security.md)."""
        goals = [
            to_prolog(
                Struct(name, tuple(Var(f"_{i}") for i in range(arity))) if arity else Const(name)
            )
            for name, arity in query_roots(task)
        ]
        if not goals:
            return
        with _LOCK:
            self._bridge.run("use_module(library(sandbox), [])")  # type: ignore[union-attr]
        reply = self._request(f"safe([{', '.join(goals)}])", "safety proof")
        if reply == "ok":
            return
        self.close()
        if reply.startswith("e("):
            self._raise(reply, "safety proof")
        found = self._parse(reply)
        what = to_prolog(found.args[0]) if type(found) is Struct and found.args else reply
        why = _text(found.args[1]) if type(found) is Struct and len(found.args) > 1 else ""
        raise UnsafeProgramError(
            f"SWI-Prolog's sandbox cannot prove {what} safe: {self._clean(why)}\n"
            "the in-process bridges (janus, pyswip) run untrusted data only when "
            "library(sandbox) proves every goal safe; use --backend subprocess, whose engine "
            "runs inside an operating-system fence, or pass --trust-data if you trust these "
            "files (docs/security.md)"
        )

    def _version(self) -> str:
        reply = self._request("answers(ilpkit_engine(_, _), 1, none, none)", "version")
        items = list_items(self._parse(reply).args[0])[0]  # type: ignore[union-attr]
        return _text(items[0].args[1]) if items and type(items[0]) is Struct else ""

    def _load_problems(self, problems: list[Term]) -> None:
        assert self._exported is not None
        try:
            self.warnings = load_warnings(self._exported, problems, "SWI-Prolog", self._clean)
        except PrologEngineError:
            self.close()
            raise

    def close(self) -> None:
        """Unload this instance's module (its program, examples and support code)."""
        self._among.forget()
        if self._finalizer is not None:
            with _LOCK:
                self._finalizer()
            self._finalizer = None
        self._module = None
        self._support = None

    @property
    def module(self) -> str | None:
        """The Prolog module holding this instance's task (None when nothing is loaded)."""
        return self._module

    # -- requests -------------------------------------------------------------------------------
    def _request(self, text: str, what: str) -> str:
        if self._bridge is None or self._module is None:
            raise IlpkitError(f"the {self.name} backend has no task loaded; call load(task)")
        with _LOCK:
            return self._bridge.request(self._module, text)

    def _limits(self) -> tuple[str, str]:
        o = self.opts
        secs = "none" if o.timeout is None else repr(float(o.timeout))
        steps = "none" if o.step_limit is None else str(int(o.step_limit))
        return secs, steps

    def _parse(self, text: str) -> Term:
        try:
            return self._reader.read_term(text, name="SWI-Prolog answer")
        except IlpkitError as exc:
            raise IlpkitError(f"cannot read SWI-Prolog's answer {text[:200]!r}: {exc}") from None

    def _clean(self, text: str) -> str:
        """An engine message without this instance's module name."""
        return text.replace(f"{self._module}:", "") if self._module else text

    def _raise(self, reply: str, what: list[str] | str) -> None:
        """Turn an ``e(Kind, Text, Culprit, Index)`` reply into an exception."""
        term = self._parse(reply)
        if type(term) is not Struct or term.name != "e" or len(term.args) != 4:
            raise IlpkitError(f"unexpected answer from SWI-Prolog: {reply[:300]}")
        kind, text, culprit, index = term.args
        if isinstance(what, list):
            i = index.value if type(index) is Const and type(index.value) is int else -1
            what = what[i] if 0 <= i < len(what) else "request"
        message = f"SWI-Prolog: {self._clean(_text(text))}"
        if _text(kind) == "limit":
            raise ResourceLimitExceeded(f"{message} ({what}){limit_hint(message)}")
        hint = ""
        if culprit == Const("thrown"):
            hint = self._throwers()
        elif culprit != Const("none"):
            hint = self._callers(culprit)
        raise PrologEngineError(f"{message} ({what}){hint}")

    def _callers(self, culprit: Term) -> str:
        """Where the background calls an unknown procedure (the data file locations)."""
        if not (type(culprit) is Struct and culprit.name == "/" and len(culprit.args) == 2):
            return ""
        name, arity = culprit.args
        key = (
            _text(name),
            arity.value if type(arity) is Const and type(arity.value) is int else -1,
        )
        places = self._locations(lambda g: _calls(g, key))
        return f"; called from {', '.join(places[:5])}" if places else ""

    def _throwers(self) -> str:
        """Where the background throws, for an exception that is no ISO error."""
        places = self._locations(lambda g: _calls(g, ("throw", 1)))
        return f"; background clauses that throw: {', '.join(places[:5])}" if places else ""

    def _locations(self, test: Callable[[Term], bool]) -> list[str]:
        places = []
        for clauses in self.task.program.clauses.values():
            for sc in clauses:
                if sc.location is not None and any(test(g) for g in sc.clause.body):
                    places.append(str(sc.location))
        return places

    # -- saturation -----------------------------------------------------------------------------
    def answers(self, goal: Term, max_answers: int | None) -> list[Term]:
        if (max_answers is not None and max_answers <= 0) or not self._callable_body(
            Clause(goal, [goal])
        ):
            return []
        secs, steps = self._limits()
        limit = "inf" if max_answers is None else str(int(max_answers))
        what = f"goal: {to_prolog(goal)}"
        reply = self._request(f"answers({to_prolog(goal, 999)},{limit},{secs},{steps})", what)
        if reply.startswith("a("):
            term = self._parse(reply)
            assert type(term) is Struct
            items, _ = list_items(term.args[0])
            return [_rename(goal, a) for a in items]
        self._raise(reply, what)
        raise AssertionError("unreachable")

    # -- coverage -------------------------------------------------------------------------------
    def _coverage(self, clause: Clause, among: Coverage | None) -> Coverage:
        return self._cover([clause], among)[0]

    def coverage_many(
        self, clauses: Sequence[Clause], among: Coverage | None = None
    ) -> list[Coverage]:
        """Coverage of each clause, the whole batch in one call."""
        self._check_among(among)
        return self._cover(list(clauses), among)

    def _cover(self, clauses: list[Clause], among: Coverage | None) -> list[Coverage]:
        n = self.n_examples
        out: list[Coverage] = [Coverage.empty(n)] * len(clauses)
        send: list[int] = []
        if among is None or len(among):
            send = [i for i, c in enumerate(clauses) if self._callable_body(c)]
        if not send:
            return out
        secs, steps = self._limits()
        texts = []
        for i in send:
            c = clauses[i].canonical()
            texts.append(to_prolog(Struct("c", (c.head, conjunction(c.body))), 999))
        among_text = self._among.request_text(among)
        request = f"cover([{','.join(texts)}],{among_text},{secs},{steps})"
        try:
            reply = self._request(request, "coverage")
        except BaseException:
            self._among.forget()
            raise
        if not reply.startswith("c"):
            self._among.forget()
            self._raise(reply, [f"clause: {describe_clause(clauses[i])}" for i in send])
        parts = reply[1:].split(";")
        if len(parts) != len(send):
            self._among.forget()
            raise IlpkitError(f"SWI-Prolog answered {len(parts)} of {len(send)} clauses")
        for i, part in zip(send, parts, strict=True):
            if part:
                out[i] = Coverage(parse_ids(part), n, trusted=True)
        return out

    def _callable_body(self, clause: Clause) -> bool:
        """False when a top-level body literal's predicate is defined nowhere: the native
        backend lets such a literal fail (and answers no goal of it)."""
        program = self.task.program
        for g in clause.body:
            if type(g) is Var or not (type(g) is Struct or type(g) is Const):
                continue
            try:
                key = indicator(g)
            except TypeError:
                continue
            if key in program.facts or key in program.clauses or key in program.dynamic:
                continue
            known = self._defined.get(key)
            if known is None:
                reply = self._request(
                    f"defined({to_prolog(Const(key[0]), 999)},{key[1]})", "defined/2"
                )
                known = self._defined[key] = reply == "dtrue"
            if not known:
                return False
        return True


def _server_text() -> str:
    from importlib.resources import files

    return files("ilpkit.plugins.backends.prolog").joinpath("ilpkit_server.pl").read_text("utf-8")


def _quoted(text: str) -> str:
    return to_prolog(Const(text), 0)


def _wipe(bridge: Bridge, module: str, support: str) -> None:
    """Unload the support file and destroy the module (every clause of the task)."""
    with contextlib.suppress(Exception):
        bridge.run(
            f"catch(unload_file({_quoted(support)}), _, true), "
            f"catch('$destroy_module'({module}), _, true)"
        )
    forget = getattr(bridge, "forget", None)
    if forget is not None:
        forget(module)


SPEC = PluginSpec(
    kind="backend",
    name="swi",
    factory=SwiBackend,
    options=SwiOptions,
    doc="SWI-Prolog in this process (janus-swi or pyswip); full Prolog semantics, no pipe.",
)
