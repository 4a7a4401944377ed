"""Calibrated relevance (pure): how likely a recalled memory is to be about the query, in [0, 1].

Fused similarity and the final score are relative: BM25 is divided by the query's best match and
cosines are min-max normalised over the candidates, so the best candidate of any query scores near
1, even when nothing is about the query. Relevance reads signals that compare across queries:

- each embedding model's raw cosine (cosines of one model sit in a band of their own:
  all-MiniLM-L6-v2 gives unrelated texts about 0.0-0.4, multilingual-e5-small about 0.7-0.8), and
  its *gap*: how far the hit's cosine is above the best other candidate's (the best hit by a clear
  margin has a positive gap; the others, how far below the best they are), and the best cosine of
  the query (`top`: a hit close to a best hit that is clearly about the query is likelier about it
  than one as close to the best of a query nothing answers);
- keyword coverage: the IDF-weighted share of the query's terms the memory holds, where a specific
  term no memory holds weighs the most (a name the store never heard of) and a common word no
  memory holds nothing (a task's words: "schedule", "help"); see search/keyword.py;
- how much of the query the store holds at all (`held`: the share of its weighted terms some
  memory holds; low when it asks about a flat in Shanghai of a store that knows only Beijing), and
  `held_all`, the same with common words weighed like names (a piano lesson the store never heard of);
- for a query in Chinese (Japanese, Korean), the same two read character by character: words there
  are not split by spaces and a paraphrase shares few character pairs with its memory, but the
  characters that name a person, a relation or a place (哥 in 我哥哥, 沪) are what a store that never
  mentions them lacks;
- names: whether the query names someone or something no memory it can see mentions and the hit
  holds none of the names the query says (`absent`: a hit about Melanie shares an entity with
  "What did Melanie paint for Mel's party?", whatever Mel is; Kate's memory shares none with
  "What TV shows did Kevin watch?"), whether the hit then names someone else (`elsewhere`), and
  whether the hit holds a name the query says (`named`). Month and weekday names are no names.
- for a dialogue, each model's cosine of its best line and of its last line to the hit (`line`,
  `last`): the memory that answers a conversation answers one of its lines, often the last, and
  the whole conversation's cosine to it is diluted by the rest (the Chinese dev dialogues: AUC of the
  multilingual model's cosine 0.77 whole, 0.89 last line). Read only when every model scored the
  lines; the models that read them are keyed `...,lines`, and without one the hit is judged as before.

relevance = sigmoid(w . features + b), a small logistic model per combination of signals a recall
can have (keyword only, one model, one model and keyword, two models and keyword, ...), per
language of the query (en, zh) and per shape (question, task, dialogue: policy/topic.py), with a
fallback to the language's or the combination's model where a shape or language had too little
data. The numbers are in policy/relevance_fit.py, written by `python bench/calibrate.py`, fitted
with balanced classes (0.5 = as likely about the query as not) on data not written beside these
rules (bench/README.md says which). A model with no fitted numbers (another fastembed model) is left
out; with no signal left, relevance is None and nothing is held back.

Then what the store knows: the best hit by a clear margin (policy/relevance_fit.MARGINS, per model
and language), a hit of a kind the query names (a vehicle for "my car"), or about the kind of a hit
that is clearly about the query, is on topic: its relevance is raised to `KIND_FLOOR`; a hit on an
everyday topic the query names (memctl/data/topics.toml: pets, food, deploys...) and near its best
cosine, to `TOPIC_FLOOR`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from memctl.core.models import Hit
from memctl.policy.relevance_fit import FIT, FOLLOW, MARGINS

KEYWORD = "keyword"
LINES = "lines"  # the key part of a model that reads a dialogue's line cosines
LINE_FEATURES = ("line", "last")  # the best line's cosine, the last line's
KIND_FLOOR = 0.6  # a hit the store says is about the query is more likely about it than not
ANCHOR = 0.8  # a hit this relevant says what the query is about: its kinds are the query's too
TOPIC_FLOOR = 0.56  # a hit on the query's everyday topic, near its best: just over the shipped min_relevance
TOPIC_REACH = 0.0  # how near: within this many clear margins (MARGINS) of the query's best cosine, every model
TOPIC_MOST = 1  # the most candidates that may say a topic for it to lift one of them
TOPIC_SHAPES = frozenset({"question", "task"})  # the shapes of query a topic lifts hits of
TOPIC = "topic"  # the component that says so: "topic:NAME"
UNHELD_SHAPES = frozenset({"question", "task"})  # the shapes of query whose kind words no memory says lift only typed hits
ON_TOPIC = 0.5  # as likely about the query as not (the calibration's balance point)
OTHER_CAP = 0.4  # the most a hit about someone else gets when the query names someone the store never mentions
OTHER = "someone_else"  # the component that says so
Fit = Mapping[str, tuple[tuple[str, ...], tuple[float, ...]]]


@dataclass(frozen=True)
class QueryFacts:
    """What recall knows about the query itself."""

    language: str = "en"
    shape: str = "question"
    absent: bool = False  # it names something (a name-like word) no memory it can see holds
    absent_acronyms: bool = False  # each such thing is a name written in capitals (IRS, HMRC)
    held: float = 1.0  # the share of its weighted terms some memory holds (search/keyword.py)
    held_all: float = 1.0  # the same with every word weighed by its IDF, common words too
    char_held: float | None = None  # the same for its CJK characters one by one (a CJK query only)
    kinds: frozenset[str] = frozenset()  # the kinds it names (policy/topic.kinds_in)
    unheld_kinds: frozenset[str] = frozenset()  # those it names by words no memory says ("my motorcycle")
    topics: frozenset[str] = frozenset()  # the everyday topics it names (store/topicwords.py)
    topic_spread: Mapping[str, int] = field(default_factory=dict)  # topic -> how many candidates say it


@dataclass(frozen=True)
class HitSignals:
    """One hit's absolute signals."""

    cosines: Mapping[str, float] = field(default_factory=dict)  # model identity -> raw cosine
    gaps: Mapping[str, float] = field(default_factory=dict)  # model identity -> cosine - best other's
    tops: Mapping[str, float] = field(default_factory=dict)  # model identity -> the query's best cosine
    lines: Mapping[str, Sequence[float]] = field(default_factory=dict)  # model identity -> each dialogue line's cosine
    coverage: float | None = None  # None: keyword search did not run
    char_coverage: float | None = None  # coverage of the query's CJK characters one by one (a CJK query)
    names_other: bool = False  # it names someone or something the query does not
    named: bool = False  # it holds a name the query says
    kinds: frozenset[str] = frozenset()  # the kinds it is about: its own, and those its words name
    declared: frozenset[str] = frozenset()  # its own: its kind, or one its tags, key or subtype name
    topics: frozenset[str] = frozenset()  # the query's everyday topics its text names


