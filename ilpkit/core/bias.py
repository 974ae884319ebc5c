"""Language bias: mode declarations, determinations and Aleph settings.

A mode ``modeb(Recall, Template)`` says which literals may appear in a clause body:
``Template`` is a term whose *places* are ``+type`` (input: a variable already bound),
``-type`` (output: a new or existing variable) or ``#type`` (a constant).  Places may be nested
inside argument terms, e.g. ``modeb(1, has(+train, car(-car, #shape)))``.  ``Recall`` bounds the
number of answers saturation takes for one call of the mode (``*`` = all).

Settings follow Aleph's names and defaults (``set/2`` and ``aleph_set/2``), typed, so that a
string where a number belongs is an error at load time rather than a surprise in the search.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ilpkit.errors import BiasError, SourceLocation
from ilpkit.prolog.terms import Const, Struct, Term, Var, indicator, to_prolog

IO = Literal["+", "-", "#"]
_IO_MARKERS: Final = frozenset({"+", "-", "#"})
_NIL_TERM: Final = Const("[]")


@dataclass(frozen=True, slots=True)
class Place:
    """One typed place of a mode template, found at ``path`` (argument indices, 0-based)."""

    path: tuple[int, ...]
    io: IO
    type: str


@dataclass(frozen=True, slots=True)
class Mode:
    """A ``modeh``/``modeb`` declaration."""

    kind: Literal["modeh", "modeb"]
    recall: int | None  # None means '*' (all answers)
    template: Term
    places: tuple[Place, ...]
    location: SourceLocation | None = field(default=None, compare=False)

    @property
    def indicator(self) -> tuple[str, int]:
        return indicator(self.template)

    @property
    def name(self) -> str:
        return self.indicator[0]

    @property
    def arity(self) -> int:
        return self.indicator[1]

    def inputs(self) -> tuple[Place, ...]:
        return tuple(p for p in self.places if p.io == "+")

    def outputs(self) -> tuple[Place, ...]:
        return tuple(p for p in self.places if p.io == "-")

    def constants(self) -> tuple[Place, ...]:
        return tuple(p for p in self.places if p.io == "#")

    def to_term(self) -> Term:
        recall: Term = Const("*") if self.recall is None else Const(self.recall)
        return Struct(self.kind, (recall, self.template))

    def __str__(self) -> str:
        return to_prolog(self.to_term())


def parse_mode(
    kind: Literal["modeh", "modeb"],
    recall: Term,
    template: Term,
    location: SourceLocation | None = None,
) -> Mode:
    """Build a :class:`Mode` from the arguments of a ``modeh/2`` or ``modeb/2`` directive."""
    where = f"{location}: " if location else ""
    shown = f"{kind}({to_prolog(recall, 999)}, {to_prolog(template, 999)})"
    if type(recall) is Const and recall.value == "*":
        recall_n: int | None = None
    elif type(recall) is Const and isinstance(recall.value, int) and recall.value >= 1:
        recall_n = recall.value
    else:
        raise BiasError(
            f"{where}{shown}: recall must be a positive integer or '*', got {to_prolog(recall)}"
        )
    if (
        type(template) is not Struct
        and not (type(template) is Const and isinstance(template.value, str))
    ) or template == _NIL_TERM:
        raise BiasError(f"{where}{shown}: the template must be a predicate call such as p(+t)")
    if type(template) is Struct and template.name == "." and len(template.args) == 2:
        raise BiasError(
            f"{where}{shown}: the template is a list, not a predicate call such as p(+t)"
        )
    places: list[Place] = []
    if type(template) is Struct:
        for i, arg in enumerate(template.args):
            _collect_places(arg, (i,), places, where, shown)
    return Mode(kind, recall_n, template, tuple(places), location)


def _collect_places(
    arg: Term, path: tuple[int, ...], out: list[Place], where: str, shown: str
) -> None:
    if type(arg) is Struct and arg.name in _IO_MARKERS and len(arg.args) == 1:
        typ = arg.args[0]
        if type(typ) is Const and isinstance(typ.value, str):
            out.append(Place(path, arg.name, typ.value))  # type: ignore[arg-type]
            return
        if type(typ) is Const:  # e.g. #1 -- a numeric type name
            out.append(Place(path, arg.name, str(typ.value)))  # type: ignore[arg-type]
            return
        raise BiasError(
            f"{where}{shown}: type after {arg.name} must be an atom, got {to_prolog(typ)}"
        )
    if type(arg) is Struct:
        if len(arg.args) == 1 and arg.name in ("@", "~", "$", "^"):
            raise BiasError(
                f"{where}{shown}: unknown type marker '{arg.name}' in {to_prolog(arg)}; "
                "expected +type, -type or #type"
            )
        for i, sub in enumerate(arg.args):
            _collect_places(sub, (*path, i), out, where, shown)
        return
    if type(arg) is Var:
        raise BiasError(
            f"{where}{shown}: argument {to_prolog(arg)} has no type marker; "
            "expected +type, -type or #type"
        )
    # A plain constant in a template is kept as a literal constant (Aleph allows this).


def place_term(template: Term, path: tuple[int, ...]) -> Term:
    """The subterm of ``template`` at ``path``."""
    term = template
    for i in path:
        assert type(term) is Struct
        term = term.args[i]
    return term


# --------------------------------------------------------------------------------------------
# Settings
# --------------------------------------------------------------------------------------------

INF: Final = math.inf


@dataclass(frozen=True, slots=True)
class SettingSpec:
    """Name, type and Aleph's default of one setting."""

    name: str
    kind: Literal["int", "float", "bool", "atom", "number", "any"]
    default: Any
    doc: str
    choices: tuple[str, ...] = ()
    allow_inf: bool = False
    lo: float | None = None
    """Smallest value allowed (None: no bound)."""
    hi: float | None = None
    """Largest value allowed (None: no bound); ``inf`` passes only with ``allow_inf``."""
    why: str = ""
    """Why the bounds are what they are, for the error message."""


