"""A cache of memory vectors on disk, keyed by memory id, content hash and embedder identity.

Two files under the store's directory: `vectors.npy` (a float32 matrix, one row per
memory) and `meta.json` (identity, ids, hashes, and the matrix's shape and crc32).
Both are replaced atomically, the matrix first, so a crash between the two leaves a
meta whose crc32 no longer matches: that store loads as empty and is rebuilt.
"""

from __future__ import annotations

import json
import logging
import os
import zlib
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Mapping, Sequence, cast

import numpy as np

from memctl.core import jsonsafe
from memctl.search.embedders import Embedder, normalise_rows
from memctl.store.files import temp_beside

log = logging.getLogger(__name__)

MATRIX_FILE = "vectors.npy"
META_FILE = "meta.json"
FORMAT_VERSION = 1
NPY_HEADER_MAX = 65536  # an .npy header is padded to 64 bytes; numpy refuses one over 10,000 on load


class VectorStore:
    """Vectors of memories, searchable by exact cosine; the Markdown files stay the truth."""

    def __init__(self, path: Path, embedder_identity: str, dim: int) -> None:
        self.path = Path(path)
        self.identity = embedder_identity
        self.dim = dim
        self._clear()

    def _clear(self) -> None:
        self.changes = getattr(self, "changes", 0) + 1  # counts every change of the rows (a caller's memo key)
        self._seen: tuple[int, int, int] | None = None  # meta.json as last read or written here
        self._matrix = np.zeros((0, self.dim), dtype=np.float32)
        self._buf: np.ndarray | None = None  # what the matrix is a view of, with room to grow (_grow)
        self._ids: list[str] = []
        self._hashes: list[str] = []
        self._rows: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, memory_id: object) -> bool:
        return memory_id in self._rows

    @property
    def ids(self) -> list[str]:
        """Ids with a stored vector, in row order."""
        return list(self._ids)

    def load(self) -> None:
        """Read the store from disk; a missing, torn, corrupt or other-model store loads empty."""
        self._clear()
        try:
            loaded = self._read()
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("vector cache %s unreadable, rebuilding: %s", self.path, exc)
            return
        if loaded is not None:
            self._matrix, self._ids, self._hashes = loaded
            self._rows = {id_: row for row, id_ in enumerate(self._ids)}

    def adopt(self, items: Mapping[str, str]) -> None:
        """Take the vectors of `items` (id -> content hash) that this store lacks from the file on
        disk, when another process has written it since this one last read or wrote it: processes
        writing at once then embed each new memory once between them, not once each."""
        if not items or self._signature() in (None, self._seen):
            return
        try:
            loaded = self._read()
        except (OSError, ValueError, KeyError, TypeError):  # torn by a writer right now: embed instead
            return
        if loaded is None:
            return
        matrix, ids, hashes = loaded
        found = [row for row, (id_, content_hash) in enumerate(zip(ids, hashes)) if items.get(id_) == content_hash]
        if found:
            self.upsert([ids[row] for row in found], [hashes[row] for row in found], matrix[found])

    def _signature(self) -> tuple[int, int, int] | None:
        try:
            st = (self.path / META_FILE).stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def _read(self) -> tuple[np.ndarray, list[str], list[str]] | None:
        meta_path = self.path / META_FILE
        if not meta_path.exists():
            return None
        self._seen = self._signature()  # before reading: a write racing the read is seen next time
        meta = jsonsafe.loads(meta_path.read_text(encoding="utf-8"))
        if not isinstance(meta, dict):
            raise ValueError("meta.json is not an object")
        if meta.get("identity") != self.identity or meta.get("dim") != self.dim:
            found = meta.get("identity")
            log.info("vector cache %s holds %s, not %s", self.path, found, self.identity)
            return None
        ids, hashes = meta["ids"], meta["hashes"]
        if not isinstance(ids, list) or not isinstance(hashes, list):
            raise ValueError("ids and hashes must be lists")
        _check_size(self.path / MATRIX_FILE, len(ids), self.dim)
        matrix = np.load(self.path / MATRIX_FILE, allow_pickle=False)
        _check_matrix(matrix, meta, len(ids), self.dim)
        if len(hashes) != len(ids) or len(set(ids)) != len(ids):
            raise ValueError("ids and hashes disagree")
        return matrix, [str(i) for i in ids], [str(h) for h in hashes]

    def missing(self, items: Mapping[str, str]) -> list[str]:
        """Ids (of `items`: id -> content hash) whose vector is absent or for other content."""
        return [
            id_ for id_, content_hash in items.items()
            if id_ not in self._rows or self._hashes[self._rows[id_]] != content_hash
        ]

    def upsert(self, ids: Sequence[str], hashes: Sequence[str], vectors: np.ndarray) -> None:
        """Store or replace the vectors of `ids` (rows of `vectors`, normalised here)."""
        vectors = normalise_rows(np.asarray(vectors, dtype=np.float32).reshape(-1, self.dim))
        if not len(ids) == len(hashes) == len(vectors):
            raise ValueError("upsert needs one hash and one vector per id")
        latest = {id_: (h, v) for id_, h, v in zip(ids, hashes, vectors)}  # last one wins
        new = [id_ for id_ in latest if id_ not in self._rows]
        if new:
            self._grow(len(new))
            for id_ in new:
                self._rows[id_] = len(self._ids)
                self._ids.append(id_)
                self._hashes.append("")
        rows = [self._rows[id_] for id_ in latest]
        self.changes += 1
        self._matrix[rows] = np.stack([vector for _, vector in latest.values()])
        for row, (content_hash, _) in zip(rows, latest.values()):
            self._hashes[row] = content_hash

    def _grow(self, more: int) -> None:
        """Room for `more` rows: the matrix is a view of a buffer that doubles when full, so adding
        one memory at a time copies the matrix a logarithmic number of times, not once per add."""
        rows, buf = len(self._matrix), self._buf
        if buf is None or self._matrix.base is not buf or buf.shape[0] < rows + more:
            buf = np.zeros((max(2 * rows, rows + more, 64), self.dim), dtype=np.float32)
            buf[:rows] = self._matrix
            self._buf = buf
        else:
            buf[rows:rows + more] = 0
        self._matrix = buf[:rows + more]

    def remove(self, ids: Iterable[str]) -> None:
        """Drop the vectors of `ids`; unknown ids are ignored."""
        gone = {self._rows[id_] for id_ in ids if id_ in self._rows}
        if not gone:
            return
        keep = [row for row in range(len(self._ids)) if row not in gone]
        self.changes += 1
        self._matrix = self._matrix[keep]
        self._ids = [self._ids[row] for row in keep]
        self._hashes = [self._hashes[row] for row in keep]
        self._rows = {id_: row for row, id_ in enumerate(self._ids)}

    def save(self) -> None:
        """Write matrix then meta, each atomically, so readers never see a torn pair as valid."""
        self.path.mkdir(parents=True, exist_ok=True)
        matrix = np.ascontiguousarray(self._matrix, dtype=np.float32)
        meta = {
            "version": FORMAT_VERSION,
            "identity": self.identity,
            "dim": self.dim,
            "rows": len(self._ids),
            "crc32": _crc(matrix),
            "ids": self._ids,
            "hashes": self._hashes,
        }
        _atomic_write(self.path / MATRIX_FILE, lambda f: np.save(f, matrix, allow_pickle=False))
        payload = json.dumps(meta, separators=(",", ":")).encode("utf-8")
        _atomic_write(self.path / META_FILE, lambda f: f.write(payload))
        self._seen = self._signature()

    def search(
        self, query: np.ndarray, k: int, allowed: Collection[str] | None = None
    ) -> list[tuple[str, float]]:
        """The k ids nearest `query` by exact cosine, best first, optionally among `allowed`."""
        rows = self._allowed_rows(allowed)
        if k <= 0 or len(rows) == 0:
            return []
        # Fancy indexing copies the matrix: skip it when every row is allowed.
        matrix = self._matrix if allowed is None else self._matrix[rows]
        scores = matrix @ self._query(query)
        if k < len(rows):
            top = np.argpartition(-scores, k - 1)[:k]
        else:
            top = np.arange(len(rows))
        hits = [(self._ids[rows[i]], float(scores[i])) for i in top]
        return sorted(hits, key=lambda hit: (-hit[1], hit[0]))

    def similarities(self, query: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
        """Cosine of `query` with each of `ids` that has a vector."""
        present = [id_ for id_ in ids if id_ in self._rows]
        if not present:
            return {}
        scores = self._matrix[[self._rows[id_] for id_ in present]] @ self._query(query)
        return {id_: float(score) for id_, score in zip(present, scores)}

    def vector(self, memory_id: str) -> np.ndarray | None:
        """A copy of the stored vector of `id`, or None."""
        row = self._rows.get(memory_id)
        return None if row is None else self._matrix[row].copy()

    def _query(self, query: np.ndarray) -> np.ndarray:
        query = np.asarray(query, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.dim:
            raise ValueError(f"query has {query.shape[0]} dimensions, the store {self.dim}")
        return normalise_rows(query)

    def _allowed_rows(self, allowed: Collection[str] | None) -> np.ndarray:
        if allowed is None:
            return np.arange(len(self._ids))
        rows = sorted(self._rows[id_] for id_ in allowed if id_ in self._rows)
        return np.array(rows, dtype=np.intp)


def _crc(matrix: np.ndarray) -> int:
    """crc32 of a contiguous matrix's bytes, without copying them."""
    return zlib.crc32(memoryview(cast(Any, np.ascontiguousarray(matrix).reshape(-1).view(np.uint8))))


def _check_size(path: Path, n_ids: int, dim: int) -> None:
    """Raise ValueError unless the matrix file is about the size meta.json's ids need (a cache is
    untrusted: a planted file never makes a reader allocate more than the rows it claims)."""
    size = path.stat().st_size
    if size > n_ids * dim * 4 + NPY_HEADER_MAX:
        raise ValueError(f"matrix file of {size} bytes is larger than {n_ids} rows of {dim} floats")


def _check_matrix(matrix: np.ndarray, meta: Mapping[str, Any], n_ids: int, dim: int) -> None:
    """Raise ValueError unless the matrix is the one meta.json describes."""
    if matrix.dtype != np.float32 or matrix.ndim != 2 or matrix.shape != (n_ids, dim):
        raise ValueError(f"matrix shape {matrix.shape} {matrix.dtype} does not match meta")
    if meta.get("rows") != n_ids:
        raise ValueError("row count does not match meta")
    if _crc(np.ascontiguousarray(matrix)) != meta.get("crc32"):
        raise ValueError("matrix checksum does not match meta (torn write?)")


def _atomic_write(path: Path, write: Callable[[Any], object]) -> None:
    """Write through a unique temp file in the same directory, fsync, then os.replace."""
    fd, tmp = temp_beside(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def sync_vectors(
    store: VectorStore, embedder: Embedder, texts: Mapping[str, tuple[str, str]]
) -> int:
    """Bring the store in line with `texts` (id -> (hash, text)); returns the number embedded."""
    return sync_store(store, embedder, {id_: pair[0] for id_, pair in texts.items()},
                      lambda id_: texts[id_][1])


def sync_store(
    store: VectorStore, embedder: Embedder, hashes: Mapping[str, str], text_of: Callable[[str], str],
    progress: Callable[[int], None] | None = None, batch: int = 256, save: bool = True,
    delta: tuple[Collection[str], Collection[str]] | None = None,
) -> int:
    """Bring the store in line with `hashes` (id -> content hash); returns the number embedded.

    Only new or changed ids are embedded (their text fetched by `text_of`, in batches, so a caller
    never materialises every text); ids no longer present are dropped; the store is saved only
    when something changed (and `save`: a warm engine saves later). `progress` gets the number of ids done so far;
    `delta` (ids changed, ids removed) limits the work to those when the store matched the hashes before them.
    """
    if embedder.identity != store.identity or embedder.dim != store.dim:
        raise ValueError(f"embedder {embedder.identity} does not match store {store.identity}")
    if delta is None:
        stale = [id_ for id_ in store.ids if id_ not in hashes]
        todo = store.missing(hashes)
    else:  # the store was in line with an earlier snapshot: only what changed since is looked at
        stale = [id_ for id_ in delta[1] if id_ in store and id_ not in hashes]
        todo = store.missing({i: hashes[i] for i in delta[0] if i in hashes})
    store.remove(stale)
    if todo:  # what another process embedded since: not embedded again
        store.adopt({i: hashes[i] for i in todo})
        todo = store.missing({i: hashes[i] for i in todo})
    todo.sort()
    for start in range(0, len(todo), batch):
        ids = todo[start:start + batch]
        store.upsert(ids, [hashes[i] for i in ids], embedder.embed([text_of(i) for i in ids]))
        if progress:
            progress(len(hashes) - len(todo) + start + len(ids))
    if (stale or todo) and save:
        store.save()
    return len(todo)
