"""A seeded generator of a large, skewed information-extraction task (Aleph layout).

The papers' scale data sets (protein localization: 281k phrase pairs at 1:149; gene-disorder:
104k at 1:446; dissertation sec. 3.2) are not public.  This module builds a task of the same
shape, so that Gleaner's cost on such data can be measured and its output checked against a
known answer: sentences are split into phrases (in sentence order), phrases into words; words
have part-of-speech tags, lemmas and dictionary annotations; phrases have a type, a length and
noisy protein/location dictionary hits; an example is an ordered pair of distinct phrases of
one sentence, ``target(A,B)``, as in the dissertation ("negative examples consist of all other
phrase pairs in a sentence").

Positives are the pairs a few *planted rules* (``RULES``) cover, with label noise; where the
natural data has too few covered pairs, covered pairs are planted by setting the features of
chosen phrases.  The examples are the candidate pairs of the generated sentences except a
seeded sample left out so that the requested counts hold exactly.  Label noise ``f``:
``round(f * P)`` positives are pairs no planted rule covers, and as many covered pairs are
labelled negative, so the union of the rules has precision and recall ``1 - f`` (about).

Everything is whole-array numpy work on integer ids; only the final formatting of fact lines
is a Python loop.  The same parameters and seed give the same bytes.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ilpkit.errors import ConfigError

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

RULES: Final = (
    "target(A,B) :- in_protein_dict(A), in_location_dict(B), before(A,B), noun_phrase(B).",
    "target(A,B) :- next_phrase(A,C), next_phrase(C,B), phrase_lemma(C,localize).",
    "target(A,B) :- next_phrase(A,B), has_word(A,W), word_alphanumeric(W).",
)
"""The planted rules (what a learner should recover): 'protein ... location' with both in
their dictionaries, 'A localizes B' across a phrase with that lemma (a verb phrase when
planted), and 'an alphanumeric protein name (``YFH1``) right before the location'.  Each
planted pair gets one rule's features (and, with probability ``overlap``, those of the other
rules its geometry allows), so by default the rules cover nearly disjoint positives."""

RULE_SHARES: Final = (0.25, 0.4, 0.35)
"""How planted pairs are divided among the rules."""

NP, VP, PP = 0, 1, 2
PHRASE_TYPES: Final = ("noun_phrase", "verb_phrase", "prep_phrase")
POS_TAGS: Final = ("det", "adj", "nn", "nnp", "cd", "vb", "aux", "rb", "in")
_P: Final = {name: i for i, name in enumerate(POS_TAGS)}
# share of the lemma vocabulary each tag draws from (closed classes get few lemmas)
_VOCAB_SHARE: Final = (0.001, 0.2, 0.42, 0.15, 0.02, 0.18, 0.002, 0.025, 0.002)
LOCALIZE: Final = "localize"

# Per phrase type, per slot (first, middle, last word), the tag distribution.
_SLOT_TAGS: Final = {
    NP: ({"det": 0.5, "adj": 0.3, "nn": 0.2}, {"adj": 0.5, "nn": 0.4, "cd": 0.1},
         {"nn": 0.8, "nnp": 0.2}),
    VP: ({"aux": 0.5, "rb": 0.5}, {"aux": 0.3, "rb": 0.7}, {"vb": 1.0}),
    PP: ({"in": 1.0}, {"det": 0.5, "adj": 0.3, "nn": 0.2}, {"nn": 0.8, "nnp": 0.2}),
}  # fmt: skip

REFERENCE_SKEW: Final = 150
"""Natural feature rates are tuned for this skew and scaled with the needed positive rate."""


@dataclass(frozen=True)
class SynthParams:
    """What to generate; sentence, phrase and word counts follow from ``examples``."""

    examples: int = 20_000
    skew: float = 150.0  # negatives per positive
    noise: float = 0.0
    seed: int = 0
    facts_scale: float = 1.0  # word-annotation density (1.0: ~18 facts per example)
    phrases: float = 10.0  # mean phrases per sentence
    vocabulary: int = 5_000
    folds: int = 0  # 0: stem.f/stem.n; K: fs/f0..f{K-1} with whole sentences per fold
    overlap: float = 0.0  # chance that a planted pair also gets another rule's features
    stem: str = "synth"

    def check(self) -> None:
        """Refuse parameters that cannot give the requested task."""
        if self.examples < 20:
            raise ConfigError(f"examples={self.examples}: ask for at least 20 examples")
        if not self.skew > 0:
            raise ConfigError(f"skew={self.skew}: negatives per positive must be > 0")
        if round(self.examples / (1 + self.skew)) < 1:
            raise ConfigError(f"examples={self.examples} at skew {self.skew} has no positive")
        if not 0 <= self.noise < 0.5:
            raise ConfigError(f"noise={self.noise}: label noise must be in [0, 0.5)")
        if not 0 <= self.facts_scale <= 20:
            raise ConfigError(f"facts_scale={self.facts_scale}: choose a value in [0, 20]")
        if not 3 <= self.phrases <= 40:
            raise ConfigError(f"phrases={self.phrases}: mean phrases per sentence in [3, 40]")
        if not 0 <= self.overlap <= 1:
            raise ConfigError(f"overlap={self.overlap}: a probability in [0, 1]")
        if self.vocabulary < 200:
            raise ConfigError(f"vocabulary={self.vocabulary}: use at least 200 lemmas")
        if self.folds == 1 or self.folds < 0:
            raise ConfigError(f"folds={self.folds}: 0 (no folds) or at least 2")
        if not self.stem.isidentifier() or not self.stem[0].islower():
            raise ConfigError(f"stem={self.stem!r}: use a lower-case identifier")


@dataclass
class RuleStats:
    """How one planted rule (or their union) splits the written examples."""

    rule: str
    positives: int
    negatives: int
    planted: int = 0


@dataclass
class SynthSummary:
    """What was generated, for the user and the tests (also written as ``synth.json``)."""

    params: dict[str, Any]
    sentences: int
    phrases: int
    words: int
    positives: int
    negatives: int
    candidate_pairs: int
    left_out: int
    facts: int
    facts_per_predicate: dict[str, int]
    rules: list[RuleStats]
    union: RuleStats
    files: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# --------------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------------


@dataclass
class _World:
    """Sentences, phrases and words as parallel integer arrays."""

    n_phrases_of: IntArray  # per sentence
    sentence: IntArray  # per phrase
    position: IntArray  # per phrase, 0-based within its sentence
    start: IntArray  # per phrase, id of its sentence's first phrase
    ptype: IntArray  # per phrase
    length: IntArray  # per phrase, words
    first_word: IntArray  # per phrase
    protein: BoolArray
    location: BoolArray
    phrase_of: IntArray  # per word
    pos: IntArray  # per word
    lemma: IntArray  # per word
    alnum: BoolArray  # per word
    localize: int  # lemma id of 'localize'


def _rates(needed: float) -> dict[str, float]:
    """Natural feature rates: tuned so that at the reference skew roughly half the covered
    pairs occur naturally (the rest is planted), scaled with the rate of covered pairs
    needed so that high skews do not drown in natural positives."""
    s = needed * (1 + REFERENCE_SKEW)
    return {
        "protein": min(0.08, 0.07 * math.sqrt(s)),
        "location": min(0.08, 0.07 * math.sqrt(s)),
        "localize": min(0.3, 0.02 * s),
        "alnum": min(0.3, 0.012 * s),
    }


def _sentences(rng: np.random.Generator, pairs_needed: int, mean: float) -> IntArray:
    """Phrases per sentence until the ordered phrase pairs reach ``pairs_needed``."""
    lam = mean - 3
    expected = mean * (mean - 1) + lam
    out: list[IntArray] = []
    total = 0
    while total < pairs_needed:
        batch = max(16, int((pairs_needed - total) / expected * 1.2) + 8)
        p = np.clip(3 + rng.poisson(lam, batch), 2, 4 * int(mean) + 4).astype(np.int64)
        cum = total + np.cumsum(p * (p - 1))
        k = int(np.searchsorted(cum, pairs_needed)) + 1
        out.append(p[:k])
        total = int(cum[min(k, len(cum)) - 1])
    return np.concatenate(out)


def _segments(counts: IntArray) -> tuple[IntArray, IntArray]:
    """For segments of the given sizes: each item's segment and its offset within it."""
    owner = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    starts = np.cumsum(counts) - counts
    return owner, np.arange(int(counts.sum()), dtype=np.int64) - starts[owner]