# Bottom clauses grow with every layer of new variables (each layer calls every mode on
# every variable so far), so values far beyond Aleph practice can only hang a run.
MAX_I: Final = 50
MAX_CLAUSELENGTH: Final = 100
"""Far above Aleph practice (the data sets seen use 3 to 40): the search space grows
exponentially with the clause length, so a larger bound only makes a run that never ends."""


_EVALFNS: Final = (
    "coverage",
    "compression",
    "posonly",
    "pbayes",
    "accuracy",
    "laplace",
    "auto_m",
    "mestimate",
    "entropy",
    "gini",
    "sd",
    "mse",
    "wracc",
    "user",
    "precision",
    "f",
    "recall",
    "precision_recall",
)
_SEARCHES: Final = (
    "bf",
    "df",
    "heuristic",
    "ibs",
    "ils",
    "rls",
    "scs",
    "id",
    "ic",
    "ar",
    "false",
    "rrr",
)

SETTING_SPECS: Final[dict[str, SettingSpec]] = {
    s.name: s
    for s in [
        SettingSpec(
            "clauselength",
            "int",
            4,
            "maximum literals in a clause, counting the head",
            lo=1,
            hi=MAX_CLAUSELENGTH,
            why="the head counts as one literal; longer clauses only make a search that never ends",
        ),
        SettingSpec(
            "i",
            "int",
            2,
            "layers of new variables in a bottom clause",
            lo=1,
            hi=MAX_I,
            why="bottom clauses grow with every layer",
        ),
        SettingSpec("nodes", "int", 5000, "clauses evaluated per search", lo=1),
        SettingSpec("noise", "number", 0, "negative examples a clause may cover", lo=0),
        SettingSpec(
            "minacc",
            "float",
            0.0,
            "minimum precision of an acceptable clause",
            lo=0,
            hi=1,
            why="a precision is a fraction",
        ),
        SettingSpec("minpos", "int", 1, "minimum positives an acceptable clause covers", lo=0),
        SettingSpec(
            "minposfrac",
            "float",
            0.0,
            "minimum fraction of positives covered",
            lo=0,
            hi=1,
            why="a fraction",
        ),
        SettingSpec(
            "minscore", "float", -INF, "minimum score of an acceptable clause", allow_inf=True
        ),
        SettingSpec("evalfn", "atom", "coverage", "clause evaluation function", _EVALFNS),
        SettingSpec("search", "atom", "bf", "search strategy", _SEARCHES),
        SettingSpec("depth", "int", 10, "proof depth bound", lo=1),
        SettingSpec("m", "float", 0.0, "m of the m-estimate", lo=0),
        SettingSpec(
            "openlist", "int", INF, "size of the open list (inf = unbounded)", allow_inf=True, lo=1
        ),
        SettingSpec("explore", "bool", False, "keep searching past good clauses"),
        SettingSpec("caching", "bool", False, "cache coverage of clauses"),
        SettingSpec("prooftime", "float", INF, "time limit (s) per proof", allow_inf=True, lo=0),
        SettingSpec("searchtime", "float", INF, "time limit (s) per search", allow_inf=True, lo=0),
        SettingSpec("verbosity", "int", 1, "amount of output", lo=0),
        SettingSpec("samplesize", "int", 0, "examples sampled as seeds (0 = one at a time)", lo=0),
        SettingSpec("recordfile", "any", None, "file to record the run to"),
        SettingSpec("record", "bool", False, "record the run"),
        SettingSpec("test_pos", "any", None, "file with positive test examples"),
        SettingSpec("test_neg", "any", None, "file with negative test examples"),
        SettingSpec("train_pos", "any", None, "file with positive training examples"),
        SettingSpec("train_neg", "any", None, "file with negative training examples"),
        SettingSpec(
            "language", "int", INF, "occurrences of a predicate in a clause", allow_inf=True, lo=1
        ),
        SettingSpec("newvars", "int", INF, "new variables in a clause", allow_inf=True, lo=0),
        SettingSpec("lookahead", "int", 1, "lookahead for refinements", lo=0),
        SettingSpec("mingain", "float", 0.05, "minimum gain (tree learning)"),
        SettingSpec("moves", "int", 5, "moves in randomised local search", lo=0),
        SettingSpec("tries", "int", 10, "restarts of randomised local search", lo=1),
        SettingSpec(
            "rls_type",
            "atom",
            "gsat",
            "randomised local search variant",
            ("gsat", "wsat", "rrr", "anneal"),
        ),
        SettingSpec("rrr_cutoff", "int", 1000, "clauses per restart of Rapid Random Restart", lo=1),
        SettingSpec(
            "max_restarts", "int", INF, "restarts of Rapid Random Restart", allow_inf=True, lo=0
        ),
        SettingSpec(
            "construct_bottom",
            "atom",
            "saturation",
            "how to build bottom clauses",
            ("saturation", "reduction", "false"),
        ),
        SettingSpec("check_useless", "bool", False, "drop bottom literals with unused outputs"),
        SettingSpec("optimise_clauses", "bool", False, "optimise clauses before evaluation"),
        SettingSpec("permute_bottom", "bool", False, "randomly permute bottom clauses"),
        SettingSpec("resample", "int", 1, "number of times to resample seeds", lo=1),
        SettingSpec("splitvars", "bool", False, "split variables in bottom clauses"),
        SettingSpec("typeoverlap", "float", 0.95, "type overlap threshold", lo=0, hi=1),
        SettingSpec("confidence", "float", 0.95, "confidence for pruning", lo=0, hi=1),
        SettingSpec("print", "int", 4, "literals per line when printing", lo=1),
        SettingSpec("interactive", "bool", False, "interactive theory construction"),
        SettingSpec("good", "bool", False, "record good clauses"),
        SettingSpec("goodfile", "any", None, "file for good clauses"),
        SettingSpec("gsamplesize", "int", 100, "sample size for posonly", lo=1),
        SettingSpec("updateback", "bool", True, "add learned clauses to the background"),
        SettingSpec(
            "proof_strategy",
            "atom",
            "restricted_sld",
            "proof strategy",
            ("restricted_sld", "sld", "user"),
        ),
        SettingSpec("lazy_on_contradiction", "bool", False, "lazy evaluation on contradiction"),
        SettingSpec("lazy_on_cost", "bool", False, "lazy evaluation of cost"),
        SettingSpec("lazy_negs", "bool", False, "lazy evaluation of negatives"),
        SettingSpec("refine", "any", False, "refinement operator"),
        SettingSpec("stage", "atom", "command", "stage of the run"),
        SettingSpec("threads", "int", 1, "threads", lo=1),
        SettingSpec("portray_examples", "bool", False, "portray examples"),
        SettingSpec("portray_hypothesis", "bool", False, "portray hypotheses"),
        SettingSpec("portray_literals", "bool", False, "portray literals"),
        SettingSpec("portray_search", "bool", False, "portray the search"),
        SettingSpec("skolemvars", "int", 10000, "skolem variables counter start", lo=0),
        SettingSpec("subsample", "bool", False, "subsample examples"),
        SettingSpec("subsamplesize", "int", INF, "subsample size", allow_inf=True, lo=1),
        SettingSpec("uniform_sample", "bool", False, "uniform seed sampling"),
        SettingSpec("max_features", "int", INF, "maximum features", allow_inf=True, lo=1),
        SettingSpec("condition", "bool", False, "condition on examples"),
        SettingSpec("store_bottom", "bool", False, "store bottom clauses"),
        SettingSpec("nreduce_bottom", "bool", False, "negative-based bottom reduction"),
        SettingSpec("prune_tree", "bool", False, "prune trees"),
        SettingSpec("dependent", "int", 0, "dependent variable argument (trees)", lo=0),
        SettingSpec(
            "tree_type",
            "atom",
            "classification",
            "tree type",
            ("classification", "class_probability", "regression", "model"),
        ),
        SettingSpec("classes", "any", None, "classes for trees"),
        SettingSpec("version", "any", None, "Aleph version"),
    ]
}


