"""JSON-RPC over stdio lines for `memctl mcp`: the framing and the protocol's error rules, no SDK.

One message per line in, one per line out. A line that is not JSON gets -32700 (id null); JSON that
is not a JSON-RPC message gets -32600 (with the request's id when it can be read, else null); a
line nested deeper than MAX_DEPTH gets -32600 before any parser recurses into it. A batch (a JSON
array) is taken where the negotiated revision allows one (2025-03-26, the only revision that does)
and answered with one array, as JSON-RPC 2.0 says; under any other revision it is -32600. At the
end of input, every request already read is answered before the server is told (a shell pipe
`printf 'init...\\ntools/call...\\n' | memctl mcp` gets both answers). The SDK on the other side
(memctl.agents.mcp) sees plain messages as dicts and answers them.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, AsyncIterable, Awaitable, BinaryIO, Callable

import anyio

from memctl.core.jsonsafe import MAX_DEPTH, too_deep

PARSE_ERROR, INVALID_REQUEST = -32700, -32600
BATCH_REVISIONS = frozenset({"2025-03-26"})  # 2025-06-18 removed batching again
Message = dict[str, Any]

_ID = re.compile(r'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')


@dataclass
class _Batch:
    """A batch's replies so far and the requests it still waits for."""

    replies: list[Message] = field(default_factory=list)
    waiting: Counter[str] = field(default_factory=Counter)