def _zipf_cum(n: int) -> npt.NDArray[np.float64]:
    w = 1.0 / np.arange(1, n + 1, dtype=np.float64) ** 1.1
    out: npt.NDArray[np.float64] = np.cumsum(w) / w.sum()
    return out


def _world(
    rng: np.random.Generator, p: SynthParams, n_sent: IntArray, r: dict[str, float]
) -> _World:
    sentence, position = _segments(n_sent)
    n_ph = len(sentence)
    start = np.arange(n_ph, dtype=np.int64) - position
    ptype = rng.choice(3, size=n_ph, p=[0.5, 0.3, 0.2]).astype(np.int64)
    base = np.array([1, 1, 2])[ptype]
    lam = np.array([2.0, 0.6, 1.4])[ptype]
    length = np.minimum(base + rng.poisson(lam), 6).astype(np.int64)
    noun = ptype == NP
    u = rng.random((2, n_ph))
    protein = u[0] < np.where(noun, r["protein"], r["protein"] / 5)
    location = u[1] < np.where(noun, r["location"], r["location"] / 5)
    phrase_of, slot_index = _segments(length)
    first_word = np.cumsum(length) - length
    n_w = len(phrase_of)
    last = slot_index == length[phrase_of] - 1
    slot = np.where(last, 2, np.where(slot_index == 0, 0, 1))
    # tag: one categorical draw per word from its (phrase type, slot) distribution
    table = np.zeros((9, len(POS_TAGS)))
    for t, slots in _SLOT_TAGS.items():
        for k, dist in enumerate(slots):
            for tag, prob in dist.items():
                table[t * 3 + k, _P[tag]] = prob
    cum = np.cumsum(table, axis=1)
    row = cum[ptype[phrase_of] * 3 + slot]
    pos = np.minimum((rng.random(n_w)[:, None] >= row).sum(axis=1), len(POS_TAGS) - 1)
    # lemma: a Zipf draw within the tag's share of the vocabulary
    sizes = np.maximum(2, (np.array(_VOCAB_SHARE) * p.vocabulary).astype(np.int64))
    offsets = np.cumsum(sizes) - sizes
    lemma = np.zeros(n_w, dtype=np.int64)
    draws = rng.random(n_w)
    for g in range(len(POS_TAGS)):
        idx = np.flatnonzero(pos == g)
        lemma[idx] = offsets[g] + np.searchsorted(_zipf_cum(int(sizes[g])), draws[idx])
    localize = int(sizes.sum())
    u = rng.random((2, n_w))
    verb, noun_w = pos == _P["vb"], (pos == _P["nn"]) | (pos == _P["nnp"])
    lemma[(verb & (u[0] < r["localize"])) | (noun_w & (u[0] < r["localize"] / 8))] = localize
    alnum = noun_w & (u[1] < np.where(pos == _P["nnp"], 3 * r["alnum"], r["alnum"] / 2))
    return _World(
        n_sent, sentence, position, start, ptype, length, first_word, protein, location,
        phrase_of, pos, lemma, alnum, localize,
    )  # fmt: skip