class Settings:
    """Aleph settings: typed values with Aleph's defaults.

    ``settings["clauselength"]`` gives the value in force; ``explicit`` holds what the data (or
    the user) set; ``unknown`` holds settings ilpkit does not know, kept as terms (reported by
    ``ilpkit data check``, never silently dropped).
    """

    def __init__(self) -> None:
        self.explicit: dict[str, Any] = {}
        self.unknown: dict[str, Term] = {}
        self.locations: dict[str, SourceLocation | None] = {}

    def __getitem__(self, name: str) -> Any:
        if name in self.explicit:
            return self.explicit[name]
        spec = SETTING_SPECS.get(name)
        if spec is None:
            raise KeyError(name)
        return spec.default

    def get(self, name: str, default: Any = None) -> Any:
        try:
            return self[name]
        except KeyError:
            return default

    def __contains__(self, name: str) -> bool:
        return name in self.explicit

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Settings)
            and self.explicit == other.explicit
            and self.unknown == other.unknown
        )

    def set_term(self, name: str, value: Term, location: SourceLocation | None = None) -> None:
        """Apply ``set(name, value)`` as read from a data file."""
        spec = SETTING_SPECS.get(name)
        if spec is None:
            self.unknown[name] = value
            self.locations[name] = location
            return
        self.explicit[name] = coerce_setting(spec, value, location)
        self.locations[name] = location

    def set_value(self, name: str, value: Any) -> None:
        """Set from Python (e.g. a ``--set`` option), with the same type checks."""
        spec = SETTING_SPECS.get(name)
        if spec is None:
            from ilpkit.core.validation import suggest

            guess = suggest(name, sorted(SETTING_SPECS))
            hint = f"; did you mean {guess!r}?" if guess else ""
            raise BiasError(
                f"unknown setting {name!r}{hint} (known settings: "
                + ", ".join(sorted(SETTING_SPECS))
                + ")"
            )
        term: Term
        if isinstance(value, bool):
            term = Const("true" if value else "false")
        elif isinstance(value, (int, float, str)):
            term = Const(value)
        else:
            raise BiasError(f"setting {name!r}: unsupported value {value!r}")
        self.explicit[name] = coerce_setting(spec, term, None)

    def items(self) -> Iterator[tuple[str, Any]]:
        yield from self.explicit.items()

    def to_terms(self) -> list[Term]:
        """``set(Name, Value)`` terms for every explicit and unknown setting."""
        out: list[Term] = []
        for name, value in self.explicit.items():
            out.append(Struct("set", (Const(name), value_to_term(value))))
        for name, term in self.unknown.items():
            out.append(Struct("set", (Const(name), term)))
        return out


