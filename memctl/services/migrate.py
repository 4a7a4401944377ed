"""Moving memories in and out: `import --from SOURCE PATH` and `export --to TARGET`.

Other stores (mem0, MemoryService, a Claude Code folder) give candidates: each goes through the gate
and the write decision, oldest first, keeping its own timestamps, and remembers where it came from
(`source_ids`), so a second import takes nothing twice. memctl's own records (`export --to jsonl`,
`export --to folder`) are whole memories that were decided when they were written: they come back as
they were (id, dates, status, links, unknown keys), an id or a fact already stored being skipped,
so moving a directory (or a backend) loses nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from pydantic import Field

from memctl import clock
from memctl.core.access import Access, access_view, write_refusal
from memctl.core.models import Memory
from memctl.core.records import from_record, is_record, record_line
from memctl.errors import InvalidMemory, UsageError
from memctl.policy.decide import fingerprint
from memctl.services.imports import (
    ALREADY,
    ImportDefaults,
    ImportItem,
    ImportReport,
    ImportService,
    already_item,
    candidate_from,
    imported_before,
    remembered,
)
from memctl.services.sources import (
    Entry,
    claude_candidates,
    mem0_candidates,
    memoryservice_candidates,
    parse_json_or_lines,
)
from memctl.store import sources as files
from memctl.store.filters import scope_filter
from memctl.store.repository import ReadsAndWrites

SOURCES = ("mem0", "memoryservice", "claude", "jsonl", "folder")
TARGETS = ("jsonl", "folder")
LAYOUTS = ("memctl", "claude")


class MigrationReport(ImportReport):
    """What an import from another store did: per item, and taken / merged / already there / refused."""

    source: str
    path: str | None = None
    notes: list[str] = Field(default_factory=list)

    @property
    def summary(self) -> dict[str, int]:
        """taken: new memories; merged: into a stored memory; already: imported before; refused."""
        counts = self.counts
        already = sum(1 for i in self.items if i.outcome == "skipped" and ALREADY in i.codes)
        return {"taken": counts["added"] + counts["superseded"], "merged": counts["updated"] + counts["skipped"] - already,
                "already": already, "refused": counts["refused"]}

    def to_data(self) -> dict[str, Any]:
        return {"source": self.source, "path": self.path, "summary": self.summary, **super().to_data(),
                "notes": self.notes}


class MigrationService:
    """Import from other stores and memctl's own exports; export records and folders."""

    def __init__(self, repo: ReadsAndWrites, importer: ImportService, access: Access | None = None) -> None:
        self.repo = repo
        self.importer = importer
        self.access = access
        self.actor = access.actor if access else None  # journaled with each write this service makes

    def _exported(self, users: Sequence[str] = (), projects: Sequence[str] = ()) -> list[Memory]:
        """What an export holds: every memory (active, archived, expired) of these users (with their
        projects: store/filters.py) and projects, or of everyone, that the actor may see."""
        flt = scope_filter(self.importer.writer.config.members, users, projects, status="all", expired=True,
                           access=self.access)
        return self.repo.select(flt, clock.now())

    # -- in ----------------------------------------------------------------------------------
    def import_from(self, source: str, path: str | None, text: str | None, defaults: ImportDefaults,
                    llm: str | None = None) -> MigrationReport:
        """Import everything a source holds (see the module docstring); `text` stands for the file's."""
        report = MigrationReport(source=source, path=path)
        config = self.importer.writer.config
        if source in ("folder", "claude"):
            contents = files.read_folder(self._need(path), "claude" if source == "claude" else None, config.default_type)
            report.notes += [f"skipped broken file {msg}" for _, msg in contents.broken]
            if source == "folder":
                return self._records(report, [(str(m.path), m) for m in contents.memories])
            owner_given = bool(defaults.user or defaults.project)
            return self._candidates(report, claude_candidates(contents.memories, owner_given), defaults, llm)
        if source == "memoryservice" and text is None and files.is_sqlite(self._need(path)):
            rows = files.read_sqlite_rows(self._need(path))
            return self._candidates(report, memoryservice_candidates(rows, config.types), defaults, llm)
        data = self._json(text if text is not None else files.read_source_text(self._need(path)), source)
        if source == "mem0":
            return self._candidates(report, self._or_usage(mem0_candidates, data), defaults, llm)
        if source == "memoryservice":
            return self._candidates(report, memoryservice_candidates(_rows(data), config.types), defaults, llm)
        return self._jsonl(report, data if isinstance(data, list) else [data], defaults, llm)

    @staticmethod
    def _need(path: str | None) -> str:
        if not path:
            raise UsageError("name the file or folder to import from", code="no_path")
        return path

    @staticmethod
    def _json(text: str, source: str) -> Any:
        try:
            return parse_json_or_lines(text)
        except ValueError as exc:
            raise UsageError(f"cannot read the {source} input: {exc}", code="bad_input") from None

    @staticmethod
    def _or_usage(mapper: Any, data: Any) -> list[Entry]:
        try:
            return list(mapper(data))
        except ValueError as exc:
            raise UsageError(str(exc), code="bad_input") from None

    def _jsonl(self, report: MigrationReport, items: list[Any], defaults: ImportDefaults,
               llm: str | None) -> MigrationReport:
        """memctl records come back whole; other lines are candidates, as `memctl import` reads them."""
        records: list[tuple[str, Memory | str]] = []
        candidates: list[Entry] = []
        for number, item in enumerate(items, start=1):
            ref = f"line {number}"
            if is_record(item):
                try:
                    records.append((ref, from_record(item, ref)))
                except InvalidMemory as exc:
                    records.append((ref, exc.message))
            else:
                try:
                    candidates.append((ref, candidate_from(item)))
                except ValueError as exc:
                    candidates.append((ref, f"{ref}: {exc}"))
        self._records(report, records)
        return self._candidates(report, candidates, defaults, llm, first=len(report.items))

    def _candidates(self, report: MigrationReport, entries: list[Entry], defaults: ImportDefaults,
                    llm: str | None, first: int = 0) -> MigrationReport:
        """Each candidate through the gate and the write decision, oldest first; one taken before is skipped."""
        known = imported_before(self.repo)
        for number, (ref, entry) in _oldest_first(list(enumerate(entries, start=first + 1))):
            if isinstance(entry, str):
                report.items.append(ImportItem(line=number, ref=ref, outcome="refused", codes=["malformed"], message=entry))
                continue
            request = self.importer.request(entry, defaults, llm)
            stated = ref if ref in entry.source_ids else remembered(request)  # a line of no store: what it states
            if stated in known:
                report.items.append(already_item(number, known[stated], ref))
            else:
                report.items.append(self.importer.write_request(number, request).model_copy(update={"ref": ref}))
        report.items.sort(key=lambda i: i.line)
        self.importer.writer.restore_links([i.id for i in report.items if ALREADY in i.codes and i.id])
        return report

    def _records(self, report: MigrationReport, records: list[tuple[str, Memory | str]]) -> MigrationReport:
        """memctl's own memories, restored as they were: an id already stored, or an active memory whose
        text is already stored for the same owner and type, is skipped."""
        with self.repo.locked():
            by_id = {m.id: m for m in self.repo.all_memories()}
            facts = {(m.owner, m.type, fingerprint(m.body)): m.id for m in self.repo.active()}
            for ref, memory in records:
                report.items.append(self._restore(len(report.items) + 1, ref, memory, by_id, facts))
        return report

    def _restore(self, number: int, ref: str, memory: Memory | str, by_id: dict[str, Memory],
                 facts: dict[tuple[str, str, str], str]) -> ImportItem:
        if isinstance(memory, str):
            return ImportItem(line=number, ref=ref, outcome="refused", codes=["malformed"], message=memory)
        stored = by_id.get(memory.id)
        if stored is not None:
            same = stored.model_dump(exclude={"path"}) == memory.model_dump(exclude={"path"})
            return ImportItem(line=number, ref=ref, outcome="skipped", decision="noop", id=memory.id, codes=[ALREADY],
                              message=f"already stored as {stored.path}" + ("" if same else " (with other content: kept)"))
        refusal = self._refusal(memory)
        if refusal is not None:
            return ImportItem(line=number, ref=ref, outcome="refused", codes=[refusal[0]], message=refusal[1])
        fact = (memory.owner, memory.type, fingerprint(memory.body))
        if memory.status == "active" and fact in facts:
            return ImportItem(line=number, ref=ref, outcome="skipped", decision="noop", id=facts[fact], codes=["duplicate"],
                              message=f"the same fact is already stored as {facts[fact]}")
        written = self.repo.put(memory, "import", source=ref, actor=self.actor)
        by_id[written.id] = written
        return ImportItem(line=number, ref=ref, outcome="added", decision="add", id=written.id, message=str(written.path))

    def _refusal(self, memory: Memory) -> tuple[str, str] | None:
        """A restored record skips the write decision, never the secret check or the actor's rights."""
        from memctl.policy.gate import evaluate_gate
        from memctl.services.write import resolve_gate, text_fields

        refused = write_refusal(self.access, "create", access_view(memory))
        if refused:
            return "forbidden", refused
        verdict = evaluate_gate(memory.body, confidence=memory.confidence, source=memory.source, session=memory.session,
                                auto_writes_in_window=0, duplicate_of=None, thresholds=resolve_gate(self.importer.writer.config),
                                fields=text_fields(memory), owner=memory.owner, surface="restore")
        failure = next(iter(verdict.failures), None)
        return (failure.code, failure.message) if failure else None

    # -- out ---------------------------------------------------------------------------------
    def records(self, users: Sequence[str] = (), projects: Sequence[str] = ()) -> list[str]:
        """Every memory the actor may see (of these users and projects), active and archived, as JSON
        Lines (memctl's record format), by path."""
        return [record_line(m) for m in sorted(self._exported(users, projects), key=lambda m: (m.path or "", m.id))]

    def export_folder(self, target: str, layout: str, users: Sequence[str] = (),
                      projects: Sequence[str] = ()) -> dict[str, Any]:
        """Every memory as files of `layout` in a new or empty folder: a file whose relative path fits the
        layout keeps it and its exact text (the repository's `original`); the others are written in the
        layout's form. A claude folder gets its MEMORY.md."""
        from memctl.services.claude_index import flat_index

        config = self.importer.writer.config
        index = (lambda written: flat_index(written, config)) if layout == "claude" else None
        written = files.write_folder(target, self._exported(users, projects), layout, config.default_type, index,
                                     own_text=lambda memory: self.repo.original(memory)["text"])
        return {"target": str(Path(target).resolve()), "layout": layout, "count": len(written),
                "paths": [m.path for m in written]}


def _oldest_first(entries: list[tuple[int, Entry]]) -> list[tuple[int, Entry]]:
    """Candidates in the order things happened (so a later fact supersedes an earlier one), undated last."""
    def key(item: tuple[int, Entry]) -> tuple[bool, str, int]:
        number, (_, entry) = item
        when = None if isinstance(entry, str) else entry.created or entry.updated
        return when is None, when.isoformat() if when else "", number

    return sorted(entries, key=key)


def _rows(data: Any) -> list[dict[str, Any]]:
    """MemoryService rows given as JSON: a list of objects, or `{"memories": [...]}`."""
    rows = data.get("memories") if isinstance(data, dict) else data
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise UsageError("expected MemoryService rows: a JSON list (or JSON Lines) of objects", code="bad_input")
    return rows