def _pairs(w: _World) -> tuple[IntArray, IntArray]:
    """All ordered pairs (A, B) of distinct phrases of one sentence, by A then B."""
    per = w.n_phrases_of[w.sentence] - 1
    a, j = _segments(per)
    a_pos = w.position[a]
    b = w.start[a] + j + (j >= a_pos)
    return a, b


def _phrase_flags(w: _World) -> tuple[BoolArray, BoolArray]:
    """Per phrase: contains the lemma 'localize'; contains an alphanumeric word."""
    n = len(w.ptype)
    has_loc = np.zeros(n, dtype=bool)
    has_loc[w.phrase_of[w.lemma == w.localize]] = True
    has_alnum = np.zeros(n, dtype=bool)
    has_alnum[w.phrase_of[w.alnum]] = True
    return has_loc, has_alnum


def _truth(w: _World, a: IntArray, b: IntArray) -> BoolArray:
    """Which pairs each rule covers (rows: RULES), from the data itself."""
    has_loc, has_alnum = _phrase_flags(w)
    pa, pb = w.position[a], w.position[b]
    r1 = w.protein[a] & w.location[b] & (pa < pb) & (w.ptype[b] == NP)
    c = np.minimum(a + 1, len(w.ptype) - 1)
    r2 = (pb == pa + 2) & has_loc[c]
    r3 = (pb == pa + 1) & has_alnum[a]
    return np.stack([r1, r2, r3])


