"""`import` writes in batches (WriteService.add_many) with the decisions of adding each line one by
one: repeats inside a batch are caught, keyed changes supersede, bad lines are refused and skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memctl.api import MemoryStore
from memctl.errors import MemctlError
from memctl.services.imports import ImportDefaults, ImportService, parse_lines

LINES = [
    {"content": "Alice lives in Berlin", "user": "alice", "key": "home.city"},
    {"content": "Alice drinks green tea every morning", "type": "preference", "user": "alice"},
    {"content": "Alice drinks green tea every morning", "type": "preference", "user": "alice"},  # a repeat
    {"content": "Bob plays the cello in an orchestra", "user": "bob"},
    {"content": "Alice lives in Lisbon", "user": "alice", "key": "home.city"},  # a keyed change
    {"content": "password=hunter2hunter2 for the staging box", "user": "bob"},  # a secret
    {"content": "Bob plays the cello in an orchestra.", "user": "bob"},  # the same, punctuated
    {"content": "x", "user": "alice", "confidence": 0.1},  # low confidence
    {"content": "Alice moved to Porto", "user": "alice", "key": "home.city"},
    {"content": "Bob owns a red bicycle", "user": "bob"},
]


def _text() -> str:
    return "\n".join([json.dumps(line) for line in LINES[:5]] + ["{not json"] + [json.dumps(line) for line in LINES[5:]])


def _state(store: MemoryStore) -> list[tuple]:
    return sorted((m.body, m.status, m.type, m.user or "", m.key or "") for m in store.repo.all_memories())


def _one_by_one(store: MemoryStore, second_fit: bool = True) -> list[tuple[str, str | None]]:
    importer = ImportService(store._writer)
    out = []
    for _, entry in parse_lines(_text()):
        if isinstance(entry, str):
            out.append(("refused", None))
            continue
        try:
            fields = importer.request(entry, ImportDefaults()).fields
            result = store._writer.add(entry.content, **fields, surface="import", second_fit=second_fit)
            out.append((result.decision.action, None))
        except MemctlError as exc:
            out.append(("error", exc.code))
    return out


@pytest.mark.parametrize(("batch", "second_fit"), [(1, True), (3, True), (100, True), (3, False), (100, False)])
def test_import_decides_as_one_add_after_another(tmp_path: Path, batch: int, second_fit: bool) -> None:
    """`second_fit` False (what `memctl import` uses unless --second-fit): both sides decide with the
    shipped model's pair fit."""
    from memctl.store.directory import init_directory

    for name in ("batched", "single"):
        init_directory(tmp_path / name)
    batched, single = MemoryStore(tmp_path / "batched"), MemoryStore(tmp_path / "single")
    defaults = ImportDefaults(second_fit=second_fit)
    report = ImportService(batched._writer).import_candidates(parse_lines(_text()), defaults, batch=batch)
    singles = _one_by_one(single, second_fit)
    outcomes = [(i.outcome, i.decision) for i in report.items]
    assert len(outcomes) == len(singles) == 11
    expected = {"add": "added", "supersede": "superseded", "update": "updated", "noop": "skipped"}
    for (outcome, decision), (action, code) in zip(outcomes, singles):
        if action == "error":
            assert outcome in ("refused", "skipped"), (outcome, code)
        elif action == "refused":
            assert outcome == "refused"
        else:
            assert (outcome, decision) == (expected[action], action)
    assert outcomes[2][0] == "skipped" and outcomes[4] == ("superseded", "supersede")
    assert outcomes[5][0] == "refused" and outcomes[6][0] == "refused"
    assert _state(batched) == _state(single)


def test_a_cli_import_with_bad_lines_reports_each_in_one_line(memdir: Path, tmp_path: Path) -> None:
    from tests.helpers import cli

    source = tmp_path / "in.jsonl"
    source.write_text(_text() + "\n[nosuchtype] text\n\x00\n", encoding="utf-8")
    result = cli(memdir, "import", str(source))
    assert result.exit_code == 3 and "Traceback" not in result.output
    assert len(MemoryStore(memdir).repo.active()) == 4  # tea, Porto (Berlin and Lisbon superseded), cello, bicycle


def test_a_cli_import_with_the_second_fit_writes_the_same(memdir: Path, tmp_path: Path) -> None:
    from tests.helpers import cli

    source = tmp_path / "in.jsonl"
    source.write_text(_text(), encoding="utf-8")
    result = cli(memdir, "import", "--second-fit", str(source))
    assert result.exit_code == 3 and "Traceback" not in result.output  # the secret and the short line refused
    assert len(MemoryStore(memdir).repo.active()) == 4