def model_family(identity: str) -> str:
    """The calibration key of an embedder identity: its name without size or engine version
    ("memctl/all-MiniLM-L6-v2-int8:384" -> "memctl/all-MiniLM-L6-v2-int8")."""
    return identity.rpartition(":")[0].partition("@")[0] or identity


def known_families(fit: Fit = FIT) -> frozenset[str]:
    """The model families some fitted model reads."""
    return frozenset(name.partition(":")[2] for names, _ in fit.values() for name in names if name.startswith("cos:"))


def features(signals: HitSignals, facts: QueryFacts, known: frozenset[str]) -> dict[str, float]:
    """The named features of one hit: cos:/gap: per calibrated model, and the keyword ones."""
    out: dict[str, float] = {}
    for identity, cosine in signals.cosines.items():
        family = model_family(identity)
        if family in known:
            out[f"cos:{family}"] = cosine
            out[f"gap:{family}"] = signals.gaps.get(identity, 0.0)
            out[f"top:{family}"] = signals.tops.get(identity, cosine)
    if signals.lines and all(signals.lines.get(i) for i in signals.cosines):
        out |= line_features(signals, known)
    if signals.coverage is not None:
        out["coverage"] = signals.coverage
        out["absent"] = float(facts.absent and not signals.named)
        out["held"] = facts.held
        out["held_all"] = facts.held_all
        if signals.char_coverage is not None and facts.char_held is not None:
            out["char_coverage"] = signals.char_coverage
            out["char_held"] = facts.char_held
        out["elsewhere"] = float(facts.absent and signals.names_other)
        out["named"] = float(signals.named)
    return out


def reads_lines(language: str, fit: Fit = FIT) -> bool:
    """Whether some fitted model reads a dialogue's lines for a query in `language` (else recall
    does not score them)."""
    return any(f",{LINES}|{language}|" in key or f",{LINES}|*|" in key for key in fit)


def line_features(signals: HitSignals, known: frozenset[str]) -> dict[str, float]:
    """line:/last: per calibrated model: its best line's cosine to the hit, and its last line's."""
    out = {}
    for identity, cosines in signals.lines.items():
        family = model_family(identity)
        if family in known and cosines:
            out[f"line:{family}"], out[f"last:{family}"] = max(cosines), cosines[-1]
    return out