def _apply(w: _World, rule: int, a: IntArray, b: IntArray) -> None:
    """Give the pairs (a, b) the features of ``rule`` where their geometry allows it."""
    pa, pb = w.position[a], w.position[b]
    if rule == 0:
        ok = (pa < pb) & (w.ptype[b] == NP)
        w.protein[a[ok]] = True
        w.location[b[ok]] = True
    elif rule == 1:
        c = a[pb == pa + 2] + 1
        w.lemma[w.first_word[c] + w.length[c] - 1] = w.localize
    else:
        a = a[(pb == pa + 1) & (w.ptype[a] == NP)]
        w.alnum[w.first_word[a] + w.length[a] - 1] = True


def _plant(rng: np.random.Generator, w: _World, counts: list[int], overlap: float) -> None:
    """Make each rule cover ``counts[r]`` more chosen pairs (or about): rule 1 on a noun
    phrase B after some A, rule 2 across a verb phrase, rule 3 on a noun phrase A right
    before B.  With probability ``overlap`` a pair also gets each other rule's features its
    geometry allows, as true pairs in text tend to show several cues at once."""
    n_in = w.n_phrases_of[w.sentence]
    sites: list[tuple[IntArray, IntArray]] = []
    cand = np.flatnonzero((w.ptype == NP) & (w.position >= 1))
    bs = rng.choice(cand, counts[0]) if len(cand) else np.zeros(0, dtype=np.int64)
    # A right before B, two before, or anywhere before (so that other rules can apply too)
    anywhere = w.start[bs] + (rng.random(len(bs)) * w.position[bs]).astype(np.int64)
    gap = rng.integers(1, 4, len(bs))
    sites.append((np.where((gap < 3) & (w.position[bs] >= gap), bs - gap, anywhere), bs))
    # B a noun phrase for rules 2 and 3 too, so that rule 1 can also apply
    after_np = np.r_[w.ptype[1:] == NP, False]
    cand = np.flatnonzero((w.ptype == VP) & (w.position >= 1) & (w.position <= n_in - 2) & after_np)
    cs = rng.choice(cand, counts[1]) if len(cand) else np.zeros(0, dtype=np.int64)
    sites.append((cs - 1, cs + 1))
    cand = np.flatnonzero((w.ptype == NP) & (w.position <= n_in - 2) & after_np)
    as_ = rng.choice(cand, counts[2]) if len(cand) else np.zeros(0, dtype=np.int64)
    sites.append((as_, as_ + 1))
    for rule, (a, b) in enumerate(sites):
        _apply(w, rule, a, b)
        for other in range(len(RULES)):
            if other != rule:
                also = rng.random(len(a)) < overlap
                _apply(w, other, a[also], b[also])