def error(request_id: Any, code: int, message: str) -> Message:
    """A JSON-RPC error response."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def key(request_id: Any) -> str:
    """A request id as a dict key (1 and "1" are different ids)."""
    return json.dumps(request_id)


def message_problem(item: Any) -> str | None:
    """What makes `item` not a JSON-RPC 2.0 message (None: it is one)."""
    if not isinstance(item, dict):
        return "a message must be a JSON object"
    if item.get("jsonrpc") != "2.0":
        return 'a message must say "jsonrpc": "2.0"'
    if "id" in item and not _valid_id(item["id"]):
        return "the id must be a string or an integer"
    if "method" in item:
        if not isinstance(item["method"], str):
            return "the method must be a string"
        if "params" in item and not isinstance(item["params"], dict):
            return "params must be an object"
        return None
    if "id" not in item or ("result" in item) == ("error" in item):
        return "a message needs a method (a request or notification), or an id and a result or error"
    return None


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _batched_request(item: Any) -> bool:
    """A batch item that will get its own answer from the server (or an error for it)."""
    return (isinstance(item, dict) and "method" in item and item.get("method") != "initialize"
            and _valid_id(item.get("id")))


def readable_id(item: Any) -> Any:
    """The id of a message that was refused, when it has a valid one; else None (null)."""
    value = item.get("id") if isinstance(item, dict) else None
    return value if _valid_id(value) else None


class LineProtocol:
    """Between stdin/stdout lines and the server: `submit` hands the server one message (it raises
    ValueError for one the server cannot take), `emit` writes one line; `outbound` is called with
    every message the server sends."""

    def __init__(self, submit: Callable[[Message], Awaitable[None]], emit: Callable[[str], Awaitable[None]]) -> None:
        self.submit = submit
        self.emit = emit
        self.revision: str | None = None  # the negotiated protocol revision, once initialize is answered
        self._pending: Counter[str] = Counter()  # requests read and not yet answered
        self._batches: dict[str, _Batch] = {}
        self._initialize: str | None = None  # the initialize request in flight
        self._settled = anyio.Event()  # set whenever nothing is pending
        self._settled.set()
        self._initialized = anyio.Event()

    async def read(self, lines: AsyncIterable[str]) -> None:
        """Take every line, then wait until every request read has its answer."""
        async for line in lines:
            await self.take(line)
        while self._pending:
            self._settled = anyio.Event()
            await self._settled.wait()

    async def take(self, line: str) -> None:
        """One line of input."""
        if not line.strip():
            return
        if too_deep(line):
            found = _ID.search(line[:4096])
            await self._send(error(None if found is None else json.loads(found.group(1)), INVALID_REQUEST,
                                   f"invalid request: JSON nested deeper than {MAX_DEPTH} levels"))
            return
        try:
            item = json.loads(line)
        except ValueError as exc:
            await self._send(error(None, PARSE_ERROR, f"parse error: not JSON ({exc})"))
            return
        if isinstance(item, list):
            await self._take_batch(item)
            return
        reply = await self._one(item, None)
        if reply is not None:
            await self._send(reply)

    async def _take_batch(self, items: list[Any]) -> None:
        if self._initialize is not None:  # the revision is being negotiated: it decides
            await self._initialized.wait()
        if self.revision not in BATCH_REVISIONS or not items:
            why = "an empty batch" if not items else f"batches are not part of protocol revision {self.revision}"
            await self._send(error(None, INVALID_REQUEST, f"invalid request: {why}"))
            return
        batch = _Batch()
        for item in items:  # every request first: an early answer must not end the batch
            if _batched_request(item):
                batch.waiting[key(item["id"])] += 1
                self._batches.setdefault(key(item["id"]), batch)
        for item in items:
            if isinstance(item, dict) and item.get("method") == "initialize":
                batch.replies.append(error(readable_id(item), INVALID_REQUEST,
                                           "invalid request: initialize may not be part of a batch"))
                continue
            reply = await self._one(item, batch)
            if reply is not None:
                batch.replies.append(reply)
        await self._finish(batch)

    async def _one(self, item: Any, batch: _Batch | None) -> Message | None:
        """Hand one message to the server; the error reply when it is refused."""
        problem = message_problem(item)
        if problem is None:
            request = "method" in item and "id" in item
            if request:
                self._pending[key(item["id"])] += 1
                if item["method"] == "initialize":
                    self._initialize = key(item["id"])
            try:
                await self.submit(item)
            except ValueError as exc:
                if request:
                    self._answered(key(item["id"]))
                problem = str(exc).splitlines()[0]
            else:
                self._forget_cancelled(item)
                return None
        if batch is not None and _batched_request(item):
            self._unwait(batch, key(item["id"]))
        return error(readable_id(item), INVALID_REQUEST, f"invalid request: {problem}")

    def _forget_cancelled(self, item: Message) -> None:
        """A request the client cancels may never be answered: the end of input does not wait for it."""
        if item.get("method") == "notifications/cancelled" and _valid_id((item.get("params") or {}).get("requestId")):
            self._answered(key(item["params"]["requestId"]))

    async def outbound(self, message: Message) -> None:
        """A message from the server: a reply completes its request (and its batch), the rest goes out."""
        if "method" in message or "id" not in message:
            await self._send(message)
            return
        request = key(message["id"])
        if request == self._initialize:
            self.revision = (message.get("result") or {}).get("protocolVersion")
            self._initialize = None
            self._initialized.set()
        self._answered(request)
        batch = self._batches.get(request)
        if batch is None:
            await self._send(message)
            return
        batch.replies.append(message)
        self._unwait(batch, request)
        await self._finish(batch)

    def _unwait(self, batch: _Batch, request: str) -> None:
        batch.waiting[request] -= 1
        if batch.waiting[request] <= 0:
            del batch.waiting[request]
            if self._batches.get(request) is batch:
                del self._batches[request]

    async def _finish(self, batch: _Batch) -> None:
        """Write a batch's replies as one array once it waits for nothing (nothing at all when every
        item was a notification)."""
        if batch.waiting or not batch.replies:
            return
        replies, batch.replies = batch.replies, []
        await self.emit(json.dumps(replies, ensure_ascii=False, separators=(",", ":")))

    def _answered(self, request: str) -> None:
        if self._pending[request] > 0:
            self._pending[request] -= 1
        if self._pending[request] <= 0:
            del self._pending[request]
        if not self._pending:
            self._settled.set()

    async def _send(self, message: Message) -> None:
        await self.emit(json.dumps(message, ensure_ascii=False, separators=(",", ":")))


def claim_stdio() -> tuple[BinaryIO, BinaryIO, Callable[[], None]]:
    """The wire's stdin and stdout as private descriptors; fd 0 becomes the null device and fd 1
    stderr until `restore` (where the descriptors cannot be duplicated, the streams as they are)."""
    sys.stdout.flush()
    try:
        private_in, private_out = os.dup(0), os.dup(1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
    except OSError:
        return sys.stdin.buffer, sys.stdout.buffer, lambda: None

    def restore() -> None:
        sys.stdout.flush()
        for private, fd in ((private_in, 0), (private_out, 1)):
            os.dup2(private, fd)
            os.close(private)

    # closefd=False: the descriptors are closed by restore, after fd 0 and 1 point at them again
    return (os.fdopen(private_in, "rb", buffering=0, closefd=False),
            os.fdopen(private_out, "wb", buffering=0, closefd=False), restore)
