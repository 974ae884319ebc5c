"""The ``subprocess`` backend: any supported Prolog (SWI, GNU Prolog, YAP) as a child process.

The engine is started once per :meth:`load` with ``ilpkit_server.pl`` and the engine's prelude,
loads the exported program (:mod:`~ilpkit.plugins.backends.prolog.export`), and then answers
requests
on its standard input, one term each (the protocol is in the server file).  A batch of clauses
is one request; covered ids come back one line per clause.  The server reads the program
with ``read_term/3`` and asserts it (one error report for every engine, with the term's
number, mapped back to the data file).  Measured on mutagenesis (15k facts) with GNU Prolog:
0.17 s to load this way against 1.3 s for ``consult/1`` (which runs its compiler), while
queries on consulted code ran about twice as fast; SWI-Prolog runs asserted code as fast.

Semantics are the native backend's: a clause covers an example iff ``\\+ \\+ (H = E, Body)``;
a top-level body literal whose predicate nothing defines fails (the native engine's rule for
undefined literals, so such a clause covers nothing); mode predicates without definitions
are declared dynamic.

Limits: the engine's own inference limit (per example) and time limit (per clause) where it
has them; otherwise the backend waits at most that long and then kills and restarts the
engine.  On an engine that cannot count inferences, ``step_limit`` is approximated by
``guard_seconds`` of wall-clock time.  Either way :class:`ResourceLimitExceeded` names the
clause and the backend stays usable; so it does after a crash (the engine is restarted and
the request that crashed it fails with a clear error).
"""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import Field

