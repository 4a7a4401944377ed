"""Plain statements become typed facts: the kind and fields `add` proposes for a statement, and
`structure`, which types the memories already stored (with the LLM command when one is given,
the offline recognisers otherwise).

A proposal is always checked against the kind's schema (a field that does not read is dropped; a
kind whose required fields are not all there is not proposed), and an inferred kind says so in
the memory (`typed: rules` or `typed: llm`), so a person can tell it from one they gave; a person
who removes it (`memctl edit ID --set kind=`) leaves `typed: none`, and `structure` leaves it be.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from pydantic import BaseModel

from memctl import clock
from memctl.config import Config
from memctl.core import jsonsafe
from memctl.core.access import Access, access_view, write_refusal
from memctl.core.models import Memory
from memctl.core.schemas import Schema, read_field
from memctl.core.textdates import occurred_of, read_dates
from memctl.core.typed import canonical
from memctl.errors import InvalidMemory
from memctl.policy.infer import infer_kind
from memctl.store.filters import scope_filter
from memctl.store.repository import ReadsAndWrites

if TYPE_CHECKING:
    from memctl.store.kinds import KindFiles

TYPED_KEY = "typed"  # in a memory's frontmatter: rules | llm (inferred), none (a person said: not typed)
LLM_BATCH = 20  # memories per LLM prompt


class Proposal(BaseModel):
    """A kind and fields proposed for a statement, who proposed them, and the word that told."""

    kind: str
    fields: dict[str, Any]
    by: str = "rules"  # rules | llm
    cue: str = ""

    def describe(self) -> str:
        """`passport (country=US, expires=2026-04-02)`."""
        return f"{self.kind} ({', '.join(f'{k}={v}' for k, v in self.fields.items())})"


def checked(schemas: Mapping[str, Schema], kind: str, fields: Mapping[str, Any], by: str,
            cue: str = "") -> Proposal | None:
    """A proposal in canonical form, each field read as its schema types it (others dropped); None
    when the kind is unknown or a required field is missing."""
    schema = schemas.get(kind)
    if schema is None or not isinstance(fields, Mapping):
        return None
    out: dict[str, Any] = {}
    for name, spec in schema.fields.items():
        if fields.get(name) in (None, ""):
            continue
        try:
            out[name] = canonical(read_field(spec, fields[name], kind, name))
        except InvalidMemory:
            continue
    if any(spec.required and name not in out for name, spec in schema.fields.items()):
        return None
    return Proposal(kind=kind, fields=out, by=by, cue=cue)


def propose(text: str, today: date, kinds: "KindFiles") -> Proposal | None:
    """The kind and fields the offline recognisers read in `text` (dates relative to `today`)."""
    rules = kinds.typing
    found = infer_kind(text, today, rules.recognisers, kinds.schemas, rules.lexicon, rules.common)
    return checked(kinds.schemas, found.kind, found.fields, "rules", found.cue) if found else None


def text_occurred(text: str, today: date) -> str | None:
    """The `occurred` the first absolute date of `text` gives (a range for "3-7 June")."""
    return occurred_of(read_dates(text, today))


class StructureItem(BaseModel):
    """One memory `structure` types (or would): its id, text and the proposal."""

    id: str
    content: str
    proposal: Proposal


class StructureReport(BaseModel):
    """What `structure` did: the memories typed (or, dry run, that would be), and how many it read."""

    dry_run: bool
    by: str
    read: int
    typed: list[StructureItem]
    problems: list[str] = []

    def to_data(self) -> dict[str, Any]:
        """The `structure --json` data."""
        return self.model_dump(mode="json")


class StructureService:
    """Type the untyped memories already stored."""

    def __init__(self, repo: ReadsAndWrites, config: Config, kinds: "KindFiles", access: Access | None = None) -> None:
        self.repo = repo
        self.config = config
        self.kinds = kinds
        self.access = access
        self.actor = access.actor if access else None  # journaled with each write this service makes

    def structure(self, *, users: Iterable[str] = (), projects: Iterable[str] = (), dry_run: bool = False,
                  llm: str | None = None) -> StructureReport:
        """Propose a kind for every active, untyped memory of these owners (all when none) the actor
        may change; write them unless `dry_run`."""
        with self.repo.locked():
            todo = self._untyped(set(users), set(projects))
            ask = _llm_proposer(llm, self.kinds.schemas) if llm else None
            proposals = ask(todo) if ask else {m.id: propose(m.body, m.created.date(), self.kinds) for m in todo}
            items = [StructureItem(id=m.id, content=m.body, proposal=p) for m in todo if (p := proposals.get(m.id))]
            if not dry_run:
                by_id = {m.id: m for m in todo}
                for item in items:
                    self._write(by_id[item.id], item.proposal)
        return StructureReport(dry_run=dry_run, by="llm" if llm else "rules", read=len(todo), typed=items,
                               problems=self.kinds.drain_problems())

    def _untyped(self, users: set[str], projects: set[str]) -> list[Memory]:
        """The active memories of the scope (store/filters.py: whose memories) that have no kind, no
        `typed: none`, and that the actor may change, oldest first."""
        flt = scope_filter(self.config.members, sorted(users), sorted(projects), access=self.access)
        return [m for m in self.repo.select(flt, clock.now(), order="created")
                if not m.kind and m.extra.get(TYPED_KEY) != "none"
                and write_refusal(self.access, "change", access_view(m)) is None]

    def _write(self, memory: Memory, proposal: Proposal) -> None:
        data = memory.model_dump(exclude={"path"})
        data.update(kind=proposal.kind, fields=proposal.fields, extra={**memory.extra, TYPED_KEY: proposal.by})
        if not memory.occurred:
            data["occurred"] = text_occurred(memory.body, memory.created.date())
        self.repo.rewrite(Memory(**data, path=memory.path), "structure", kind=proposal.kind, by=proposal.by, actor=self.actor)


def structure_prompt(memories: list[Memory], schemas: Mapping[str, Schema]) -> str:
    """The prompt that asks an LLM to type numbered memories (JSON Lines back)."""
    kinds = "\n".join(f"- {name}: {s.description} Fields: {s.field_list()}" for name, s in schemas.items())
    lines = "\n".join(f"[{i}] (written {m.created.date().isoformat()}) {m.body}" for i, m in enumerate(memories, 1))
    return ("Decide for each numbered memory below whether it states one of these kinds of fact, and read its "
            "fields from its text. Write dates as 2026-04-02 (resolve a date without a year from when the memory "
            "was written), money as \"120.50 EUR\", countries as ISO codes (US, JP), booleans as true/false. Leave "
            "out fields the text does not state; skip a memory that is none of these kinds (a question, a wish, a "
            "plan without a date).\nKinds:\n" + kinds + "\n\nAnswer with JSON Lines only, one line per typed "
            "memory: {\"n\": 1, \"kind\": \"...\", \"fields\": {...}}\n\nMEMORIES:\n" + lines + "\n")


def parse_structure_answer(answer: str, count: int, schemas: Mapping[str, Schema]) -> dict[int, Proposal]:
    """The proposals in an LLM's answer, by memory number; a line that does not read is skipped."""
    out: dict[int, Proposal] = {}
    for line in answer.splitlines()[:count * 4]:
        try:
            item = jsonsafe.loads(line.strip())
        except ValueError:
            continue
        if not isinstance(item, dict) or not isinstance(item.get("n"), int) or not 1 <= item["n"] <= count:
            continue
        proposal = checked(schemas, str(item.get("kind") or ""), item.get("fields") or {}, "llm")
        if proposal is not None:
            out[item["n"]] = proposal
    return out


def _llm_proposer(command: str, schemas: Mapping[str, Schema]) -> Callable[[list[Memory]], dict[str, Proposal | None]]:
    from memctl.services.llm import run_llm

    def ask(memories: list[Memory]) -> dict[str, Proposal | None]:
        out: dict[str, Proposal | None] = {}
        for start in range(0, len(memories), LLM_BATCH):
            batch = memories[start:start + LLM_BATCH]
            answers = parse_structure_answer(run_llm(command, structure_prompt(batch, schemas)), len(batch), schemas)
            out.update({m.id: answers.get(i) for i, m in enumerate(batch, 1)})
        return out

    return ask
