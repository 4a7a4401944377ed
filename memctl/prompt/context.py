"""The context block an agent prepends to its prompt: profile + recalled memories, fenced as data, in budget.

Three plain rules read the query first and shape the block (they are data, so `--explain` can show
which fired, on which words, and what they changed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Literal, NamedTuple
from xml.sax.saxutils import escape, quoteattr

from pydantic import BaseModel, Field

from memctl.core.models import Hit
from memctl.core.printable import printable
from memctl.prompt.indexmd import approx_tokens
from memctl.prompt.labels import phrase
from memctl.prompt.profile import Profile, limit_profile

Format = Literal["markdown", "xml", "json"]
# Profile lines per section: a few by default, more when the question is about the user.
PROFILE_LINES_DEFAULT = 2
PROFILE_LINES_WIDE = 5
# The smallest well-formed block of each format, used when not even the header fits.
MINIMAL_BLOCK: dict[str, str] = {"markdown": "<memories></memories>", "xml": "<memories/>",
                                 "json": '{"memories":[]}'}


class Rule(BaseModel):
    """A query rule: fires when any pattern (a case-insensitive regex) matches the query."""

    name: str
    description: str
    patterns: list[str]


class RuleMatch(BaseModel):
    """A rule that fired, and the text of the query that made it fire (for `--explain`)."""

    name: str
    description: str
    matched: str


_EN_WORD = r"(?<![A-Za-z])({})(?![A-Za-z])"


def _words(*words: str) -> str:
    return _EN_WORD.format("|".join(words))


RULES: list[Rule] = [
    Rule(name="profile_first",
         description="A question about the user: bring the profile forward, up to 5 lines per "
                     "section instead of 2.",
         patterns=[_words("my", "mine", "myself", "about me"),
                   _words(r"I (?:like|love|prefer|hate|want|use|usually|always)"),
                   _words(r"what do I", r"who am I", r"what am I", r"how do I like"),
                   _words("preferences?", "prefer", "favou?rite"),
                   _words(r"(?:our|user'?s?|the user) (?:role|settings?|profile)"),
                   "我的", "喜欢", "偏好", "我是", "我喜欢"]),
    Rule(name="session_first",
         description="A reference to the current work: put this session's memories first.",
         patterns=[_words("this", "continue", "resume", "where were we", "where did we (?:stop|leave off)"),
                   _words(r"that (?:error|bug|issue|file|function|test|query|problem)"),
                   _words(r"the (?:bug|error|issue|failure|crash)"),
                   "这个", "继续", "刚才"]),
    Rule(name="widen_history",
         description="A reach into the past: widen recall to long-term and archived/superseded "
                     "history, and show each memory's date and status.",
         patterns=[_words("last time", "similar", "before", "previously", "previous", "history",
                          "used to", "earlier", "in the past"),
                   "上次", "以前", "之前", "历史", "过去"]),
]


def explain_rules(query: str, rules: Sequence[Rule] = RULES) -> list[RuleMatch]:
    """Each rule that fires for the query, with the words that fired it."""
    found = []
    for rule in rules:
        for pattern in rule.patterns:
            match = re.search(pattern, query, flags=re.IGNORECASE)
            if match:
                found.append(RuleMatch(name=rule.name, description=rule.description, matched=match.group(0)))
                break
    return found


def match_rules(query: str, rules: Sequence[Rule] = RULES) -> list[Rule]:
    """The rules that fire for the query, in rule order."""
    fired = {m.name for m in explain_rules(query, rules)}
    return [rule for rule in rules if rule.name in fired]


class ContextPlan(BaseModel):
    """What the fired rules mean for recall and rendering (the service reads `include_history`)."""

    profile_first: bool = False
    session_first: bool = False
    include_history: bool = False

    @property
    def profile_lines_per_section(self) -> int:
        """Profile lines kept per section."""
        return PROFILE_LINES_WIDE if self.profile_first else PROFILE_LINES_DEFAULT


def plan_context(rule_names: Sequence[str]) -> ContextPlan:
    """Turn fired rule names into a plan."""
    names = set(rule_names)
    return ContextPlan(profile_first="profile_first" in names, session_first="session_first" in names,
                       include_history="widen_history" in names)


class ContextItem(BaseModel):
    """One recalled memory offered to the block, in rank order (the service fills it from a Hit)."""

    id: str
    scope: str
    type: str
    content: str
    score: float
    created: datetime | None = None
    status: str = "active"
    occurred: str | None = None
    date: str | None = None  # the day it happened, when the query asks when (recall orders by it)
    constraint: bool = False  # a constraint that came with the request (recall: its domain)
    not_in_force: str | None = None  # why the fact no longer holds: its state, or "ended <date>"


def items_from_hits(hits: Sequence[Hit]) -> list[ContextItem]:
    """Recall hits (in rank order) as context items, carrying the memory's status when known."""
    return [ContextItem(id=h.id, scope=h.scope, type=h.type, content=h.content, score=h.score,
                        created=h.created, status=h.memory.status if h.memory is not None else "active",
                        occurred=h.occurred, date=h.date, constraint=bool(h.constraint), not_in_force=None if h.in_force else (h.state or "not in force"))
            for h in hits]