from ilpkit.core.coverage import Coverage
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.task import Task
from ilpkit.core.timelimit import stop_requested
from ilpkit.errors import BackendUnavailable, DataError, IlpkitError, ResourceLimitExceeded
from ilpkit.plugins.backends.base import (
    Backend,
    BackendOptions,
    BackendStatus,
    describe_clause,
    limit_hint,
)
from ilpkit.plugins.backends.prolog.export import ExportedProgram, export_program
from ilpkit.plugins.backends.prolog.fence import FenceUnavailable, fence_for
from ilpkit.plugins.backends.prolog.process import (
    EngineDied,
    EngineProcess,
    EngineStopped,
    EngineTimeout,
)
from ilpkit.plugins.backends.prolog.profiles import (
    PROFILES,
    RSS_CHECK_EVERY,
    EngineProfile,
    ascii_text,
    atom_table_size,
    beyond,
    identifier_atoms,
    server_source,
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

_GRACE = 5.0
"""Seconds the backend waits beyond an engine's own time limit before killing it."""


class PrologEngineError(DataError):
    """The Prolog engine raised an error for the data (load error, unknown procedure, an
    exception thrown by background code); the message has the engine's text."""


class SubprocessOptions(BackendOptions):
    """Options of the subprocess backend."""

    engine: Literal["swipl", "gprolog", "yap"] = Field(
        default="swipl", description="Prolog engine: swipl, gprolog or yap."
    )
    executable: str | None = Field(
        default=None, description="Path of the engine's executable (default: found on PATH)."
    )
    startup_timeout: float = Field(
        default=120.0,
        gt=0,
        description="Seconds allowed for starting the engine and loading data.",
    )
    memory_limit_mb: float | None = Field(
        default=1024.0,
        gt=0,
        description="Memory one query may take (MB).  swipl: the growth of the engine's "
        "resident memory during a query, checked every 50 ms (atoms and big integers "
        "included), a clean resource-limit error; every engine but yap: the engine process's "
        "address space is also capped at 2 x this + 1024 MB, past which it is restarted and "
        "the query is a resource-limit error.  None = unlimited.",
    )
    guard_seconds: float | None = Field(
        default=60.0,
        gt=0,
        description="Wall-clock seconds per query on engines that cannot count inferences "
        "(gprolog, yap) when step_limit is set and timeout is not; None = wait forever.",
    )
    fence: Literal["auto", "require", "off"] = Field(
        default="auto",
        description="Operating-system fence around the engine (docs/security.md): it may "
        "start no process, write only in its scratch folder, read only its own files, the "
        "data folders and the exported program; no capabilities, no sockets.  auto: on, "
        "except with trust_data (trusted directives may write files or run programs) and "
        "without the filesystem part (one warning) where the kernel has no Landlock; "
        "require: on even with trust_data, and an engine does not start without Landlock; "
        "off: for debugging only.  Every mode kills the engine when ilpkit dies.",
    )


class SubprocessBackend(Backend):
    """Coverage and saturation answered by a Prolog engine in a child process."""

    name = "subprocess"
    prefers_batches = True
    """A search asks for all refinements of a node in one ``coverage_many`` call
    (:meth:`ilpkit.core.search.SearchContext.prefetch`): one request instead of one per
    clause."""

    def __init__(self, options: SubprocessOptions | None = None) -> None:
        super().__init__(options if options is not None else SubprocessOptions())
        self.opts: SubprocessOptions = self.options  # type: ignore[assignment]
        self.profile: EngineProfile = PROFILES[self.opts.engine]
        self.version = ""
        self.warnings: list[str] = []
        self._engine: EngineProcess | None = None
        self._exported: ExportedProgram | None = None
        self._workdir: Path | None = None
        self._data_dirs: list[str] = []
        self._defined: dict[tuple[str, int], bool] = {}
        self._requests = 0
        self._among = AmongMemo()
        self.restarts = 0
        """Restarts because the engine's memory passed the profile's ``restart_rss_mb``."""
        self._reader = PrologReader(double_quotes=self.profile.answer_double_quotes)

    # -- availability ---------------------------------------------------------------------------
    @classmethod
    def probe(cls) -> list[BackendStatus]:
        """Start each engine on an empty task: available only if the server answers."""
        out = []
        for engine in PROFILES:
            status = probe_engine(SubprocessOptions(engine=engine))
            out.append(status)
        return out

    def executable(self) -> str:
        exe = self.opts.executable or self.profile.executable
        found = shutil.which(exe)
        if found is None:
            raise BackendUnavailable(
                f"{self.profile.name} executable {exe!r} not found on PATH; install it "
                f"({_INSTALL[self.profile.name]}) or set backend.executable"
            )
        return found

    # -- lifecycle ------------------------------------------------------------------------------
    def _load(self, task: Task) -> None:
        exported = export_program(
            task,
            trust_data=self.options.trust_data,
            rewrite_arithmetic=not self.profile.swi_arithmetic,
            bound_integers=self.profile.integer_guard,
            random_seed=self.random_seed,
        )
        self._check_gaps(task)
        if exported.first_string is not None and not self.profile.strings:
            raise DataError(
                f"{exported.first_string}: the data has double-quoted strings, which "
                f"{self.profile.name} does not have; use the swipl engine or the native backend"
            )
        self.close()
        self._workdir = EngineProcess.new_workdir()
        weakref.finalize(self, shutil.rmtree, self._workdir, True)
        (self._workdir / "program.pl").write_text(self._wire(exported.text, exported), "utf-8")
        (self._workdir / "ilpkit_server.pl").write_text(
            server_source(self.profile.name), encoding="utf-8"
        )
        self._exported = exported
        self._data_dirs = data_dirs(task)
        self._defined = {}
        self._start()

    def _check_gaps(self, task: Task) -> None:
        """Refuse, with their locations, calls of allow-listed built-ins the engine lacks
        (``EngineProfile.lacks``) and ``between(_, inf, _)`` on an engine whose between/3 is
        bounded, rather than fail later with an existence or type error."""
        profile = self.profile
        if not profile.lacks and not profile.bounded_between:
            return
        own = set(task.program.predicates()) | task.program.dynamic
        found: list[str] = []
        for key, clauses in task.program.clauses.items():
            for sc in clauses:
                for goal in _body_goals(sc.clause.body):
                    gkey = indicator(goal)
                    if gkey in own:
                        continue
                    where = str(sc.location) if sc.location else f"a clause of {key[0]}/{key[1]}"
                    if gkey in profile.lacks:
                        found.append(
                            f"{where}: {gkey[0]}/{gkey[1]} is not available on "
                            f"{profile.name} ({profile.lacks_why})"
                        )
                    elif (
                        profile.bounded_between
                        and gkey == ("between", 3)
                        and type(goal) is Struct
                        and goal.args[1] in (Const("inf"), Const("infinite"))
                    ):
                        found.append(
                            f"{where}: between/3 with the upper bound {to_prolog(goal.args[1])} "
                            f"is not available on {profile.name} (its between/3 takes integers "
                            "only)"
                        )
        if found:
            shown = "\n".join(found[:20]) + ("\n..." if len(found) > 20 else "")
            raise DataError(
                f"{shown}\nuse the swipl engine, or the swi or native backend "
                "(docs/backends.md lists what each engine lacks)"
            )

    def _wire(self, text: str, exported: ExportedProgram | None = None) -> str:
        """``text`` as the engine can read it: escaped to ASCII for an engine that reads
        bytes (``EngineProfile.max_char_code``); a character it cannot hold is a
        :class:`DataError` (located in the data for the program text)."""
        limit = self.profile.max_char_code
        if limit is None:
            return text
        found = beyond(text, limit)
        if found is not None:
            i, c = found
            where = ""
            if exported is not None:
                where = exported.origin(text.count("\n", 0, i)) + ": "
            raise DataError(
                f"{where}the character {c!r} (U+{ord(c):04X}) is beyond what "
                f"{self.profile.name} can hold (character codes up to {limit}); use the "
                "swipl engine, or the swi or native backend"
            )
        return ascii_text(text)

    def _start(self) -> None:
        """Start the engine and load the program (also used to restart it)."""
        assert self._workdir is not None and self._exported is not None
        self._among.forget()
        if self._engine is not None:
            self._engine.kill()
        executable = self.executable()
        command = self.profile.command(executable, "ilpkit_server.pl")
        limit = self.opts.memory_limit_mb
        address_mb = None
        if limit is not None and self.profile.address_space_limit:
            address_mb = int(2 * limit + 1024)
        env = None
        if self.profile.atom_table_env is not None:  # sized to the data (GNU Prolog)
            env = {self.profile.atom_table_env: str(atom_table_size(self._exported.text))}
        try:
            fence = fence_for(
                self.fence_mode(), executable, self.profile.name, self._workdir, self._data_dirs
            )
        except FenceUnavailable as exc:
            raise BackendUnavailable(f"{self.profile.name}: {exc}") from None
        engine = EngineProcess(
            command, self._workdir, address_space_mb=address_mb, env=env, fence=fence
        )
        self._engine = engine
        timeout = self.opts.startup_timeout
        try:
            self.version = _wait_ready(engine, timeout)
            if self.profile.atoms_descending:
                engine.send(f"atoms([{','.join(identifier_atoms(self._exported.text))}]).\n")
                atoms_reply = engine.read_line(timeout)
                if atoms_reply != "ok.":
                    engine.kill()
                    self._engine = None
                    raise PrologEngineError(
                        f"{self.profile.name}: unexpected answer to atoms: {atoms_reply}"
                    )
            engine.send("load('program.pl').\n")
            reply = self._parse(engine.read_line(timeout))
            engine.send(f"limits({'none' if limit is None else repr(float(limit))}).\n")
            limits_reply = engine.read_line(timeout)
        except (EngineDied, EngineTimeout) as exc:
            engine.kill()
            self._engine = None
            hint = (
                f"\n(startup_timeout={timeout:g} s: raise it with --set "
                "backend.startup_timeout=SECONDS on a slow or loaded machine)"
                if isinstance(exc, EngineTimeout)
                else ""
            )
            raise BackendUnavailable(
                f"{self.profile.name} did not start: {exc}\ncommand: {' '.join(command)}{hint}"
            ) from None
        if type(reply) is not Struct or reply.name != "loaded" or limits_reply != "ok.":
            engine.kill()
            self._engine = None
            raise PrologEngineError(f"{self.profile.name}: unexpected answer to load: {reply}")
        self._load_problems(list_items(reply.args[0])[0])

    def fence_mode(self) -> Literal["auto", "require", "off"]:
        """The fence the engines get: ``auto`` is ``off`` for trusted data (its directives
        are code the user chose to run: they may write files, start programs)."""
        mode = self.opts.fence
        return "off" if mode == "auto" and self.options.trust_data else mode

    def _load_problems(self, problems: list[Term]) -> None:
        assert self._exported is not None
        try:
            self.warnings = load_warnings(self._exported, problems, self.profile.name)
        except PrologEngineError:
            self.close()
            raise

    def close(self) -> None:
        if self._engine is not None:
            self._engine.kill()
            self._engine = None

    @property
    def pid(self) -> int | None:
        """Process id of the running engine (None when none runs)."""
        return self._engine.pid if self._engine is not None else None

    # -- requests -------------------------------------------------------------------------------
    def _limits(self) -> tuple[float | None, float | None, str, str]:
        """(engine seconds, backend wait, Secs and Steps as Prolog text) of one query."""
        o = self.opts
        wall = o.timeout
        if wall is None and o.step_limit is not None and not self.profile.step_limit:
            wall = o.guard_seconds
        steps = o.step_limit if self.profile.step_limit else None
        if self.profile.time_limit:
            engine_secs = wall
            wait = None if wall is None else wall + _GRACE
        else:
            engine_secs = None
            wait = wall
        secs_text = "none" if engine_secs is None else repr(float(engine_secs))
        steps_text = "none" if steps is None else str(int(steps))
        return engine_secs, wait, secs_text, steps_text

    def _running(self) -> EngineProcess:
        """The engine, (re)started if needed; every request goes through here."""
        self._requests += 1
        limit = self.profile.restart_rss_mb
        if (
            limit is not None
            and self._requests % RSS_CHECK_EVERY == 0
            and self._engine is not None
            and (self._engine.rss_mb() or 0.0) > limit
        ):
            log.info("%s uses more than %d MB; restarting it", self.profile.name, limit)
            self.restarts += 1
            self._restart()
        if self._engine is None or not self._engine.alive():
            if self._exported is None:
                raise IlpkitError(f"the {self.name} backend has no task loaded; call load(task)")
            if self._engine is not None:
                log.warning("%s died (%s); restarting it", self.profile.name, "idle")
            self._start()
        assert self._engine is not None
        return self._engine

    def _read(
        self, engine: EngineProcess, wait: float | None, what: str, clause: Clause | None = None
    ) -> str:
        """One answer line; a timeout or crash restarts the engine and raises.  ``what`` names
        the request (``clause``: the clause asked about, written only for a message)."""
        try:
            return engine.read_line(wait, stop_requested)
        except EngineStopped as exc:  # learn's first Ctrl-C: this query ends as at a limit
            self._restart()
            raise ResourceLimitExceeded(
                f"{_what(what, clause)} was stopped: {exc} ({self.profile.name} was stopped "
                "and restarted)"
            ) from None
        except EngineTimeout:
            self._restart()
            raise ResourceLimitExceeded(
                f"time limit of {self._limits()[1]} s exceeded ({self.profile.name} was "
                f"stopped and restarted) ({_what(what, clause)})"
            ) from None
        except EngineDied as exc:
            self._restart()
            what = _what(what, clause)
            text = str(exc).lower()
            if any(w in text for w in ("overflow", "out of memory", "allocate memory")):
                raise ResourceLimitExceeded(
                    f"{self.profile.name} ran out of memory ({what}); it was restarted. {exc}"
                ) from None
            if "segmentation" in text and self._address_capped():
                # GNU Prolog does not check every allocation: under the address-space cap a
                # growing atom or term ends in a segmentation violation, not an error
                raise ResourceLimitExceeded(
                    f"{self.profile.name} crashed, most likely out of memory under the memory "
                    f"limit of {self.opts.memory_limit_mb} MB ({what}); it was restarted. {exc}"
                ) from None
            raise IlpkitError(
                f"{self.profile.name} crashed while answering {what}; it was restarted. {exc}"
            ) from None

    def _address_capped(self) -> bool:
        """Whether the engine runs under an address-space cap (see ``_start``)."""
        return self.opts.memory_limit_mb is not None and self.profile.address_space_limit

    def _restart(self) -> None:
        if self._engine is not None:
            self._engine.kill()
            self._engine = None
        self._start()

    def _parse(self, line: str) -> Term:
        try:
            return self._reader.read_term(line, name=f"{self.profile.name} answer")
        except IlpkitError as exc:
            raise IlpkitError(
                f"cannot read {self.profile.name}'s answer {line[:200]!r}: {exc}"
            ) from None

    def _raise(self, reply: Term, what: str) -> None:
        """Turn an ``e(Kind, Text, Culprit)`` answer into an exception."""
        if type(reply) is not Struct or reply.name != "e" or len(reply.args) != 3:
            raise IlpkitError(f"unexpected answer from {self.profile.name}: {to_prolog(reply)}")
        kind, text, culprit = reply.args
        message = f"{self.profile.name}: {_text(text)}"
        if _text(kind) == "limit":
            raise ResourceLimitExceeded(f"{message} ({what}){limit_hint(message)}")
        hint = ""
        if culprit != Const("none"):
            hint = self._callers(culprit)
        raise PrologEngineError(f"{message} ({what}){hint}")

    def _callers(self, culprit: Term) -> str:
        """Where the background calls an unknown procedure (the data file locations)."""
        if type(culprit) is Struct and culprit.name == ":" and len(culprit.args) == 2:
            culprit = culprit.args[1]  # YAP names it Module:Name/Arity
        if not (type(culprit) is Struct and culprit.name == "/" and len(culprit.args) == 2):
            return ""
        name, arity = culprit.args
        key = (
            _text(name),
            arity.value if type(arity) is Const and type(arity.value) is int else -1,
        )
        places = []
        for clauses in self.task.program.clauses.values():
            for sc in clauses:
                if sc.location is not None and any(_calls(g, key) for g in sc.clause.body):
                    places.append(str(sc.location))
        if not places:
            return ""
        return f"; called from {', '.join(places[:5])}"

    # -- saturation -----------------------------------------------------------------------------
    def answers(self, goal: Term, max_answers: int | None) -> list[Term]:
        if (max_answers is not None and max_answers <= 0) or not self._callable_body(
            Clause(goal, [goal])
        ):
            return []
        engine = self._running()
        _, wait, secs, steps = self._limits()
        limit = "inf" if max_answers is None else str(int(max_answers))
        what = f"goal: {to_prolog(goal)}"
        engine.send(self._wire(f"answers({to_prolog(goal, 999)},{limit},{secs},{steps}).\n"))
        reply = self._parse(self._read(engine, wait, what))
        if type(reply) is Struct and reply.name == "a" and len(reply.args) == 1:
            items, _ = list_items(reply.args[0])
            return [_rename(goal, a) for a in items]
        self._raise(reply, what)
        raise AssertionError("unreachable")

    # -- coverage -------------------------------------------------------------------------------
    def _coverage(self, clause: Clause, among: Coverage | None) -> Coverage:
        return self._cover([clause], among)[0]

    def coverage_many(
        self, clauses: Sequence[Clause], among: Coverage | None = None
    ) -> list[Coverage]:
        """Coverage of each clause, the whole batch in one request."""
        self._check_among(among)
        return self._cover(list(clauses), among)

    def _cover(self, clauses: list[Clause], among: Coverage | None) -> list[Coverage]:
        n = self.n_examples
        out: list[Coverage | None] = [None] * len(clauses)
        send: list[int] = []
        for i, c in enumerate(clauses):
            if (among is not None and len(among) == 0) or not self._callable_body(c):
                out[i] = Coverage.empty(n)
            else:
                send.append(i)
        if send:
            engine = self._running()
            _, wait, secs, steps = self._limits()
            texts = []
            for i in send:
                c = clauses[i].canonical()
                body = conjunction(c.body)
                texts.append(to_prolog(Struct("c", (c.head, body)), 999))
            among_text = self._among.request_text(among)
            request = f"cover([{','.join(texts)}],{among_text},{secs},{steps}).\n"
            try:
                engine.send(self._wire(request))
                for i in send:
                    line = self._read(engine, wait, "clause", clauses[i])
                    if not line.startswith("c(["):
                        self._raise(self._parse(line), f"clause: {describe_clause(clauses[i])}")
                    out[i] = Coverage(_ids(line), n, trusted=True)
            except BaseException:
                # the engine may hold another set, or none: send the next one in full
                self._among.forget()
                raise
        return [c if c is not None else Coverage.empty(n) for c in out]

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
                known = self._ask_defined(key)
                self._defined[key] = known
            if not known:
                return False
        return True

    def _ask_defined(self, key: tuple[str, int]) -> bool:
        engine = self._running()
        engine.send(self._wire(f"defined({to_prolog(Const(key[0]), 999)},{key[1]}).\n"))
        reply = self._parse(self._read(engine, self.opts.startup_timeout, "defined/2"))
        return reply == Struct("d", (Const("true"),))


_INSTALL = {
    "swipl": "apt-get install swi-prolog-nox",
    "gprolog": "apt-get install gprolog",
    # Debian 12 has no yap package
    "yap": "Debian 12 has no yap package: build YAP from source, see docs/backends.md",
}


def probe_engine(options: SubprocessOptions) -> BackendStatus:
    """Whether the engine starts and answers a query (on a one-example task)."""
    from ilpkit.core.bias import Bias
    from ilpkit.core.task import NEG, POS, Program, examples_from

    variant = f"engine={options.engine}"
    backend = SubprocessBackend(options)
    try:
        backend.executable()
        program = Program()
        program.add_fact(Struct("p", (Const("a"),)))
        task = Task(
            name="probe",
            format="probe",
            program=program,
            examples=examples_from(
                [(Struct("t", (Const("a"),)), POS), (Struct("t", (Const("b"),)), NEG)]
            ),
            bias=Bias(),
        )
        backend.load(task)
        got = backend.coverage(Clause(Struct("t", (Var("X"),)), [Struct("p", (Var("X"),))]))
        if got.tolist() != [0]:
            return BackendStatus(variant, False, backend.version, f"wrong answer {got.tolist()}")
        return BackendStatus(variant, True, backend.version, "")
    except (IlpkitError, OSError, subprocess.SubprocessError) as exc:
        return BackendStatus(variant, False, backend.version, str(exc).splitlines()[0])
    finally:
        backend.close()


def data_dirs(task: Task) -> list[str]:
    """The folders of the task's source files (which a fenced engine may read)."""
    seen: dict[str, None] = {}
    for source in task.sources:
        folder = Path(source).resolve().parent
        if folder.is_dir():
            seen[str(folder)] = None
    return list(seen)


def _wait_ready(engine: EngineProcess, timeout: float) -> str:
    """Skip banners until the server's own ``ilpkit_ready(Engine, Version)`` line."""
    while True:
        line = engine.read_line(timeout)
        if line.startswith("ilpkit_ready("):
            m = re.match(r"ilpkit_ready\([^,]*,'?([^')]*)'?\)\.", line)
            return m.group(1) if m else ""


def _body_goals(body: Sequence[Term]) -> list[Term]:
    """The callable goals of ``body`` and, recursively, of its control constructs and
    meta-predicate goal arguments (``safety.META_ARGS``), closures completed when known."""
    from ilpkit.core.safety import META_ARGS

    out: list[Term] = []
    stack = list(reversed(body))
    while stack:
        goal = stack.pop()
        if not (type(goal) is Struct or (type(goal) is Const and isinstance(goal.value, str))):
            continue
        out.append(goal)
        if type(goal) is Struct:
            for i, add in META_ARGS.get((goal.name, len(goal.args)), ()):
                if i < len(goal.args) and add == 0:
                    stack.append(goal.args[i])
                elif i < len(goal.args) and type(goal.args[i]) in (Struct, Const):
                    stack.append(_closure(goal.args[i], add))
    return out


def _closure(term: Term, add: int) -> Term:
    """``term`` with ``add`` more (fresh) arguments: the goal a meta-predicate calls."""
    extra = tuple(Var(f"_C{i}") for i in range(add))
    if type(term) is Struct:
        return Struct(term.name, term.args + extra)
    if type(term) is Const and isinstance(term.value, str):
        return Struct(term.value, extra) if extra else term
    return term


def _intervals(among: Coverage | None) -> str:
    """``all`` or the ids as ``[Lo-Hi,...]`` runs (compact for the usual contiguous sets)."""
    if among is None:
        return "all"
    ids = among.ids
    if len(ids) == 0:
        return "[]"
    breaks = np.flatnonzero(np.diff(ids) != 1)
    starts = np.concatenate(([0], breaks + 1))
    ends = np.concatenate((breaks, [len(ids) - 1]))
    runs = [f"{lo}-{hi}" for lo, hi in zip(ids[starts].tolist(), ids[ends].tolist(), strict=True)]
    return "[" + ",".join(runs) + "]"


def _what(what: str, clause: Clause | None) -> str:
    return what if clause is None else f"{what}: {describe_clause(clause)}"


class AmongMemo:
    """The example set of the engine's last cover request, so that the next request about
    the same set (the refinements of one search node are all asked about their parent's
    cover) sends ``last`` instead of the set again (``ilpkit_among/2`` in the server)."""

    def __init__(self) -> None:
        self._among: Coverage | None = None

    def request_text(self, among: Coverage | None) -> str:
        """``all``, ``[]``, ``last``, or ``keep([Lo-Hi,...])`` (then remembered)."""
        if among is None or len(among) == 0:
            return _intervals(among)
        if among is self._among:
            return "last"
        self._among = among
        return f"keep({_intervals(among)})"

    def forget(self) -> None:
        """After an engine (re)start or a failed request: the engine may hold no set."""
        self._among = None


def _ids(line: str) -> npt.NDArray[np.int64]:
    return parse_ids(line[3 : line.rindex("])")])


def parse_ids(text: str) -> npt.NDArray[np.int64]:
    """``"1,5,9"`` as an array (``np.fromstring`` parses in C: 5x faster than ``split``)."""
    if not text:
        return np.zeros(0, dtype=np.int64)
    return np.fromstring(text, dtype=np.int64, sep=",")


def _text(term: Term) -> str:
    return str(term.value) if type(term) is Const else to_prolog(term)


def _calls(goal: Term, key: tuple[str, int]) -> bool:
    """Whether ``goal`` (a body literal, possibly a control construct) calls ``key``."""
    stack = [goal]
    while stack:
        g = stack.pop()
        if type(g) is Struct:
            if (g.name, len(g.args)) == key:
                return True
            if g.name in (",", ";", "->", "*->", "\\+", "call", "findall", "forall", "once"):
                stack.extend(g.args)
            elif g.name in ("setof", "bagof", "aggregate_all", "^"):
                stack.extend(g.args[1:])
        elif type(g) is Const and (str(g.value), 0) == key:
            return True
    return False


def _rename(goal: Term, answer: Term) -> Term:
    """``answer`` with its variables named as the native backend names them: a goal variable
    still free keeps its name, others become ``_G1``, ``_G2``, ... (ground answers as is)."""
    from ilpkit.prolog.terms import is_ground, iter_vars, substitute

    if is_ground(answer):
        return answer
    names: dict[Var, Term] = {}
    stack = [(goal, answer)]
    while stack:
        g, a = stack.pop()
        if type(g) is Var and type(a) is Var and a not in names:
            names[a] = g
        elif type(g) is Struct and type(a) is Struct and len(g.args) == len(a.args):
            stack.extend(zip(g.args, a.args, strict=True))
    fresh = 0
    for v in iter_vars(answer):
        if v not in names:
            fresh += 1
            names[v] = Var(f"_G{fresh}")
    return substitute(answer, names)


def load_warnings(
    exported: Any, problems: list[Term], engine: str, clean: Callable[[str], str] = str
) -> list[str]:
    """The warnings among the server's load ``problems`` (located in the data files, logged);
    raises :class:`PrologEngineError` listing the errors, if any.  Shared by the subprocess
    and in-process backends, whose servers report problems the same way."""
    errors = []
    warnings = []
    for p in problems:
        assert type(p) is Struct and len(p.args) == 3
        number, kind, text = p.args
        where = exported.origin(int(number.value)) if type(number) is Const else "?"
        message = f"{where}: {clean(_text(text))}"
        if _text(kind) == "error":
            errors.append(message)
        else:
            what = "kept the engine's built-in" if _text(kind) == "clash" else "ignored"
            warnings.append(f"{message} ({engine} {what})")
    for w in warnings:
        log.warning("%s", w)
    if errors:
        shown = "\n".join(errors[:20]) + ("\n..." if len(errors) > 20 else "")
        raise PrologEngineError(f"{engine} could not load the program:\n{shown}")
    return warnings


SPEC = PluginSpec(
    kind="backend",
    name="subprocess",
    factory=SubprocessBackend,
    options=SubprocessOptions,
    doc="A Prolog engine (swipl, gprolog or yap) in a child process; full Prolog semantics.",
)
