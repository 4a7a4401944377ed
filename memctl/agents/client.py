"""The CLI's client for a warm `memctl serve`: find the server, send one command, read its envelope.

A server answers for a directory when its record (server.json in this user's cache folder of the
directory, store/server_record.py) is live and names a server this user started, or when
MEMCTL_SERVER names one (then `--dir` on the command line wins). A forwarded `memctl recall` is a
fresh process with a budget of about 100 ms, so this module is lean: a plain socket speaks the
little HTTP/1.1 it needs (http.client alone takes ~25 ms to import) and nothing here loads pydantic.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from memctl.store import server_record
from memctl.store.locate import locate_root

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing takes ~6 ms to import; a command forwarded to a warm server runs without it
    from typing import Any, Callable

CLI_PATH = "/api/cli/"
EXIT_BY_STATUS = {200: 0, 201: 0, 400: 2, 403: 3, 422: 3, 404: 4, 500: 1}
ACTOR_HEADER = "Memctl-Actor"
LOCAL_KEY_HEADER = "Memctl-Local-Key"  # agents/guard.py: the key of server.json, sent back to its server
_LOCAL_KEYS: dict[str, str] = {}  # url -> the key the folder's server.json gave for it (server_for fills it)
WARNINGS_HEADER = "memctl-warnings"
CONNECT_TIMEOUT = 2.0
READ_TIMEOUT = 120.0  # a first recall after a start may wait for the model


class Reply:  # a plain class: `dataclasses` imports `inspect`, ~20 ms of a forwarded call
    """A server's answer to one forwarded command."""

    def __init__(self, status: int, envelope: dict[str, Any], warnings: list[str]) -> None:
        self.status, self.envelope, self.warnings = status, envelope, warnings

    @property
    def exit_code(self) -> int:
        """The exit code the command would have had in-process."""
        return EXIT_BY_STATUS.get(self.status, 1)


class NoAnswer(Exception):
    """The server was reached but gave no usable answer; `sent` says whether the request left."""

    def __init__(self, message: str, sent: bool) -> None:
        super().__init__(message)
        self.sent = sent


def server_for(directory: str | None, warn: Callable[[str], None] | None = None) -> str | None:
    """The URL of a server that answers for this invocation's directory, or None (run in-process);
    `warn` hears why a record there was ignored (one naming a server this user did not start)."""
    named = os.environ.get("MEMCTL_SERVER")
    if named and not directory:
        return named.rstrip("/")
    root = root_for(directory)
    if root is None:
        return None  # the in-process run reports it in its own words
    record, problem = server_record.examine(root)
    if problem and warn is not None:
        warn(problem)
    if record is None:
        return None
    if isinstance(record.get("local_key"), str):
        _LOCAL_KEYS[record["url"]] = record["local_key"]
    return record["url"]


def root_for(directory: str | None) -> Path | None:
    """The memory directory of this invocation (--dir, MEMCTL_DIR, else upwards from here), or None."""
    return locate_root(directory, os.environ.get("MEMCTL_DIR"), Path.cwd())


def call(url: str, command: str, args: dict[str, Any], actor: str | None = None) -> Reply:
    """POST the command's arguments (and the actor it runs as) to the server; raises NoAnswer when
    there is no usable reply."""
    host, port = _address(url)
    body = json.dumps(args, ensure_ascii=False).encode("utf-8")
    headers = [f"POST {CLI_PATH}{command} HTTP/1.1", f"Host: {_host_header(host, port)}",
               "Content-Type: application/json", f"Content-Length: {len(body)}", "Connection: close"]
    if actor:  # JSON-escaped: a header holds only ASCII; the server checks the name
        headers.append(f"{ACTOR_HEADER}: {json.dumps(actor)}")
    token = os.environ.get("MEMCTL_TOKEN")
    if token:
        headers.append(f"Authorization: Bearer {token}")
    key = _LOCAL_KEYS.get(url)
    if key and key.isascii() and key.isprintable():  # the folder's key: its server believes our source
        headers.append(f"{LOCAL_KEY_HEADER}: {key}")
    raw = _exchange(host, port, ("\r\n".join(headers) + "\r\n\r\n").encode("latin-1") + body)
    status, fields, payload = _parse_response(raw)
    try:
        envelope = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise NoAnswer(f"the server at {url} did not answer with JSON", sent=True) from None
    if not isinstance(envelope, dict) or envelope.get("command") != command:
        raise NoAnswer(f"the server at {url} does not answer `{command}`", sent=True)
    return Reply(status, envelope, _warnings(fields.get(WARNINGS_HEADER)))


def _address(url: str) -> tuple[str, int]:
    """`http://host:port` to (host, port); anything else (https, a path) is not ours to speak."""
    if not url.startswith("http://"):
        raise NoAnswer(f"cannot forward to {url!r}: only http:// URLs", sent=False)
    netloc = url[len("http://"):].split("/", 1)[0]
    host, port = netloc, "80"
    if netloc.rfind(":") > netloc.rfind("]"):  # a port after the host (an IPv6 host is in brackets)
        host, port = netloc.rsplit(":", 1)
    if not host or not port.isdigit():
        raise NoAnswer(f"cannot forward to {url!r}: expected http://HOST:PORT", sent=False)
    return host.strip("[]"), int(port)


def _host_header(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _exchange(host: str, port: int, request: bytes) -> bytes:
    """Send the request and read until the server closes (we asked for `Connection: close`)."""
    import socket  # only when a server is there to talk to: every other command starts without it

    try:  # an ASCII host as bytes: a str goes through the idna codec, ~4 ms of imports
        sock = socket.create_connection((host.encode() if host.isascii() else host, port),  # type: ignore[arg-type]
                                        timeout=CONNECT_TIMEOUT)
    except OSError as exc:
        raise NoAnswer(f"cannot connect to {host}:{port}: {exc}", sent=False) from None
    chunks: list[bytes] = []
    try:
        sock.settimeout(READ_TIMEOUT)
        sock.sendall(request)
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except OSError as exc:
        raise NoAnswer(f"the server at {host}:{port} stopped answering: {exc}", sent=True) from None
    finally:
        sock.close()
    return b"".join(chunks)


def _parse_response(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """(status, lower-cased headers, body) of an HTTP/1.1 response read to its end."""
    head, sep, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if not sep or len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise NoAnswer("the server's reply is not HTTP", sent=True)
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    if "chunked" in fields.get("transfer-encoding", "").lower():
        body = _dechunk(body)
    elif "content-length" in fields and fields["content-length"].isdigit():
        body = body[: int(fields["content-length"])]
    return int(parts[1]), fields, body


def _dechunk(data: bytes) -> bytes:
    """The body of a chunked transfer encoding (sizes in hex, each chunk followed by CRLF)."""
    out: list[bytes] = []
    rest = data
    while True:
        size_line, sep, rest = rest.partition(b"\r\n")
        try:
            size = int(size_line.split(b";", 1)[0], 16)
        except ValueError:
            raise NoAnswer("the server's chunked reply is malformed", sent=True) from None
        if not sep or size == 0:
            return b"".join(out)
        out.append(rest[:size])
        rest = rest[size + 2:]


def _warnings(value: str | None) -> list[str]:
    """The warnings header: a JSON list of strings (ASCII-escaped, so any text survives a header)."""
    try:
        items = json.loads(value) if value else []
    except ValueError:
        return []
    return [str(item) for item in items] if isinstance(items, list) else []