def value_to_term(value: Any) -> Term:
    if isinstance(value, bool):
        return Const("true" if value else "false")
    if isinstance(value, float) and math.isinf(value):
        return Const("inf")
    if isinstance(value, (int, float, str)):
        return Const(value)
    if isinstance(value, (Const, Struct, Var)):
        return value
    return Const(str(value))


def coerce_setting(spec: SettingSpec, value: Term, location: SourceLocation | None) -> Any:
    """Check ``value`` against the setting's type and return the Python value."""
    where = f"{location}: " if location else ""

    def fail(expected: str) -> BiasError:
        return BiasError(f"{where}set({spec.name}, {to_prolog(value, 999)}): expected {expected}")

    v = value.value if type(value) is Const else None
    if spec.allow_inf and v == "inf":
        return INF
    if spec.kind == "int":
        if isinstance(v, int):
            return _in_range(spec, v, fail)
        if isinstance(v, float) and v.is_integer():
            return _in_range(spec, int(v), fail)
        raise fail("an integer" + (" or inf" if spec.allow_inf else ""))
    if spec.kind in ("float", "number"):
        if isinstance(v, (int, float)) and v == v:  # NaN is no setting
            if math.isinf(v) and not spec.allow_inf:
                raise fail("a finite number")
            return _in_range(spec, v if spec.kind == "number" else float(v), fail)
        raise fail("a number" + (" or inf" if spec.allow_inf else ""))
    if spec.kind == "bool":
        if v in ("true", "false"):
            return v == "true"
        raise fail("true or false")
    if spec.kind == "atom":
        if isinstance(v, str):
            if spec.choices and v not in spec.choices:
                raise fail("one of " + ", ".join(spec.choices))
            return v
        raise fail("an atom")
    # "any": keep atoms/numbers as Python values, other terms as terms
    if isinstance(v, (str, int, float)):
        return v
    return value