def generate(params: SynthParams) -> tuple[_World, IntArray, IntArray, BoolArray, dict[str, Any]]:
    """The world, the example pairs (A, B), their labels, and the bookkeeping."""
    params.check()
    n = params.examples
    positives = round(n / (1 + params.skew))
    n_noise = round(params.noise * positives)
    need_true = positives  # covered: positives - n_noise, plus n_noise labelled negative
    need_false = n - positives  # not covered: n_noise positives, the rest negative
    rng = np.random.default_rng(params.seed)
    rates = _rates(need_true / n)
    margin = 1.03
    for _attempt in range(6):
        n_sent = _sentences(rng, int(n * margin) + 64, params.phrases)
        w = _world(rng, params, n_sent, rates)
        a, b = _pairs(w)
        planted = [0, 0, 0]
        truth = _truth(w, a, b)
        natural = truth.copy()
        for _round in range(40):
            covered = int(truth.any(axis=0).sum())
            short = need_true - covered
            if short <= 0:
                break
            add = [math.ceil(short * s) + 1 for s in RULE_SHARES]
            _plant(rng, w, add, params.overlap)
            planted = [x + y for x, y in zip(planted, add, strict=True)]
            truth = _truth(w, a, b)
        covered_mask = truth.any(axis=0)
        if covered_mask.sum() >= need_true and (~covered_mask).sum() >= need_false:
            break
        margin *= 1.2
    else:
        raise ConfigError(
            f"could not place {need_true} covered and {need_false} other pairs; try another "
            "seed, fewer examples or a lower skew"
        )
    # choose the examples: covered pairs first (positives, then flipped), then the others
    true_ids = rng.permutation(np.flatnonzero(covered_mask))
    false_ids = rng.permutation(np.flatnonzero(~covered_mask))
    pos_ids = np.concatenate([true_ids[: positives - n_noise], false_ids[:n_noise]])
    neg_ids = np.concatenate(
        [true_ids[positives - n_noise : need_true], false_ids[n_noise:need_false]]
    )
    chosen = np.sort(np.concatenate([pos_ids, neg_ids]))
    label = np.zeros(len(a), dtype=bool)
    label[pos_ids] = True
    info = {
        "rates": rates,
        "planted": planted,
        "natural": natural.sum(axis=1).tolist(),
        "candidate_pairs": len(a),
        "truth": truth[:, chosen],
    }
    return w, a[chosen], b[chosen], label[chosen], info


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------

_MODES: Final = """\
:- modeh(1, target(+phrase,+phrase)).
:- modeb(1, noun_phrase(+phrase)).
:- modeb(1, verb_phrase(+phrase)).
:- modeb(1, prep_phrase(+phrase)).
:- modeb(1, phrase_length(+phrase,#length)).
:- modeb(1, in_protein_dict(+phrase)).
:- modeb(1, in_location_dict(+phrase)).
:- modeb(*, phrase_lemma(+phrase,#lemma)).
:- modeb(1, before(+phrase,+phrase)).
:- modeb(1, next_phrase(+phrase,-phrase)).
:- modeb(1, next_phrase(-phrase,+phrase)).
:- modeb(1, phrase_sentence(+phrase,-sentence)).
:- modeb(1, long_sentence(+sentence)).
:- modeb(*, has_word(+phrase,-word)).
:- modeb(1, word_pos(+word,#pos)).
:- modeb(1, word_lemma(+word,#lemma)).
:- modeb(1, next_word(+word,-word)).
:- modeb(1, word_capitalized(+word)).
:- modeb(1, word_alphanumeric(+word)).
:- modeb(*, word_dict(+word,#dict)).
"""

_SETTINGS: Final = """\
:- set(i,2).
:- set(clauselength,5).
:- set(minpos,2).
:- set(nodes,1000).
"""


def _body_predicates() -> list[str]:
    out = []
    for line in _MODES.splitlines()[1:]:
        term = line.split(", ", 1)[1]
        name, args = term.split("(", 1)
        ind = f"{name}/{args.count(',') + 1}"
        if ind not in out:
            out.append(ind)
    return out


def _header(params: SynthParams, counts: dict[str, int]) -> str:
    lines = [
        "% Synthetic information-extraction task written by `ilpkit datasets synth`",
        "% (ilpkit/datasets/synth.py). Parameters:",
        "%   " + ", ".join(f"{k}={v}" for k, v in asdict(params).items()),
        f"% {counts['sentences']:,} sentences, {counts['phrases']:,} phrases, "
        f"{counts['words']:,} words; {counts['positives']:,} positive and "
        f"{counts['negatives']:,} negative target(A,B) pairs.",
        "%",
        "% Planted rules (positives are the pairs they cover, up to label noise):",
        *(f"%   R{i + 1}: {rule}" for i, rule in enumerate(RULES)),
        "%",
    ]
    return "\n".join(lines) + "\n"