def model_key(names: Sequence[str]) -> str:
    """The signal combination a set of features comes from: "family,family2,keyword[,lines]"."""
    families = sorted({n.partition(":")[2] for n in names if n.startswith("cos:")})
    lines = any(n.partition(":")[0] in LINE_FEATURES for n in names)
    return ",".join([*families, *([KEYWORD] if "coverage" in names else []), *([LINES] if lines else [])])


def fitted(key: str, facts: QueryFacts, fit: Fit = FIT) -> tuple[tuple[str, ...], tuple[float, ...]] | None:
    """The model for a combination, the query's language and shape, else the language's, else any."""
    for wanted in (f"{key}|{facts.language}|{facts.shape}", f"{key}|{facts.language}|*", f"{key}|*|*"):
        if wanted in fit:
            return fit[wanted]
    return None


def relevance(feats: Mapping[str, float], facts: QueryFacts, fit: Fit = FIT) -> float | None:
    """Relevance in [0, 1] from one hit's features; None when no model fits its signals."""
    if not feats:
        return None
    model = fitted(model_key(list(feats)), facts, fit)
    if model is None and model_key(list(feats)).endswith(LINES):  # no model reads the lines: judged without
        feats = {n: v for n, v in feats.items() if n.partition(":")[0] not in LINE_FEATURES}
        model = fitted(model_key(list(feats)), facts, fit)
    if model is None:
        return None
    names, beta = model
    return sigmoid(sum(w * feats.get(n, 0.0) for w, n in zip(beta, names)) + beta[-1])