def _in_range(spec: SettingSpec, v: Any, fail: Any) -> Any:
    """``v`` when it is within the setting's bounds; else the error ``fail`` makes."""
    lo, hi = spec.lo, spec.hi
    if (lo is None or v >= lo) and (hi is None or v <= hi):
        return v
    if math.isinf(v) and v > 0 and spec.allow_inf and hi is None:
        return v
    what = "an integer" if spec.kind == "int" else "a number"
    if lo is not None and hi is not None:
        bounds = f"{what} from {_num(lo)} to {_num(hi)}"
    elif lo is not None:
        bounds = f"{what} of at least {_num(lo)}"
    else:
        bounds = f"{what} of at most {_num(hi)}"
    if spec.allow_inf:
        bounds += " (or inf)"
    error: BiasError = fail(bounds + (f": {spec.why}" if spec.why else ""))
    raise error


def _num(x: float | None) -> str:
    return str(int(x)) if x is not None and float(x).is_integer() else str(x)


# --------------------------------------------------------------------------------------------
# The bias as a whole
# --------------------------------------------------------------------------------------------


@dataclass
class Bias:
    """Modes, determinations and settings of a task."""

    modeh: list[Mode] = field(default_factory=list)
    modeb: list[Mode] = field(default_factory=list)
    determinations: list[tuple[tuple[str, int], tuple[str, int]]] = field(default_factory=list)
    settings: Settings = field(default_factory=Settings)

    def add_mode(self, mode: Mode) -> None:
        (self.modeh if mode.kind == "modeh" else self.modeb).append(mode)

    def add_determination(
        self, target: Term, body: Term, location: SourceLocation | None = None
    ) -> None:
        self.determinations.append(
            (parse_indicator(target, location), parse_indicator(body, location))
        )

    def types(self) -> dict[str, set[tuple[str, int, tuple[int, ...]]]]:
        """Types implied by the modes: type -> {(predicate, arity, place path)}."""
        out: dict[str, set[tuple[str, int, tuple[int, ...]]]] = {}
        for mode in (*self.modeh, *self.modeb):
            name, arity = mode.indicator
            for place in mode.places:
                out.setdefault(place.type, set()).add((name, arity, place.path))
        return out

    def body_modes_for(self, target: tuple[str, int]) -> list[Mode]:
        """Body modes allowed for ``target``: those with a determination, or all if none given.

        Aleph requires determinations; data sets in other formats (Popper, BoostSRL) do not
        have them, so with no determination for ``target`` every body mode is allowed.
        """
        allowed = {b for (h, b) in self.determinations if h == target}
        if not allowed:
            return list(self.modeb)
        return [m for m in self.modeb if m.indicator in allowed]

    def mode_terms(self) -> list[Term]:
        return [m.to_term() for m in (*self.modeh, *self.modeb)]

    def determination_terms(self) -> list[Term]:
        return [
            Struct(
                "determination",
                (
                    Struct("/", (Const(h[0]), Const(h[1]))),
                    Struct("/", (Const(b[0]), Const(b[1]))),
                ),
            )
            for h, b in self.determinations
        ]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Bias):
            return NotImplemented
        return (
            [m.to_term() for m in self.modeh] == [m.to_term() for m in other.modeh]
            and [m.to_term() for m in self.modeb] == [m.to_term() for m in other.modeb]
            and self.determinations == other.determinations
            and self.settings == other.settings
        )


def parse_indicator(term: Term, location: SourceLocation | None = None) -> tuple[str, int]:
    """``name/arity`` as a pair."""
    if (
        type(term) is Struct
        and term.name == "/"
        and len(term.args) == 2
        and type(term.args[0]) is Const
        and isinstance(term.args[0].value, str)
        and type(term.args[1]) is Const
        and isinstance(term.args[1].value, int)
    ):
        return (term.args[0].value, term.args[1].value)
    where = f"{location}: " if location else ""
    raise BiasError(f"{where}expected a predicate indicator name/arity, got {to_prolog(term)}")


def modes_from_terms(terms: Iterable[tuple[Term, SourceLocation | None]]) -> list[Mode]:
    """Parse ``modeh/2``/``modeb/2`` terms."""
    out: list[Mode] = []
    for term, loc in terms:
        if type(term) is Struct and term.name in ("modeh", "modeb") and len(term.args) == 2:
            out.append(parse_mode(term.name, term.args[0], term.args[1], loc))  # type: ignore[arg-type]
    return out
