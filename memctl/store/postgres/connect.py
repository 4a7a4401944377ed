"""Connections to a PostgreSQL store: one pool per URL and process (migrated on first use), and
database errors turned into memctl errors with a one-line message that never shows a password.

psycopg, psycopg_pool and pgvector are imported here, lazily: a folder store never loads them.
"""

from __future__ import annotations

import atexit
import contextlib
import re
import threading
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from memctl.errors import Conflict, LockTimeout, MemctlError, StoreError

MAX_POOLS = 4  # a process talks to one store; tests open many, and each pool holds connections
POOL_SIZE = 8  # a write transaction, the search's own connection, and a few server threads
CONNECT_TIMEOUT = 10
_POOLS: OrderedDict[str, Any] = OrderedDict()
_LOCK = threading.Lock()
_PASSWORD = re.compile(r"(://[^:/@?#]*:)[^@/?#]*@")
_PASSWORD_PARAM = re.compile(r"(password=)[^&\s]*", re.IGNORECASE)
INSTALL_HINT = "the PostgreSQL store needs psycopg, psycopg_pool and pgvector: pip install 'memctl[postgres]'"


def redact(url: str) -> str:
    """The URL with any password replaced by ***, fit for messages and logs."""
    return _PASSWORD_PARAM.sub(r"\1***", _PASSWORD.sub(r"\1***@", url))


def _drivers() -> tuple[Any, Any, Any]:
    """psycopg, psycopg_pool and pgvector's psycopg adapter (a clear error when not installed)."""
    try:
        import psycopg
        import psycopg_pool
        from pgvector import psycopg as pgvector_psycopg
    except ImportError:
        raise StoreError(INSTALL_HINT, code="store_driver") from None
    return psycopg, psycopg_pool, pgvector_psycopg


def _configure(conn: Any) -> None:
    """Every pooled connection: vectors as numpy arrays, times in UTC."""
    _, _, pgvector_psycopg = _drivers()
    pgvector_psycopg.register_vector(conn)
    conn.execute("SET TIME ZONE 'UTC'")


def pool(url: str) -> Any:
    """The process's connection pool for `url`, created (and the schema migrated) on first use."""
    with _LOCK:
        found = _POOLS.get(url)
        if found is not None:
            _POOLS.move_to_end(url)
            return found
        created = _open(url)
        _POOLS[url] = created
        while len(_POOLS) > MAX_POOLS:
            _, oldest = _POOLS.popitem(last=False)
            oldest.close()
        return created


def _open(url: str) -> Any:
    from memctl.store.postgres.schema import migrate

    psycopg, psycopg_pool, _ = _drivers()
    with translate(url):
        # A plain connection first: its error says why (refused, no such database, bad password),
        # where a pool would only time out.
        with psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT) as conn:
            migrate(conn)
        opened = psycopg_pool.ConnectionPool(url, min_size=1, max_size=POOL_SIZE, kwargs={"autocommit": True},
                                             configure=_configure, open=False, name="memctl")
        opened.open(wait=True, timeout=CONNECT_TIMEOUT)
    return opened


def close_pool(url: str) -> None:
    """Close the pool of `url`, if open (tests; a server shutting down)."""
    with _LOCK:
        found = _POOLS.pop(url, None)
    if found is not None:
        found.close()


@atexit.register
def close_all() -> None:
    """Close every pool (at exit: connections end cleanly instead of being dropped)."""
    with _LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    for opened in pools:
        with contextlib.suppress(Exception):
            opened.close()


@contextlib.contextmanager
def translate(url: str) -> Iterator[None]:
    """Database errors as memctl errors: a lock wait too long, a deadlock (run it again), the store
    unreachable, anything else the database refused; always one line, never the password."""
    try:
        yield
    except MemctlError:
        raise
    except Exception as exc:
        raise _as_memctl_error(exc, url) from None


def _as_memctl_error(exc: Exception, url: str) -> Exception:
    psycopg, psycopg_pool, _ = _drivers()
    if not isinstance(exc, psycopg.Error):
        return exc
    text = redact(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
    if isinstance(exc, (psycopg.errors.LockNotAvailable, psycopg.errors.QueryCanceled)):
        return LockTimeout(f"another memctl process holds the store's write lock ({text})")
    if isinstance(exc, (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure)):
        return Conflict(f"another writer changed the same memories at the same time; nothing was written "
                        f"(run the command again): {text}")
    if isinstance(exc, (psycopg.OperationalError, psycopg_pool.PoolTimeout)):
        return StoreError(f"cannot use the PostgreSQL store at {redact(url)}: {text}", code="store_unavailable")
    return StoreError(f"the PostgreSQL store refused a statement: {text}")
