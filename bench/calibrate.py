"""Fit the relevance calibration (memctl/policy/relevance_fit.py) on data not written beside the rules.

Usage: python bench/calibrate.py [--locomo PATH] [--rows FILE] [--only LANG] [--lines] [--cv LANG] [--write] [--json]

The data, each recalled (hybrid, k=5, nothing held back) with memctl's real recall path:

- the dev split of bench/data/recall/<lang>/ (stores and queries written by helpers who never read
  the rules: questions, task requests and dialogue-context queries, with negatives about people and
  things the store never mentions); the test split is never read here;
- the LoCoMo dev slice when `--locomo` gives its path (read at run time, never copied): each
  question over its own conversation, and the next conversation's questions as negatives.

A hit is labelled relevant when it answers its query; every hit of a negative query is not, and
the other hits of an answered query count as not relevant with a lower weight (NOISE_WEIGHT: some
of them are partly about the query). For every combination of signals a recall can have (each
model's cosine, gap and top, the keyword features), per language of the query and per shape (and
for the language and for all, as fallbacks), a logistic regression is fitted with the class weight
that keeps the most relevant hits at `[recall] min_relevance` while each data set's negative queries
inject nothing CLEAN of the time (a shortfall costs SHORTFALL_COST times as much); the fit is printed, and
written into memctl/policy/relevance_fit.py with `--write`. `--rows FILE` keeps the gathered hits
(a second run with the same file refits without recalling again). `--only LANG` refits the models
of that language's queries only (keys `...|LANG|...`) and keeps every other model, the margins and
the follow line as they are (a change that moves one language's signals need not move the other's).
`--lines` recalls the dialogue queries only and refits only the models that read a dialogue's
per-line cosines (keys `...,lines|...`; with `--only LANG` only those of LANG's queries, and none
for the other languages), keeping every other model, the margins and the follow line.
`--margins LANG` refits nothing: it recomputes only LANG's clear margins (keys `MODEL|LANG`) from the
rows and keeps every model, the other languages' margins and the follow line (a margin is one quantile
of that language's negatives: it moves when the dev split grows, where the models need not).
`--cv LANG` writes nothing: it leaves each store of LANG's recall set out in turn, refits LANG's models
(as `--only LANG`) on the rest and judges that store with them, and prints the figures out of fold:
in sample a fit meets its targets by construction, and those figures do not carry to new stores.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from types import ModuleType
from typing import Any, Iterable, Sequence

import numpy as np

BENCH = Path(__file__).resolve().parent
FIT_FILE = BENCH.parent / "memctl" / "policy" / "relevance_fit.py"
SETUPS = {"shipped": "default", "shipped-alone": "memctl/all-MiniLM-L6-v2-int8", "hashing": "hashing"}
NOISE_WEIGHT = 0.0  # a hit of an answered query that is not marked as its answer
CLEAN = 0.87  # the share of each data set's negative queries min_relevance should leave with nothing
MARGIN_NEGATIVES = 0.02  # the share of negative queries a clear margin may let through
SHORTFALL_COST = 2.0  # relevant hits kept (share) given up for each point (share) of that target missed
MIN_NEGATIVES = 10  # a data set with fewer negative queries in a group does not set its threshold
MIN_ROWS = 25  # a group needs this many relevant and this many other hits to get its own model
K = 5
FOLLOW_KEEP = 0.9  # the share of an answered query's relevant hits below min_relevance the follow line shows
KEYWORD_FEATURES = ("coverage", "held", "held_all", "absent", "elsewhere", "named")
CHAR_FEATURES = ("char_coverage", "char_held")
# Per embedding model. Tried and left out: a cosine's z-score over its query's background and the
# hit's rank as features; fitted in, they let more negative queries through on the recall sets (dev,
# en: 70.6% clean, was 85.3%) and cost more on LoCoMo (2.1 points of R@5 held back, was 1.6).
MODEL_FEATURES = ("cos", "gap", "top")
# A dialogue's, per model: its last line's cosine (policy/relevance.py also reads its best line's,
# `line`: fitted in beside `last`, 8 times 5-fold on the dev dialogues, it kept no more relevant hits
# and left fewer negatives clean: 88.1% / 55.9% against 89.2% / 53.3% with both models, English).
LINE_FEATURES = ("last",)
HIT_FEATURES: tuple[str, ...] = ()
LINES_KEY = "lines"  # policy/relevance.LINES: the key part of a model that reads the lines


def bench_module(name: str) -> ModuleType:
    """Import a sibling bench script (bench/ is scripts, not a package)."""
    key = f"bench_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, BENCH / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


def hit_rows(result: Any, relevant: set[str] | None, source: str) -> list[dict]:
    """One row per hit: its features (the relevance components), label, weight, language and shape.
    `relevant` None: a negative query (every hit is not relevant)."""
    from memctl.core.text import text_language
    from memctl.policy.relevance import QueryFacts  # noqa: F401  (the features' names are policy's)
    from memctl.policy.topic import query_shape

    lang, shape = text_language(result.query), query_shape(result.query)
    rows = []
    for rank, hit in enumerate(result.hits, start=1):
        feats = {k: v for k, v in hit.components.items() if _is_feature(k)}
        label = int(relevant is not None and hit.id in relevant)
        weight = 1.0 if relevant is None or label else NOISE_WEIGHT
        rows.append({"f": feats, "y": label, "w": weight, "lang": lang, "shape": shape, "source": source,
                     "q": result.query, "rank": rank, "neg": relevant is None, "kind": hit.components.get("kind", 0.0)})
    return rows


def _is_feature(name: str) -> bool:
    return name.startswith(tuple(f"{p}:" for p in MODEL_FEATURES + LINE_FEATURES)) or name in KEYWORD_FEATURES + CHAR_FEATURES + HIT_FEATURES


def recall_dev_rows(spec: str, languages: Sequence[str], shapes: Sequence[str] | None = None) -> list[dict]:
    """The dev split of bench/data/recall/<lang>/ (its queries of `shapes`, None: all), recalled with SPEC."""
    recall = bench_module("recall")
    rows: list[dict] = []
    for language in languages:
        stores, queries = recall.load_set(recall.DATA / language)
        with tempfile.TemporaryDirectory(prefix="memctl-calibrate-") as tmp:
            for n, (name, memories) in enumerate(sorted(stores.items())):
                asked = [q for q in queries if q["store"] == name and q["split"] == "dev"
                         and (shapes is None or q["shape"] in shapes)]
                if not asked:
                    continue
                store, ids = recall.build_store(Path(tmp) / f"s{n}", memories, spec, language)
                user = recall.user_of(name)
                for q in asked:
                    result = store.recall(q["query"], users=[user], k=K, min_relevance=0.0, record_usage=False)
                    wanted = None if q.get("negative") else {ids[i] for i in q["relevant"] if i in ids}
                    rows += [{**r, "store": name} for r in hit_rows(result, wanted, f"recall-{language}")]
    return rows


def locomo_rows(spec: str, path: Path) -> list[dict]:
    """LoCoMo dev: each question over its conversation (its evidence's memories relevant), and the
    next conversation's questions as negatives."""
    locomo = bench_module("locomo")
    samples = json.loads(path.read_text(encoding="utf-8"))
    rows: list[dict] = []
    for n, sample in enumerate(samples):
        with tempfile.TemporaryDirectory(prefix="memctl-calibrate-locomo-") as tmp:
            store, users = locomo.load_conversation(sample, Path(tmp) / "mem", embedder=spec)
            by_source = {i: m.id for m in store.active() for i in m.source_ids}
            for q in locomo.questions(sample):
                result = store.recall(q.text, users=users, k=K, min_relevance=0.0, record_usage=False)
                rows += [{**r, "store": n} for r in hit_rows(result, {by_source[e] for e in q.evidence if e in by_source}, "locomo")]
            for q in locomo.questions(samples[(n + 1) % len(samples)]) if len(samples) > 1 else []:
                result = store.recall(q.text, users=users, k=K, min_relevance=0.0, record_usage=False)
                rows += [{**r, "store": n} for r in hit_rows(result, None, "locomo")]
    return rows


def fit_logistic(features: np.ndarray, labels: np.ndarray, weights: np.ndarray | None = None,
                 l2: float = 1e-4) -> list[float]:
    """Weighted logistic regression by Newton's method: a weight per feature, then the intercept."""
    w = np.ones(len(labels)) if weights is None else weights
    x = np.c_[features, np.ones(len(features))]
    penalty = l2 * np.diag([1.0] * features.shape[1] + [0.0])
    beta = np.zeros(x.shape[1])
    total = w.sum()
    for _ in range(100):
        p = 1 / (1 + np.exp(-np.clip(x @ beta, -30, 30)))
        hessian = (x * (w * p * (1 - p))[:, None]).T @ x / total + penalty
        step = np.linalg.solve(hessian, x.T @ (w * (p - labels)) / total + penalty @ beta)
        beta -= step
        if np.abs(step).max() < 1e-9:
            break
    return [round(float(b), 3) for b in beta]


def fit_group(rows: list[dict], names: Sequence[str], threshold: float) -> list[float]:
    """A model over `names`, its class weight chosen on a grid: the weight with the most relevant
    hits kept at `threshold`, less SHORTFALL_COST for each point by which a data set's negative
    queries fall short of CLEAN staying empty."""
    x = np.array([[r["f"].get(n, 0.0) for n in names] for r in rows])
    y = np.array([r["y"] for r in rows], dtype=float)
    base = np.array([r["w"] for r in rows])
    pos, neg = base[y == 1].sum(), base[y == 0].sum()
    best: tuple[float, list[float]] = (-np.inf, [])
    for mid in np.linspace(-4.0, 6.0, 41):
        beta = fit_logistic(x, y, np.where(y == 1, base * np.exp(mid) * neg / pos, base))
        score = group_score(rows, names, beta, threshold)
        if score > best[0] + 1e-9:
            best = (score, beta)
    return best[1]


def group_score(rows: list[dict], names: Sequence[str], beta: Sequence[float], threshold: float) -> float:
    """What the fit maximises: the share of relevant hits at `threshold`, less SHORTFALL_COST for
    each point by which a data set's negative queries fall short of CLEAN staying empty."""
    x = np.array([[r["f"].get(n, 0.0) for n in names] for r in rows])
    y = np.array([r["y"] for r in rows], dtype=float)
    base = np.array([r["w"] for r in rows])
    negative = [n for n, r in enumerate(rows) if r["neg"]]
    relevance = 1 / (1 + np.exp(-(np.c_[x, np.ones(len(x))] @ np.array(beta))))
    kept = float(np.average(relevance[y == 1] >= threshold, weights=base[y == 1]))
    passed = [relevance[n] >= threshold for n in negative]
    return kept - SHORTFALL_COST * sum(max(0.0, CLEAN - c) for c in set_clean([query_key(rows[n]) for n in negative], passed))


def set_clean(queries: Sequence[tuple], passed: Sequence[bool]) -> list[float]:
    """Per data set with at least MIN_NEGATIVES negative queries here (else all together), the share
    of its negative queries none of whose hits passed."""
    by_set: dict[Any, dict[tuple, bool]] = defaultdict(dict)
    for q, hit_passed in zip(queries, passed):
        by_set[q[1]][q] = by_set[q[1]].get(q, False) or hit_passed
    counted = [v for v in by_set.values() if len(v) >= MIN_NEGATIVES] or list(by_set.values())
    return [1 - sum(v.values()) / len(v) for v in counted]


def query_key(row: dict) -> tuple:
    """Which query a row's hit belongs to."""
    return (row.get("setup"), row["source"], row.get("store"), row["q"], row["neg"])


def combos(names: Iterable[str]) -> list[tuple[str, ...]]:
    """Every signal combination a recall can have within these features: any subset of the models
    (each with its cos, gap and top), with the keyword features or without (and with the character
    features of a CJK query or without), at least one of the two; with a dialogue's line features of
    the chosen models (when the data has them) or without."""
    names = set(names)
    families = sorted({n.partition(":")[2] for n in names if n.startswith("cos:")})
    keyword = [n for n in KEYWORD_FEATURES if n in names]
    options = [[], keyword, keyword + [n for n in CHAR_FEATURES if n in names]] if keyword else [[]]
    out = set()
    for size in range(0, len(families) + 1):
        for chosen in itertools.combinations(families, size):
            model = [f"{p}:{f}" for f in chosen for p in MODEL_FEATURES if f"{p}:{f}" in names]
            lines = [f"{p}:{f}" for f in chosen for p in LINE_FEATURES if f"{p}:{f}" in names]
            for extra, line in itertools.product(options, [[], lines] if lines else [[]]):
                if model or extra:
                    out.add(tuple(model + line + extra + [n for n in HIT_FEATURES if n in names]))
    return sorted(out)


def calibrate(rows: list[dict], threshold: float) -> dict[str, tuple[tuple[str, ...], list[float]]]:
    """A model per signal combination and language and shape (and per language, and for all)."""
    from memctl.policy.relevance import model_key

    fit: dict[str, tuple[tuple[str, ...], list[float]]] = {}
    for combo in combos(n for r in rows for n in r["f"]):
        usable = [r for r in rows if all(n in r["f"] for n in combo)]
        groups: dict[str, list[dict]] = defaultdict(list)
        for r in usable:
            groups[f"{r['lang']}|{r['shape']}"].append(r)
            groups[f"{r['lang']}|*"].append(r)
            groups["*|*"].append(r)
        for group, members in groups.items():
            relevant = sum(r["y"] for r in members)
            if relevant >= MIN_ROWS and len(members) - relevant >= MIN_ROWS:
                fit[f"{model_key(combo)}|{group}"] = (combo, fit_group(members, combo, threshold))
    return fit


def row_relevance(rows: list[dict], table: Any, gaps: dict[str, float] | None) -> list[float | None]:
    """Each row's relevance as recall gives it: the fitted model, raised to KIND_FLOOR for a hit of a
    kind the query names or the best by a clear margin (no model disagreeing; not when the query names
    something no memory mentions and the hit holds none of it, `absent`, as policy/relevance.on_topic
    has it, save for acronyms the rows do not tell), capped for a hit about someone else; None
    for a hit with no calibrated signal (a constraint riding along: recall always shows it)."""
    from memctl.policy.relevance import KIND_FLOOR, OTHER_CAP, QueryFacts, relevance

    out: list[float | None] = []
    for r in rows:
        value = relevance(r["f"], QueryFacts(language=r["lang"], shape=r["shape"]), table)
        if value is None:
            out.append(None)
            continue
        if r["f"].get("elsewhere") and not r["f"].get("named"):
            out.append(min(value, OTHER_CAP))
            continue
        spread = {n[4:]: g for n, g in r["f"].items() if n.startswith("gap:")}
        wide = not r["f"].get("absent") and min(spread.values(), default=-1.0) >= 0 and any(
            g >= (gaps or {}).get(f"{family}|{r['lang']}", 9.0) for family, g in spread.items())
        out.append(max(value, KIND_FLOOR) if r.get("kind") or wide else value)
    return out


def shown(values: Sequence[float | None], threshold: float, follow: float) -> list[bool]:
    """Which hits of one query recall shows (policy/relevance.hold_back)."""
    line = min(threshold, follow) if any(v is not None and v >= threshold for v in values) else threshold
    return [v is None or v >= line for v in values]


def by_query(rows: list[dict]) -> dict[tuple, list[int]]:
    """Row indices per query, in rank order."""
    out: dict[tuple, list[int]] = defaultdict(list)
    for n, r in enumerate(rows):
        out[query_key(r)].append(n)
    return out


def report(rows: list[dict], fit: dict[str, tuple[tuple[str, ...], list[float]]], threshold: float,
           gaps: dict[str, float] | None = None, follow: float | None = None) -> dict[str, Any]:
    """Per setup, source and shape, on the fitting data: the share of relevant hits kept, and the
    share of negative queries none of whose hits is shown."""
    return percents(outcomes(rows, fit, threshold, gaps, follow))


def outcomes(rows: list[dict], fit: dict[str, tuple[tuple[str, ...], list[float]]], threshold: float,
             gaps: dict[str, float] | None = None, follow: float | None = None) -> dict[str, dict[str, list[bool]]]:
    """Per setup, source and shape (and all shapes): whether each relevant hit is kept ("kept"), and
    whether each negative query shows nothing ("clean")."""
    table = {key: (tuple(names), tuple(beta)) for key, (names, beta) in fit.items()}
    values = row_relevance(rows, table, gaps)
    groups: dict[str, dict[str, list[bool]]] = defaultdict(lambda: {"kept": [], "clean": []})
    for members in by_query(rows).values():
        passed = shown([values[n] for n in members], threshold, threshold if follow is None else follow)
        first = rows[members[0]]
        for group in (f"{first['setup']} {first['source']} {first['shape']}", f"{first['setup']} {first['source']} all"):
            if first["neg"]:
                groups[group]["clean"].append(not any(passed))
            else:
                groups[group]["kept"] += [p for n, p in zip(members, passed) if rows[n]["y"]]
    return groups


def percents(groups: dict[str, dict[str, list[bool]]]) -> dict[str, Any]:
    """Each group's shares (percent) of relevant hits kept and of negative queries clean."""
    return {key: {"relevant_kept": _pct(g["kept"]), "negative_clean": _pct(g["clean"]), "negatives": len(g["clean"])}
            for key, g in sorted(groups.items())}


def cross_validate(rows: list[dict], threshold: float, language: str) -> dict[str, Any]:
    """Leave one store out, `language`'s recall set: for each of its stores, that language's models
    refitted (as `--only` does) on the rows of its other stores, and that store's queries judged with
    them; the figures of `report` over every store so judged (out of fold). A fit judged on the
    data it was fitted on meets its targets by construction; out of fold, it tells what carries to
    stores it never saw (on the Chinese dev split it predicts most of the fall to the held-out one)."""
    source = f"recall-{language}"
    total: dict[str, dict[str, list[bool]]] = defaultdict(lambda: {"kept": [], "clean": []})
    for store in sorted({r["store"] for r in rows if r["source"] == source}):
        train = [r for r in rows if r["lang"] == language and (r["source"], r["store"]) != (source, store)]
        fit, gaps, follow = only_language(calibrate(train, threshold), language)
        judged = outcomes([r for r in rows if (r["source"], r["store"]) == (source, store)], fit, threshold, gaps, follow)
        for key, got in judged.items():
            total[key]["kept"] += got["kept"]
            total[key]["clean"] += got["clean"]
    return percents(total)


def _pct(values: Sequence[bool]) -> float | None:
    return round(100 * float(np.mean(values)), 1) if len(values) else None


def follow_line(rows: list[dict], fit: dict[str, tuple[tuple[str, ...], list[float]]], threshold: float,
                gaps: dict[str, float] | None) -> float:
    """The relevance the other hits of an answered query need: the FOLLOW_KEEP quantile, from the
    bottom, of the relevant hits below `threshold` of queries whose best hit reaches it, weighed so
    each data set counts alike (never above `threshold`)."""
    table = {key: (tuple(names), tuple(beta)) for key, (names, beta) in fit.items()}
    values = row_relevance(rows, table, gaps)
    lines = []
    for source in sorted({r["source"] for r in rows}):
        below = [v for members in by_query(rows).values() if rows[members[0]]["source"] == source
                 and any((values[m] or 0.0) >= threshold for m in members) for n in members
                 if rows[n]["y"] and (v := values[n]) is not None and v < threshold]
        if len(below) >= MIN_NEGATIVES:
            lines.append(float(np.quantile(below, 1 - FOLLOW_KEEP)))
    return round(min([threshold, *lines]), 3)


def margins(rows: list[dict]) -> dict[str, float]:
    """Per model family and language: the smallest gap (the best candidate's cosine over the next
    one's) that at most MARGIN_NEGATIVES of each data set's negative queries reach."""
    out = {}
    families = sorted({n.partition(":")[2] for r in rows for n in r["f"] if n.startswith("gap:")})
    for family, language in itertools.product(families, ("en", "zh")):
        negatives: dict[str, dict[tuple, float]] = defaultdict(dict)
        for r in rows:  # a query's largest gap is its best candidate's (the others' are negative)
            if r["neg"] and r["lang"] == language and f"gap:{family}" in r["f"]:
                best = negatives[r["source"]].get(query_key(r), -1.0)
                negatives[r["source"]][query_key(r)] = max(best, r["f"][f"gap:{family}"])
        counted = [list(v.values()) for v in negatives.values() if len(v) >= MIN_NEGATIVES]
        if counted:
            needed = max(float(np.quantile(gaps, 1 - MARGIN_NEGATIVES)) for gaps in counted)
            out[f"{family}|{language}"] = round(max(needed, 0.0) + 0.001, 3)
    return out


def write_fit(fit: dict[str, tuple[tuple[str, ...], list[float]]], sources: Sequence[str],
              gaps: dict[str, float] | None = None, follow: float = 0.55) -> None:
    """memctl/policy/relevance_fit.py, from the fit and the margins."""
    lines = [f"    {key!r}: ({names!r}, {tuple(beta)!r})," for key, (names, beta) in sorted(fit.items())]
    FIT_FILE.write_text(
        '"""The fitted relevance models (written by `python bench/calibrate.py --write`; do not edit by hand).\n\n'
        'Key: "model family,...,keyword|language|shape" ("*": any); value: (feature names, a weight per\n'
        f"feature and then the intercept). Fitted on: {', '.join(sources)}. See policy/relevance.py.\n"
        '"""\n\nFIT: dict[str, tuple[tuple[str, ...], tuple[float, ...]]] = {\n' + "\n".join(lines) + "\n}\n"
        "# A clear margin, per model family and language: the gap over the next candidate that at most\n"
        f"# {MARGIN_NEGATIVES:.0%} of each data set's negative queries reach (policy/relevance.margin).\n"
        f"MARGINS: dict[str, float] = {json.dumps(gaps or {}, indent=4, sort_keys=True)}\n"
        "# Once a query's best hit reaches min_relevance, the relevance its other hits need to be shown\n"
        f"# (policy/relevance.hold_back; the {FOLLOW_KEEP:.0%} line of such hits that answer it).\n"
        f"FOLLOW: float = {follow}\n",
        encoding="utf-8")


def only_language(fit: dict[str, tuple[tuple[str, ...], list[float]]], language: str
                  ) -> tuple[dict[str, tuple[tuple[str, ...], list[float]]], dict[str, float], float]:
    """The shipped fit with only `language`'s models replaced by the new ones; its margins and follow line."""
    from memctl.policy import relevance_fit

    kept = {key: (names, list(beta)) for key, (names, beta) in relevance_fit.FIT.items() if f"|{language}|" not in key}
    fresh = {key: value for key, value in fit.items() if f"|{language}|" in key}
    return {**kept, **fresh}, dict(relevance_fit.MARGINS), relevance_fit.FOLLOW


def only_margins(gaps: dict[str, float], language: str
                 ) -> tuple[dict[str, tuple[tuple[str, ...], list[float]]], dict[str, float], float]:
    """The shipped fit and follow line, with only `language`'s margins replaced by those of `gaps`."""
    from memctl.policy import relevance_fit

    kept = {key: (names, list(beta)) for key, (names, beta) in relevance_fit.FIT.items()}
    margins = {key: value for key, value in relevance_fit.MARGINS.items() if not key.endswith(f"|{language}")}
    return kept, {**margins, **{k: v for k, v in gaps.items() if k.endswith(f"|{language}")}}, relevance_fit.FOLLOW


def only_lines(fit: dict[str, tuple[tuple[str, ...], list[float]]], language: str | None = None,
               rows: list[dict] | None = None, threshold: float = 0.55
               ) -> tuple[dict[str, tuple[tuple[str, ...], list[float]]], dict[str, float], float]:
    """The shipped fit with only the models that read a dialogue's lines (keys `...,lines|...`;
    `language`: only those of that language's queries, `...,lines|LANG|...`, and none for the other
    languages, which are then judged without the lines) replaced by the new ones; its margins and
    follow line. With `rows`, a lines model is kept only where it scores better on them than the
    model its hits get without it (`reads_lines_better`)."""
    from memctl.policy import relevance_fit

    marker = f",{LINES_KEY}|" + (f"{language}|" if language else "")
    kept = {key: (names, list(beta)) for key, (names, beta) in relevance_fit.FIT.items() if f",{LINES_KEY}|" not in key}
    fresh = {key: value for key, value in fit.items() if marker in key
             and (rows is None or reads_lines_better(rows, key, value, kept, threshold))}
    return {**kept, **fresh}, dict(relevance_fit.MARGINS), relevance_fit.FOLLOW


def reads_lines_better(rows: list[dict], key: str, model: tuple[tuple[str, ...], list[float]],
                       plain: dict[str, tuple[tuple[str, ...], list[float]]], threshold: float) -> bool:
    """Whether a model that reads the lines scores better (`group_score`) on its group's rows than
    the model the same hits get without it (the shipped one of that key without `,lines`)."""
    from memctl.policy.relevance import QueryFacts, fitted

    combination, language, shape = key.split("|")
    names, beta = model
    group = [r for r in rows if all(n in r["f"] for n in names)
             and language in ("*", r["lang"]) and shape in ("*", r["shape"])]
    table = {k: (tuple(n), tuple(b)) for k, (n, b) in plain.items()}
    before = fitted(combination.replace(f",{LINES_KEY}", ""), QueryFacts(language=r0["lang"], shape=r0["shape"]), table) \
        if (r0 := next(iter(group), None)) is not None else None
    if before is None:
        return True
    return group_score(group, names, beta, threshold) > group_score(group, before[0], before[1], threshold)


def fitted_on() -> list[str]:
    """The data sets the shipped fit names in its docstring."""
    from memctl.policy import relevance_fit

    doc = relevance_fit.__doc__ or ""
    said = doc.partition("Fitted on: ")[2].partition(". See")[0]
    return [s.strip() for s in said.split(",") if s.strip()]


def gather(locomo: Path | None, shapes: Sequence[str] | None = None) -> list[dict]:
    """Every setup's rows (the hashing embedder's from the recall sets only: it is for the tests);
    `shapes`: only the recall sets' queries of these shapes (LoCoMo's are questions: left out)."""
    rows = []
    for label, spec in SETUPS.items():
        got = recall_dev_rows(spec, ["en", "zh"] if (BENCH / "data" / "recall" / "en").exists() else ["zh"], shapes)
        if locomo is not None and label != "hashing" and shapes is None:
            got += locomo_rows(spec, locomo)
        rows += [{**r, "setup": label} for r in got]
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fit memctl's relevance calibration.")
    parser.add_argument("--locomo", type=Path, default=None, help="the LoCoMo dev slice (read, never copied)")
    parser.add_argument("--rows", type=Path, default=None, help="keep / reuse the gathered hits in this file")
    parser.add_argument("--write", action="store_true", help="write memctl/policy/relevance_fit.py")
    parser.add_argument("--only", default=None, metavar="LANG", help="refit only the models of LANG's queries")
    parser.add_argument("--lines", action="store_true",
                        help="recall the dialogues only and refit only the models that read their lines")
    parser.add_argument("--margins", default=None, metavar="LANG",
                        help="recompute only LANG's clear margins; keep every model and the follow line")
    parser.add_argument("--cv", default=None, metavar="LANG",
                        help="leave one store of LANG's recall set out in turn: figures out of fold (writes nothing)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from memctl.config import RecallSettings

    if args.rows is not None and args.rows.exists():
        rows = json.loads(args.rows.read_text(encoding="utf-8"))
    else:
        rows = gather(args.locomo, ["dialogue"] if args.lines else None)
        if args.rows is not None:
            args.rows.write_text(json.dumps(rows), encoding="utf-8")
    if args.cv:
        return show_cv(cross_validate(rows, RecallSettings().min_relevance, args.cv), args.json)
    fit = {} if args.margins else calibrate(rows, RecallSettings().min_relevance)  # --margins: no model refitted
    sources = sorted({r["source"] for r in rows})
    if args.lines or args.only:  # the other models stay as fitted: so do their sources
        sources = sorted(set(sources) | set(fitted_on()))
    gaps = margins([r for r in rows if r["setup"] != "hashing"])
    threshold = RecallSettings().min_relevance
    follow = follow_line([r for r in rows if r["setup"] != "hashing"], fit, threshold, gaps)
    if args.margins:
        fit, gaps, follow = only_margins(gaps, args.margins)
        sources = sorted(set(sources) | set(fitted_on()))
    elif args.lines:
        fit, gaps, follow = only_lines(fit, args.only, rows, threshold)
    elif args.only:
        fit, gaps, follow = only_language(fit, args.only)
    if args.write:
        write_fit(fit, sources, gaps, follow)
    figures = report(rows, fit, threshold, gaps, follow)
    if args.json:
        sys.stdout.write(json.dumps({"models": fit, "margins": gaps, "follow": follow, "rows": len(rows),
                                     "sources": sources, "report": figures}) + "\n")
    else:
        for key, (names, beta) in sorted(fit.items()):
            print(f"{key}: {dict(zip(names, beta))} intercept {beta[-1]}")
        print(f"margins: {gaps}; follow: {follow}")
        for key, value in figures.items():
            print(f"{key}: {value}")
    return 0


def show_cv(figures: dict[str, Any], as_json: bool) -> int:
    """Print the out-of-fold figures."""
    if as_json:
        sys.stdout.write(json.dumps({"out_of_fold": figures}) + "\n")
    for key, value in figures.items() if not as_json else ():
        print(f"{key} (out of fold): {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