class ContextBlock(BaseModel):
    """The rendered block and what went into it."""

    text: str
    tokens: int
    budget: int
    format: str
    rules: list[str]
    items: list[str]
    profile_lines: int
    truncated: bool
    note: str | None = None
    explain: list[RuleMatch] = Field(default_factory=list)
    warnings: int = 0  # findings of checks shown first in the block


def order_items(items: Sequence[ContextItem], plan: ContextPlan) -> list[ContextItem]:
    """Items in rank order as given; with `session_first`, this session's memories lead."""
    if not plan.session_first:
        return list(items)
    return sorted(items, key=lambda item: item.scope != "session")  # sorted() is stable


def _profile_units(profile: Profile | None, plan: ContextPlan) -> list[tuple[str, str, str | None]]:
    """(heading, line, the id of the memory it says, when known) of each profile line kept."""
    if profile is None:
        return []
    bounded = limit_profile(profile, plan.profile_lines_per_section)
    ids = bounded.ids if len(bounded.ids) == len(bounded.sections) else [[] for _ in bounded.sections]
    return [(heading, line, said[i] if i < len(said) else None)
            for (heading, lines), said in zip(bounded.sections, ids) for i, line in enumerate(lines)]


def _regroup(units: Sequence[tuple[str, str, str | None]]) -> list[tuple[str, list[str]]]:
    sections: list[tuple[str, list[str]]] = []
    for heading, line, _ in units:
        if not sections or sections[-1][0] != heading:
            sections.append((heading, []))
        sections[-1][1].append(line)
    return sections


def _mark(item: ContextItem, plan: ContextPlan) -> list[str]:
    """The labels shown before a memory: scope/type, plus date and status when reaching into history."""
    marks = [f"{item.scope}/{item.type}"] + (["constraint"] if item.constraint else [])
    if plan.include_history and item.created is not None:
        marks.append(item.created.date().isoformat())
    if item.occurred:
        marks.append(item.occurred)
    elif item.date:
        marks.append(item.date)
    if item.status != "active":
        marks.append(item.status)
    if item.not_in_force:
        marks.append(f"not in force: {item.not_in_force}")
    return marks


_TAG = re.compile(r"<(/?)(memories|memory|profile|section|line)", re.IGNORECASE)


def _defuse(text: str) -> str:
    """Keep stored text from closing the `<memories>` fence (a memory is data, never markup), with no
    terminal escape or control sequence (core/printable.py)."""
    return _TAG.sub(lambda m: f"&lt;{m.group(1)}{m.group(2)}", " ".join(printable(text).split()))


class Parts(NamedTuple):
    """What a renderer draws: the notice, the profile title and sections, the memories."""

    notice: str
    profile_title: str
    profile: list[tuple[str, list[str]]]
    items: Sequence[ContextItem]
    relevant_title: str
    warnings: Sequence[tuple[str, str]] = ()  # (severity, message) of checks' findings, shown first
    warnings_title: str = ""