def _facts(name: str, cols: tuple[Iterable[str], ...]) -> Iterable[str]:
    """``name(a,b).`` lines from columns of argument texts."""
    if len(cols) == 1:
        return (f"{name}({x}).\n" for x in cols[0])
    if len(cols) == 2:
        return (f"{name}({x},{y}).\n" for x, y in zip(*cols, strict=True))
    raise ValueError(name)


def _ids(prefix: str, ids: npt.NDArray[np.int64]) -> list[str]:
    return [f"{prefix}{i}" for i in ids.tolist()]


def _background(
    w: _World, params: SynthParams, rng: np.random.Generator
) -> list[tuple[str, tuple[list[str], ...]]]:
    """Each background predicate with its argument columns (in a fixed order)."""
    names = [f"l{i}" for i in range(w.localize)] + [LOCALIZE]
    n_ph = len(w.ptype)
    phr = np.arange(n_ph, dtype=np.int64)
    out: list[tuple[str, tuple[list[str], ...]]] = []
    for t, pred in enumerate(PHRASE_TYPES):
        out.append((pred, (_ids("p", phr[w.ptype == t]),)))
    out.append(("phrase_length", (_ids("p", phr), [str(x) for x in w.length.tolist()])))
    out.append(("in_protein_dict", (_ids("p", phr[w.protein]),)))
    out.append(("in_location_dict", (_ids("p", phr[w.location]),)))
    key = np.unique(w.phrase_of * (w.localize + 1) + w.lemma)
    lemmas = [names[i] for i in (key % (w.localize + 1)).tolist()]
    out.append(("phrase_lemma", (_ids("p", key // (w.localize + 1)), lemmas)))
    # before/2: every ordered pair of one sentence in sentence order
    later = w.n_phrases_of[w.sentence] - w.position - 1
    first, k = _segments(later)
    out.append(("before", (_ids("p", first), _ids("p", first + 1 + k))))
    nxt = phr[later > 0]
    out.append(("next_phrase", (_ids("p", nxt), _ids("p", nxt + 1))))
    out.append(("phrase_sentence", (_ids("p", phr), _ids("s", w.sentence))))
    long = np.flatnonzero(w.n_phrases_of > params.phrases + 2)
    out.append(("long_sentence", (_ids("s", long),)))
    word = np.arange(len(w.phrase_of), dtype=np.int64)
    out.append(("has_word", (_ids("p", w.phrase_of), _ids("w", word))))
    out.append(("word_pos", (_ids("w", word), [POS_TAGS[i] for i in w.pos.tolist()])))
    out.append(("word_lemma", (_ids("w", word), [names[i] for i in w.lemma.tolist()])))
    same = np.r_[w.sentence[w.phrase_of[1:]] == w.sentence[w.phrase_of[:-1]], False]
    out.append(("next_word", (_ids("w", word[same]), _ids("w", word[same] + 1))))
    sentence_first = np.r_[True, ~same[:-1]]
    cap = (w.pos == _P["nnp"]) | sentence_first
    out.append(("word_capitalized", (_ids("w", word[cap]),)))
    out.append(("word_alphanumeric", (_ids("w", word[w.alnum]),)))
    # word_dict/2: D dictionaries, each a random subset of the lemma vocabulary
    n_dicts = round(190 * params.facts_scale)
    if n_dicts:
        cover = rng.random(n_dicts) * 0.6
        member = rng.random((w.localize + 1, n_dicts)) < cover[None, :]
        ws: list[IntArray] = []
        ds: list[IntArray] = []
        for lo in range(0, len(word), 200_000):
            wi, di = np.nonzero(member[w.lemma[lo : lo + 200_000]])
            ws.append(wi + lo)
            ds.append(di)
        wd, dd = np.concatenate(ws), np.concatenate(ds)
        out.append(("word_dict", (_ids("w", wd), _ids("d", dd))))
    return out


def write(
    params: SynthParams,
    out_dir: str | Path,
    *,
    progress: Callable[[str], None] | None = None,
) -> SynthSummary:
    """Generate the task of ``params`` into ``out_dir`` (created; existing files replaced)."""
    started = time.perf_counter()
    say = progress or (lambda _msg: None)
    w, a, b, label, info = generate(params)
    rng = np.random.default_rng([params.seed, 1])
    say(
        f"{len(w.n_phrases_of):,} sentences, {len(w.ptype):,} phrases, "
        f"{len(w.phrase_of):,} words; writing background"
    )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    background = _background(w, params, rng)
    counts = {
        "sentences": len(w.n_phrases_of),
        "phrases": len(w.ptype),
        "words": len(w.phrase_of),
        "positives": int(label.sum()),
        "negatives": int((~label).sum()),
    }
    bfile = out / f"{params.stem}.b"
    with open(bfile, "w", encoding="ascii", newline="\n") as fh:
        fh.write(_header(params, counts))
        fh.write(_SETTINGS + "\n" + _MODES + "\n")
        for ind in _body_predicates():
            fh.write(f":- determination(target/2,{ind}).\n")
        for pred, cols in background:
            fh.write(f"\n% {pred}\n")
            _write_lines(fh, _facts(pred, cols))
    files = [bfile]
    pos_text = [f"target(p{x},p{y}).\n" for x, y in zip(a.tolist(), b.tolist(), strict=True)]
    if params.folds:
        fold = _sentence_folds(w.sentence[a], label, params.folds, rng)
        (out / "fs").mkdir(exist_ok=True)
        groups = [
            (out / "fs" / f"f{k}.{ext}", (fold == k) & (label if ext == "f" else ~label))
            for k in range(params.folds)
            for ext in ("f", "n")
        ]
    else:
        groups = [(out / f"{params.stem}.f", label), (out / f"{params.stem}.n", ~label)]
    for path, mask in groups:
        with open(path, "w", encoding="ascii", newline="\n") as fh:
            _write_lines(fh, (pos_text[i] for i in np.flatnonzero(mask).tolist()))
        files.append(path)
    truth: BoolArray = info["truth"]
    stats = [
        RuleStats(rule, int((t & label).sum()), int((t & ~label).sum()), planted)
        for rule, t, planted in zip(RULES, truth, info["planted"], strict=True)
    ]
    union = truth.any(axis=0)
    per_pred = {f"{p}/{len(c)}": len(c[0]) for p, c in background}
    summary = SynthSummary(
        params=asdict(params),
        sentences=counts["sentences"],
        phrases=counts["phrases"],
        words=counts["words"],
        positives=counts["positives"],
        negatives=counts["negatives"],
        candidate_pairs=int(info["candidate_pairs"]),
        left_out=int(info["candidate_pairs"]) - len(a),
        facts=sum(per_pred.values()),
        facts_per_predicate=per_pred,
        rules=stats,
        union=RuleStats(
            "any planted rule", int((union & label).sum()), int((union & ~label).sum())
        ),
        files=[p.name if p.parent == out else f"fs/{p.name}" for p in files],
    )
    summary.seconds = round(time.perf_counter() - started, 3)
    record = summary.to_json() | {"seconds": None}
    (out / "synth.json").write_text(json.dumps(record, indent=2) + "\n", encoding="ascii")
    return summary


def _write_lines(fh: Any, lines: Iterable[str], chunk: int = 1 << 16) -> None:
    buf: list[str] = []
    for line in lines:
        buf.append(line)
        if len(buf) >= chunk:
            fh.write("".join(buf))
            buf.clear()
    fh.write("".join(buf))


def _sentence_folds(
    sentence_of: IntArray, label: BoolArray, k: int, rng: np.random.Generator
) -> IntArray:
    """Whole sentences per fold (no phrase in two folds), positives dealt evenly: sentences
    by positive count (ties shuffled), dealt back and forth over the folds."""
    ids, inverse = np.unique(sentence_of, return_inverse=True)
    pos = np.bincount(inverse, weights=label.astype(np.float64), minlength=len(ids))
    order = np.lexsort((rng.random(len(ids)), -pos))
    turn = np.arange(len(ids)) % (2 * k)
    dealt = np.where(turn < k, turn, 2 * k - 1 - turn)
    fold_of = np.empty(len(ids), dtype=np.int64)
    fold_of[order] = dealt
    return np.asarray(fold_of[inverse], dtype=np.int64)