def sigmoid(x: float) -> float:
    """1 / (1 + e^-x), without overflow for large |x|."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def margin(signals: HitSignals, facts: QueryFacts, margins: Mapping[str, float] = MARGINS) -> bool:
    """Whether the hit is the best of some model's candidates by a clear margin: its cosine at least
    that model's fitted margin (per language) above the next candidate's, a gap the negative queries
    of the calibration data almost never reach; and the best of every other model that scored the
    candidates too (where two models disagree on the best, neither says it by a clear margin)."""
    if any(gap < 0 for gap in signals.gaps.values()):
        return False
    for identity, gap in signals.gaps.items():
        family = model_family(identity)
        needed = margins.get(f"{family}|{facts.language}", margins.get(f"{family}|*"))
        if needed is not None and gap >= needed:
            return True
    return False


def annotate(hits: Sequence[Hit], signals: Sequence[HitSignals], facts: QueryFacts, fit: Fit = FIT) -> list[Hit]:
    """The hits with `relevance` set (and their features among the components, for --explain)."""
    known = known_families(fit)
    out = []
    for hit, sig in zip(hits, signals):
        feats = features(sig, facts, known)
        value = relevance(feats, facts, fit)
        extra = {k: round(v, 6) for k, v in feats.items()}
        out.append(hit.model_copy(update={"relevance": None if value is None else round(value, 4),
                                          "components": {**hit.components, **extra}}))
    return on_topic(out, signals, facts)


def on_topic(hits: Sequence[Hit], signals: Sequence[HitSignals], facts: QueryFacts) -> list[Hit]:
    """Hits the store says are about the query are raised to `KIND_FLOOR`: the best hit by a clear
    margin (`margin`), a hit of a kind the query names (typed, or saying one of its words: "my car"
    brings the vehicles; only typed when no memory says the query's words of it: `of_kind`), and a hit about a kind of a hit at least `ANCHOR` relevant (the
    phone's insurance makes the card's extended warranty part of "my phone screen broke"). A hit
    on an everyday topic the query names, near its best (`topical`), is raised to `TOPIC_FLOOR`. A
    query naming someone the store never mentions lifts nothing by the kinds or topics it names:
    "Jon's trip to Rome" is not about the trips of others, nor by a margin unless the hit holds a
    name the query says or what it never mentions is only acronyms (an organisation: the best of
    what the store holds is no answer about a dog it never heard of, "我家狗今年几岁了？" of a store
    keeping a rabbit, but is about "How much did I owe HMRC?"); and a hit that names someone or
    something else and none of what the query names is not about it (`someone_else`)."""
    hits = [someone_else(hit, sig, facts) for hit, sig in zip(hits, signals)]
    named = set() if facts.absent else set(facts.kinds)
    anchored: set[str] = set()
    for hit, sig in zip(hits, signals):
        if hit.relevance is not None and hit.relevance >= ANCHOR:
            anchored |= sig.kinds
    out = []
    for hit, sig in zip(hits, signals):
        value = hit.relevance
        if value is not None and value < KIND_FLOOR and not hit.components.get(OTHER):
            clear = margin(sig, facts) and (sig.named or not facts.absent or facts.absent_acronyms)
            why = "margin" if clear else "kind" if of_kind(named, anchored, sig, facts) else None
            topic = topical(sig, facts) if why is None and value < TOPIC_FLOOR else None
            if why is not None:
                hit = hit.model_copy(update={"relevance": KIND_FLOOR, "components": {**hit.components, why: 1.0}})
            elif topic is not None:
                hit = hit.model_copy(update={"relevance": TOPIC_FLOOR,
                                             "components": {**hit.components, f"{TOPIC}:{topic}": 1.0}})
        out.append(hit)
    return out


def of_kind(named: set[str], anchored: set[str], sig: HitSignals, facts: QueryFacts) -> bool:
    """Whether the hit is of a kind the query names, or of an anchored hit's kind (`on_topic`). A
    kind the query names by words no memory says ("my motorcycle", of a store that knows only a
    car) holds only the hits that declare it (a typed vehicle): saying another of its words ("a
    one-car household") is about another thing of that kind. Read for a question or a task only: a
    dialogue says kinds in passing, in any of its lines ("证件带齐了吗？" asked by the assistant)."""
    unheld = facts.unheld_kinds if facts.shape in UNHELD_SHAPES else frozenset()
    return bool(((named - unheld) | anchored) & sig.kinds or named & unheld & sig.declared)


def topical(signals: HitSignals, facts: QueryFacts, margins: Mapping[str, float] = MARGINS) -> str | None:
    """The everyday topic (store/topicwords.py) a hit shares with the query, when that says it is
    about the query: the query is a question or a task (a dialogue touches many topics in passing)
    and names no one the store never mentions (`absent`); at most `TOPIC_MOST` of the candidates
    say the topic (a topic many memories are about tells none of them apart); and by every model
    that scored the candidates, the hit's cosine is within `TOPIC_REACH` clear margins of the best
    (the one nearest the query is the likeliest about it). None otherwise (also with no model's
    cosine to go by)."""
    if facts.absent or facts.shape not in TOPIC_SHAPES or not signals.gaps:
        return None
    shared = sorted(t for t in facts.topics & signals.topics if facts.topic_spread.get(t, 0) <= TOPIC_MOST)
    if not shared:
        return None
    for identity, gap in signals.gaps.items():
        family = model_family(identity)
        needed = margins.get(f"{family}|{facts.language}", margins.get(f"{family}|*"))
        if needed is None or gap < -TOPIC_REACH * needed:
            return None
    return shared[0]


def someone_else(hit: Hit, sig: HitSignals, facts: QueryFacts) -> Hit:
    """A query naming a person, place or thing the store never mentions ("What TV shows did Kevin
    watch?", "When did I visit Tokyo?") is not answered by a memory that names someone or something
    else and nothing the query names (Kate's shows, the trip to Paris): its relevance is capped at
    `OTHER_CAP`, under the on-topic line, and nothing lifts it. Unless what the store never mentions
    is only acronyms (an organisation: "How much did I owe HMRC?") and the hit is the best by a clear
    margin (`margin`): the tax return is what the query is about, whoever it names."""
    if not (facts.absent and sig.names_other and not sig.named) or hit.relevance is None:
        return hit
    if facts.absent_acronyms and margin(sig, facts):
        return hit
    return hit.model_copy(update={"relevance": min(hit.relevance, OTHER_CAP), "components": {**hit.components, OTHER: 1.0}})


def on_topic_line(min_relevance: float) -> float:
    """The relevance a hit needs for the rules that reorder hits (newer conflicts, this session's,
    by date) to move it: what recall shows by default, and never less than `ON_TOPIC`, so showing
    everything (`--all`) lets no off-topic hit be lifted."""
    return max(min_relevance, ON_TOPIC)


def hold_back(hits: Sequence[Hit], min_relevance: float, follow: float = FOLLOW) -> tuple[list[Hit], list[Hit]]:
    """(shown, held back), order kept. Whether the store answers the query at all is the best hit's
    call: with no hit at `min_relevance` every hit is held back; once one reaches it, the query is
    about something the store holds and only what is clearly unrelated is held back: hits below
    `follow` (policy/relevance_fit.FOLLOW, never above `min_relevance`). A hit with no relevance (no
    calibrated signal) is always shown; a hit about someone else (`someone_else`) never comes along."""
    answered = any(h.relevance is not None and h.relevance >= min_relevance for h in hits)
    line = min(min_relevance, follow) if answered else min_relevance

    def passes(h: Hit) -> bool:
        return h.relevance is None or h.relevance >= (min_relevance if h.components.get(OTHER) else line)

    return [h for h in hits if passes(h)], [h for h in hits if not passes(h)]
