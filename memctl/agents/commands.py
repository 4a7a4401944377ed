"""The CLI commands a warm server can answer (recall, context, add, list, show), as data functions.

Each takes an open MemoryStore and the command's arguments as plain JSON values (named like the
CLI's options) and returns the command's `--json` data. The CLI runs them in-process, and
`memctl serve` runs the very same functions for a forwarded call, so the output is the same
either way. `PARAMS` describes the arguments (kind, default, bounds) for both sides: the CLI's
fast path parses argv with it, the server checks a forwarded body with it. Lean at import time
(no pydantic): the fast path reads `PARAMS` in a fresh process.
"""

from __future__ import annotations

import math

from memctl.agents.cli_table import TABLE
from memctl.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing takes ~6 ms to import; a command forwarded to a warm server runs without it
    from typing import Any, Callable


class Param:  # a plain class: `dataclasses` imports `inspect`, ~20 ms of a forwarded call
    """One argument: kind (text, texts, int, float, flag, switch), default, and numeric bounds."""

    __slots__ = ("default", "high", "kind", "low")

    def __init__(self, kind: str, default: Any = None, low: float | None = None, high: float | None = None) -> None:
        self.kind, self.default, self.low, self.high = kind, default, low, high

    def check(self, name: str, value: Any) -> Any:
        """The value if it has this kind and is within bounds (null: the default); UsageError otherwise."""
        if value is None:
            return list(self.default) if self.kind == "texts" else self.default
        if not _KIND_OK[self.kind](value):
            raise UsageError(f"{name} must be {_KIND_NAME[self.kind]}", code="bad_argument")
        if self.low is not None and value < self.low:
            raise UsageError(f"{name} must be at least {self.low:g}", code="bad_argument")
        if self.high is not None and value > self.high:
            raise UsageError(f"{name} must be at most {self.high:g}", code="bad_argument")
        return list(value) if self.kind == "texts" else value


_KIND_OK: dict[str, Callable[[Any], bool]] = {
    "text": lambda v: isinstance(v, str),
    "texts": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
    "flag": lambda v: isinstance(v, bool),
    "switch": lambda v: isinstance(v, bool),
}
_KIND_NAME = {"text": "a string", "texts": "a list of strings", "int": "an integer", "float": "a number",
              "flag": "true or false", "switch": "true or false"}
# The forwarded commands' parameters, as the generated table of the CLI's options has them.
PARAMS: dict[str, dict[str, Param]] = {
    command: {name: Param(*spec) for name, spec in TABLE["commands"][command]["params"].items()}
    for command in TABLE["forwarded"]}
REQUIRED = {"recall": "query", "context": "query", "add": "text", "show": "memory_id"}


def normalise(command: str, raw: Any, remote: bool = False) -> dict[str, Any]:
    """Arguments checked against PARAMS, with every default filled in (UsageError if not). A remote
    call (a forwarded body) may not name an LLM command: the server would run it."""
    if command not in PARAMS:
        raise UsageError(f"no command {command!r} here (commands: {', '.join(PARAMS)})", code="unknown_command")
    if not isinstance(raw, dict):
        raise UsageError("the arguments must be a JSON object", code="bad_argument")
    spec = PARAMS[command]
    unknown = sorted(set(raw) - set(spec))
    if unknown:
        raise UsageError(f"{command}: unknown argument {unknown[0]!r}", code="bad_argument")
    args = {name: param.check(name, raw.get(name)) for name, param in spec.items()}
    if command in REQUIRED and not isinstance(args[REQUIRED[command]], str):
        raise UsageError(f"{command}: {REQUIRED[command]} is required", code="bad_argument")
    if remote and args.get("llm"):
        raise UsageError("the server does not run LLM commands (run `memctl add --llm` in-process)",
                         code="no_remote_llm")
    return args


def recall(store: Any, a: dict[str, Any]) -> dict[str, Any]:
    """`memctl recall --json` data: the arguments are the request's fields (core/requests.py:
    RecallRequest), and the CLI's own --explain and --all."""
    request = {k: v for k, v in a.items() if k not in ("explain", "all_") and v is not None}
    if a["all_"]:
        request["min_relevance"] = 0.0
    return store.recall(**request).to_data(a["explain"])


def context(store: Any, a: dict[str, Any]) -> dict[str, Any]:
    """`memctl context --json` data: the request's fields (core/requests.py: ContextRequest)."""
    data: dict[str, Any] = store.context(**{k: v for k, v in a.items() if k != "explain" and v is not None})
    return data


def add(store: Any, a: dict[str, Any], trusted_source: bool = True) -> dict[str, Any]:
    """`memctl add --json` data: the arguments are the request's fields (core/requests.py:
    AddRequest), and the CLI's --field NAME=VALUE pairs (`trusted_source` False: a server's client
    it does not trust, whose write counts as ai whatever source it gives)."""
    request = {k: v for k, v in a.items() if k != "field" and v is not None}
    if a["field"]:
        from memctl.core.schemas import parse_field_pairs  # pydantic schemas: only when --field is given

        request["fields"] = parse_field_pairs(a["field"])
    return store.add(**request, trusted_source=trusted_source).to_data()


def list_(store: Any, a: dict[str, Any]) -> dict[str, Any]:
    """`memctl list --json` data (importance scores when sorted by importance)."""
    memories = store.list(**{k: v for k, v in a.items() if v is not None})
    scores = store.importance_scores(memories) if a["sort"] == "importance" else None
    out = []
    for memory in memories:
        data = memory.to_public()
        if scores is not None:
            data["importance_score"] = round(scores.get(memory.id, 0.0), 4)
        out.append(data)
    return {"count": len(out), "memories": out}


def show(store: Any, a: dict[str, Any]) -> dict[str, Any]:
    """`memctl show --json` data."""
    return {"memory": store.show(a["memory_id"])}


COMMANDS: dict[str, Callable[[Any, dict[str, Any]], dict[str, Any]]] = {
    "recall": recall, "context": context, "add": add, "list": list_, "show": show}


def run(store: Any, command: str, args: dict[str, Any], trusted_source: bool = True) -> dict[str, Any]:
    """One command's data from a store and its (normalised) arguments; `trusted_source` as for add."""
    if command == "add":
        return add(store, args, trusted_source)
    return COMMANDS[command](store, args)