LINKED = [
    {"content": "Alice lives in Berlin", "user": "alice"},
    {"content": "Alice works at Siemens as an engineer", "user": "alice"},
    {"content": "Alice moved to Lisbon", "user": "alice"},
    {"content": "Alice moved to Porto last spring", "user": "alice"},
    {"content": "Alice now lives in Madrid", "user": "alice"},
    {"content": "Alice moved to Lisbon", "user": "alice"},  # a repeat of a memory others link to in the batch
    {"content": "Alice no longer works at Siemens", "user": "alice"},
    {"content": "api_key=sk-abcdef1234567890abcdef for alice", "user": "alice"},  # a secret
    {"content": "Alice works at Bosch now", "user": "alice"},
    {"content": "Bob drinks espresso", "user": "bob", "key": "coffee"},
    {"content": "Bob drinks espresso", "user": "bob", "key": "coffee"},
    {"content": "Bob drinks flat whites", "user": "bob", "key": "coffee"},  # a keyed change
]


def _linked_state(store: MemoryStore) -> list[tuple]:
    """Each memory with the bodies it links to (in order) and, from its journal history, the new
    memories linked onto it and the memories it was linked onto."""
    memories = store.repo.all_memories()
    body = {m.id: m.body for m in memories}
    out = []
    for m in memories:
        links = [e for e in store.repo.history(m.id) if e.op == "link"]
        onto = sorted(body[i] for e in links if e.id == m.id for i in e.mentions() if i in body)
        linked = sorted(body[e.id] for e in links if e.id != m.id)
        out.append((m.body, m.status, m.key or "", tuple(body.get(i, "?") for i in m.conflicts_with), tuple(onto),
                    tuple(linked)))
    return sorted(out)


def test_an_import_links_conflicts_as_one_add_after_another(tmp_path: Path) -> None:
    """The conflict links a batch records on stored memories (each rewritten once, as the lock hold
    ends) are the links adds one by one record, in the same order, and the same journal history."""
    from memctl.store.directory import init_directory

    for name in ("batched", "single"):
        init_directory(tmp_path / name)
    batched, single = MemoryStore(tmp_path / "batched"), MemoryStore(tmp_path / "single")
    text = "\n".join(json.dumps(line) for line in LINKED)
    report = ImportService(batched._writer).import_candidates(parse_lines(text), ImportDefaults(), batch=100)
    items = [ImportService(single._writer).import_candidates([entry], ImportDefaults()).items[0]
             for entry in parse_lines(text)]
    shown = [(i.outcome, i.decision, i.codes, i.message) for i in report.items]
    assert len(shown) == len(items) == len(LINKED)
    for (outcome, decision, codes, message), item in zip(shown, items):  # ids differ: messages by shape
        assert (outcome, decision, codes) == (item.outcome, item.decision, item.codes)
        assert len(message or "") == len(item.message or "")
    state = _linked_state(batched)
    assert state == _linked_state(single)
    assert sum(len(links) for _, _, _, links, _, _ in state) >= 8  # links on memories linked more than once
    assert [o for o, *_ in shown].count("skipped") == 2 and shown[7][0] == "refused"


def test_an_import_embeds_each_batch_once_the_next_one_ahead(tmp_path: Path) -> None:
    """Batches after the first are embedded in a worker thread while the one before is written
    (Engine.embed_ahead): each text once, one model call a batch, and the same stored result as
    an import that embeds each batch when it begins. The import hands add_many all its lines, so
    the worker really runs (it once got one batch a call, so nothing came after it to embed ahead)."""
    import threading

    from memctl.search.engine import Engine
    from memctl.store.directory import init_directory

    results = []
    for name, ahead in (("ahead", True), ("plain", False)):
        init_directory(tmp_path / name)
        store = MemoryStore(tmp_path / name)
        engine = store.search.primary if hasattr(store.search, "primary") else store.search
        assert isinstance(engine, Engine)
        if not ahead:
            engine.embed_ahead = None  # type: ignore[assignment,method-assign]
        embedder, calls = engine.embedder, []
        real = embedder.embed
        embedder.embed = lambda texts, real=real, calls=calls: calls.append(  # type: ignore[method-assign,misc]
            (len(texts), threading.current_thread().name)) or real(texts)
        report = ImportService(store._writer).import_candidates(parse_lines(_text()), ImportDefaults(), batch=3)
        embedder.embed = real  # type: ignore[method-assign]
        results.append(([(i.outcome, i.decision) for i in report.items], _state(store), calls))
    assert results[0][:2] == results[1][:2]
    (ahead_calls, plain_calls) = (results[0][2], results[1][2])
    assert [n for n, _ in ahead_calls] == [n for n, _ in plain_calls] and len(ahead_calls) == 4  # four batches
    assert [name for _, name in ahead_calls] == ["MainThread"] + ["memctl-embed-ahead"] * 3
    assert {name for _, name in plain_calls} == {"MainThread"}