def _markdown(parts: Parts, plan: ContextPlan) -> str:
    out = [parts.notice, "<memories>"]
    if parts.warnings:
        out.append(f"## {parts.warnings_title}")
        out += [f"- [{severity}] {_defuse(message)}" for severity, message in parts.warnings]
    if parts.profile:
        out.append(f"## {parts.profile_title}")
        for heading, lines in parts.profile:
            out += [f"### {heading}"] + [f"- {_defuse(line)}" for line in lines]
    if parts.items:
        out.append(f"## {parts.relevant_title}")
        out += [f"- [{' '.join(_mark(i, plan))}] {_defuse(i.content)}" for i in parts.items]
    return "\n".join(out + ["</memories>"]) + "\n"


def _xml(parts: Parts, plan: ContextPlan) -> str:
    out = [escape(parts.notice), "<memories>"]
    out += [f"<warning severity={quoteattr(severity)}>{escape(printable(message))}</warning>"
            for severity, message in parts.warnings]
    if parts.profile:
        out.append(f"<profile title={quoteattr(parts.profile_title)}>")
        for heading, lines in parts.profile:
            out.append(f"<section title={quoteattr(heading)}>")
            out += [f"<line>{escape(line)}</line>" for line in lines]
            out.append("</section>")
        out.append("</profile>")
    for item in parts.items:
        attrs = f"id={quoteattr(item.id)} scope={quoteattr(item.scope)} type={quoteattr(item.type)}"
        if plan.include_history and item.created is not None:
            attrs += f" created={quoteattr(item.created.date().isoformat())}"
        if item.constraint:
            attrs += ' constraint="true"'
        if item.status != "active":
            attrs += f" status={quoteattr(item.status)}"
        if item.occurred:
            attrs += f" occurred={quoteattr(item.occurred)}"
        elif item.date:
            attrs += f" date={quoteattr(item.date)}"
        if item.not_in_force:
            attrs += f" in_force=\"false\" state={quoteattr(item.not_in_force)}"
        out.append(f"<memory {attrs}>{escape(printable(item.content).strip())}</memory>")
    return "\n".join(out + ["</memories>"]) + "\n"


def _json(parts: Parts, plan: ContextPlan) -> str:
    memories = []
    for item in parts.items:
        entry: dict[str, Any] = {"id": item.id, "scope": item.scope, "type": item.type, "content": item.content.strip()}
        if plan.include_history and item.created is not None:
            entry["created"] = item.created.date().isoformat()
        if item.constraint:
            entry["constraint"] = True
        if item.status != "active":
            entry["status"] = item.status
        if item.occurred:
            entry["occurred"] = item.occurred
        elif item.date:
            entry["date"] = item.date
        if item.not_in_force:
            entry.update(in_force=False, state=item.not_in_force)
        memories.append(entry)
    data = {"notice": parts.notice,
            **({"warnings": [{"severity": s, "message": m} for s, m in parts.warnings]} if parts.warnings else {}),
            "profile": [{"section": heading, "lines": lines} for heading, lines in parts.profile],
            "memories": memories}
    return json.dumps(data, ensure_ascii=False) + "\n"


RENDERERS = {"markdown": _markdown, "xml": _xml, "json": _json}


