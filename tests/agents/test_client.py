"""The CLI's lean client: where the server is, and the little HTTP/1.1 it speaks (against real uvicorn)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.agents import client
from memctl.agents.http import create_app
from memctl.api import MemoryStore
from memctl.store import server_record
from tests.helpers import http_server


@pytest.mark.parametrize("url, address", [
    ("http://127.0.0.1:8765", ("127.0.0.1", 8765)), ("http://[::1]:9000/", ("::1", 9000)),
    ("http://localhost", ("localhost", 80)), ("http://mem.example:81/api", ("mem.example", 81)),
])
def test_address(url: str, address: tuple[str, int]) -> None:
    assert client._address(url) == address


@pytest.mark.parametrize("url", ["https://mem.example", "http://:80", "http://host:port", "ftp://x"])
def test_urls_it_cannot_speak(url: str) -> None:
    with pytest.raises(client.NoAnswer) as info:
        client._address(url)
    assert info.value.sent is False


def test_parse_response_plain_and_chunked() -> None:
    plain = b"HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\nMemctl-Warnings: [\"a\"]\r\n\r\n{}extra"
    assert client._parse_response(plain) == (404, {"content-length": "2", "memctl-warnings": '["a"]'}, b"{}")
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4;x=1\r\n\": 1\r\n1\r\n}\r\n0\r\n\r\n"
    assert client._parse_response(chunked)[2] == b'{"a": 1}'
    with pytest.raises(client.NoAnswer):
        client._parse_response(b"SSH-2.0-OpenSSH\r\n\r\n")


def test_server_for_reads_the_record_and_memctl_server(memdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    assert client.server_for(str(memdir)) is None
    with socket.socket() as listener:  # the record's process (this one) holds the socket it names
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        server_record.write_record(memdir, url, "1")
        assert client.server_for(str(memdir)) == url
        monkeypatch.setenv("MEMCTL_SERVER", "http://10.0.0.9:8765/")
        assert client.server_for(None) == "http://10.0.0.9:8765"  # no --dir: the named server
        assert client.server_for(str(memdir)) == url  # --dir wins
        assert client.server_for(str(memdir / "missing")) is None  # the in-process run reports it
    warned: list[str] = []
    assert client.server_for(str(memdir), warned.append) is None  # nothing listens there any more
    assert len(warned) == 1 and "does not listen on port" in warned[0]


def test_call_against_a_real_server(store: MemoryStore) -> None:
    store.add_raw("Alice prefers window seats on flights", type="preference", user="alice")
    with http_server(create_app(store)) as url:
        reply = client.call(url, "recall", {"query": "window seat"})
        assert reply.status == 200 and reply.exit_code == 0 and reply.envelope["data"]["hits"]
        missing = client.call(url, "show", {"memory_id": "abcdef12"})
        assert missing.exit_code == 4 and missing.envelope["errors"][0]["code"] == "not_found"
        bad = client.call(url, "recall", {"query": "q", "k": 0})
        assert bad.exit_code == 2


def test_no_server_listening_is_no_answer_before_sending() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, not listening: the connection is refused
        with pytest.raises(client.NoAnswer) as info:
            client.call(f"http://127.0.0.1:{port}", "recall", {"query": "q"})
    assert info.value.sent is False