def render_context(query: str, profile: Profile | None, items: Sequence[ContextItem], *, budget: int,
                   fmt: Format = "markdown", rules: Sequence[Rule] = RULES,
                   language: str = "en", warnings: Sequence[tuple[str, str]] = (),
                   ranked: Sequence[str] | None = None) -> ContextBlock:
    """The prompt block for a query: notice, warnings (checks' findings: (severity, message)), profile,
    then memories, never over `budget` tokens; warnings are the last to be trimmed.

    Tokens are counted with `approx_tokens` (ceil(ASCII chars / 4) + one per non-ASCII char).
    Over budget, what is kept first is, given `ranked` (memory ids, most relevant first: the
    profile lines and the memories the recall found), the profile lines and memories in that
    order, so the budget goes to what was asked first; without it, profile lines up to half the
    budget, the memories, then the other profile lines. If not even the empty block fits, the
    smallest well-formed block (or nothing) is returned with a note.
    """
    if fmt not in RENDERERS:
        raise ValueError(f"unknown context format {fmt!r} (use markdown, xml or json)")
    explain = explain_rules(query, rules)
    plan = plan_context([m.name for m in explain])
    ordered, units = order_items(items, plan), _profile_units(profile, plan)
    lang = profile.language if profile is not None else language
    profile_title = phrase(f"profile.{profile.kind if profile is not None else 'user'}", lang)

    units_order = _unit_order(units, ordered, budget) if ranked is None else _ranked_order(units, ordered, ranked)
    sequence = [("w", i) for i in range(len(warnings))] + units_order

    def chosen(kept: int) -> tuple[list[tuple[str, str, str | None]], list[ContextItem]]:
        taken = sequence[:kept]
        profile_idx = sorted(i for kind, i in taken if kind == "p")
        item_idx = sorted(i for kind, i in taken if kind == "m")
        return [units[i] for i in profile_idx], [ordered[i] for i in item_idx]

    def render(kept: int) -> str:
        lines, shown = chosen(kept)
        warned = [warnings[i] for kind, i in sequence[:kept] if kind == "w"]
        parts = Parts(phrase("notice", lang), profile_title, _regroup(lines), shown, phrase("relevant", lang),
                      warned, phrase("warnings", lang))
        return RENDERERS[fmt](parts, plan)

    kept = _most_units_within(render, len(sequence), budget)
    text, note = render(kept), None
    if approx_tokens(text) > budget:
        text, note = _smallest_block(fmt, budget)
    lines, listed = chosen(kept) if note is None else ([], [])
    return ContextBlock(
        text=text, tokens=approx_tokens(text), budget=budget, format=fmt,
        rules=[m.name for m in explain], items=[i.id for i in listed],
        profile_lines=len(lines), warnings=0 if note else sum(1 for kind, _ in sequence[:kept] if kind == "w"),
        truncated=note is not None or kept < len(sequence), note=note, explain=explain)


PROFILE_SHARE = 0.5  # the profile's share of the budget before memories get theirs


def _ranked_order(units: Sequence[tuple[str, str, str | None]], items: Sequence[ContextItem],
                  ranked: Sequence[str]) -> list[tuple[str, int]]:
    """What to keep first when trimming: profile lines and memories in the order of `ranked` (the
    recall's, most relevant first); anything it does not name after, profile lines first."""
    place = {memory_id: n for n, memory_id in enumerate(ranked)}
    last = len(place)
    keyed = [(place.get(said, last) if said else last, 0, ("p", i)) for i, (_, _, said) in enumerate(units)]
    keyed += [(place.get(item.id, last), 1, ("m", j)) for j, item in enumerate(items)]
    return [unit for *_, unit in sorted(keyed, key=lambda k: (k[0], k[1], k[2][1]))]


def _unit_order(units: Sequence[tuple[str, str, str | None]], items: Sequence[ContextItem],
                budget: int) -> list[tuple[str, int]]:
    """What to keep first when trimming: profile lines up to half the budget, then the memories
    in rank order, then the remaining profile lines; so a block holds both profile and memories."""
    head, spent = [], 0
    for i, (_, line, _) in enumerate(units):
        cost = approx_tokens(line) + 2
        if items and spent + cost > budget * PROFILE_SHARE:
            break
        head.append(("p", i))
        spent += cost
    rest = [("p", i) for i in range(len(head), len(units))]
    return head + [("m", j) for j in range(len(items))] + rest


def _most_units_within(render: Callable[[int], str], total: int, budget: int) -> int:
    """The most units (profile lines first, then memories) whose block fits; tokens grow with units."""
    if approx_tokens(render(total)) <= budget:
        return total
    low, high = 0, total
    while low < high:
        middle = (low + high + 1) // 2
        if approx_tokens(render(middle)) <= budget:
            low = middle
        else:
            high = middle - 1
    return low


def _smallest_block(fmt: str, budget: int) -> tuple[str, str]:
    minimal = MINIMAL_BLOCK[fmt]
    if approx_tokens(minimal) <= budget:
        return minimal, f"budget of {budget} tokens is too small for the header: returned an empty block"
    return "", f"budget of {budget} tokens is too small for any block: returned nothing"
