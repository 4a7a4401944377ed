"""Parse and serialise memory files: YAML frontmatter plus a Markdown body, byte-stable.

A memory file may come from anyone (the directory is shared through git), so parsing is contained:
no YAML aliases (an alias bomb expands a few hundred bytes into gigabytes), nesting at most
MAX_DEPTH levels (deep brackets would exhaust the stack), a frontmatter of at most
MAX_FRONTMATTER_BYTES, only YAML's plain types (SafeLoader: no tags that build objects), and every
value within LIMITS, checked on the composed node before it is converted (a number of 5,000 digits
makes int() itself raise; a list of 30,000 tags would be read on every recall).
"""

from __future__ import annotations

import re
from typing import Any

import frontmatter
import yaml
from frontmatter.default_handlers import YAMLHandler
from pydantic import ValidationError

from memctl.core.conflicts import conflict_regions, where
from memctl.core.models import FIELD_ORDER, Memory
from memctl.errors import InvalidMemory

MAX_DEPTH = 32
MAX_FRONTMATTER_BYTES = 64 * 1024
MAX_NUMBER_CHARS = 100  # the text of one number (digits, sign, point, exponent, underscores)
MAX_STRING_CHARS = 8 * 1024  # one text value or key
MAX_ITEMS = 1024  # the items of one list, the keys of one mapping
_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")


class ValueTooLarge(yaml.constructor.ConstructorError):
    """A frontmatter value over the limits (a YAMLError, so every reader of frontmatter refuses it)."""


def _check_node(node: yaml.Node | None) -> None:
    """Refuse a composed value over the limits, before anything converts it."""
    if isinstance(node, yaml.ScalarNode):
        if node.tag in _NUMBER_TAGS and len(node.value) > MAX_NUMBER_CHARS:
            problem = f"a number of {len(node.value)} characters (at most {MAX_NUMBER_CHARS})"
        elif len(node.value) > MAX_STRING_CHARS:
            problem = f"a text of {len(node.value)} characters (at most {MAX_STRING_CHARS})"
        else:
            return
    elif isinstance(node, (yaml.SequenceNode, yaml.MappingNode)) and len(node.value) > MAX_ITEMS:
        what = "list" if isinstance(node, yaml.SequenceNode) else "mapping"
        problem = f"a {what} of {len(node.value)} items (at most {MAX_ITEMS})"
    else:
        return
    raise ValueTooLarge(None, None, problem, node.start_mark)


class _Loader(yaml.SafeLoader):
    """SafeLoader that keeps timestamps as strings (unknown keys round-trip verbatim), refuses
    aliases and anchors, nesting deeper than MAX_DEPTH and values over the limits (_check_node)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.events.AliasEvent):
            raise yaml.composer.ComposerError(None, None, "YAML aliases are not allowed in a memory file",
                                              self.peek_event().start_mark)
        event = self.peek_event()
        if getattr(event, "anchor", None) is not None:
            raise yaml.composer.ComposerError(None, None, "YAML anchors are not allowed in a memory file",
                                              event.start_mark)
        self._depth = getattr(self, "_depth", 0) + 1
        try:
            if self._depth > MAX_DEPTH:
                raise yaml.composer.ComposerError(None, None, f"nested deeper than {MAX_DEPTH} levels",
                                                  event.start_mark)
            node = super().compose_node(parent, index)
            _check_node(node)
            return node
        finally:
            self._depth -= 1


_Loader.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.copy().items()
}


class _Dumper(yaml.SafeDumper):
    """SafeDumper writing scalar lists in flow style (`tags: [a, b]`) and times unquoted."""


class _FastDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """libyaml's emitter with _Dumper's representers and resolvers."""


def _represent_list(dumper: yaml.SafeDumper, data: list) -> yaml.Node:
    flow = all(isinstance(v, (str, int, float, bool)) and "\n" not in str(v) for v in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


_NEEDS_QUOTES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]")


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    """Strings with characters YAML reads as line breaks or drops (NEL, LS, PS, controls, BOM) are
    double-quoted, so they come back exactly as written."""
    style = '"' if _NEEDS_QUOTES.search(data) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


for _dumper in (_Dumper, _FastDumper):
    _dumper.yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers
    _dumper.add_representer(list, _represent_list)
    _dumper.add_representer(str, _represent_str)


class _Handler(YAMLHandler):
    def load(self, fm: str, **kwargs: object) -> Any:
        return yaml.load(fm, Loader=_Loader)


def split_fields(meta: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Split frontmatter into known fields and unknown keys (kept in file order)."""
    known = {k: v for k, v in meta.items() if k in FIELD_ORDER}
    extra = {k: v for k, v in meta.items() if k not in FIELD_ORDER}
    return known, extra


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ())) or "memory"
    msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{where}: {msg}" if where != "memory" else msg


def _check_shape(text: str, label: str) -> None:
    """What makes a file unreadable before YAML is even tried: no fence, a huge or unclosed
    frontmatter, unresolved merge-conflict markers."""
    if not text.lstrip().startswith("---"):
        raise InvalidMemory(f"{label}: no YAML frontmatter (the file must start with ---)")
    head = text.lstrip()[3:]
    end = head.find("\n---")
    if end < 0:
        raise InvalidMemory(f"{label}: the frontmatter is not closed (no second --- line)")
    if end > MAX_FRONTMATTER_BYTES:
        raise InvalidMemory(f"{label}: frontmatter over {MAX_FRONTMATTER_BYTES // 1024} KB")
    refuse_conflicts(text, label)


def refuse_conflicts(text: str, label: str) -> None:
    """InvalidMemory naming the lines when `text` holds git's conflict markers."""
    regions = conflict_regions(text)
    if regions:
        raise InvalidMemory(f"{label}: unresolved git merge conflict at {where(regions)} (<<<<<<< / >>>>>>> lines)")


def _yaml_problem(exc: yaml.YAMLError, label: str, detail: bool = True) -> str:
    """One line saying why a frontmatter does not read, and where."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) if detail else None
    at = f" at line {mark.line + 1}" if mark else ""
    what = "frontmatter value over the limits" if isinstance(exc, ValueTooLarge) else "malformed YAML frontmatter"
    return f"{label}: {what}{at}" + (f": {problem}" if problem else "")


def parse_memory(text: str, path: str | None = None) -> Memory:
    """Parse file text into a Memory; raise InvalidMemory with a one-line reason."""
    return _parse(text, path, _Handler())


def _parse(text: str, path: str | None, handler: YAMLHandler) -> Memory:
    label = path or "memory"
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")  # a BOM or CRLF from an editor is not an error
    _check_shape(text, label)
    try:
        meta, body = frontmatter.parse(text, handler=handler)
    except yaml.YAMLError as exc:
        raise InvalidMemory(_yaml_problem(exc, label)) from None
    except RecursionError:  # a last line of defence; MAX_DEPTH stops nesting long before this
        raise InvalidMemory(f"{label}: frontmatter nested too deeply") from None
    if not isinstance(meta, dict) or not meta:
        raise InvalidMemory(f"{label}: frontmatter is not a mapping of fields")
    known, extra = split_fields(meta)
    for required in ("id", "type", "created", "updated"):
        if required not in known:
            raise InvalidMemory(f"{label}: missing required field {required!r}")
    try:
        return Memory(**known, body=body, extra=extra, path=path)
    except ValidationError as exc:
        raise InvalidMemory(f"{label}: {_first_error(exc)}") from None
    except TypeError as exc:
        raise InvalidMemory(f"{label}: {exc}") from None


class _Unsure(Exception):
    """libyaml's reading is not the one parse_memory is sure to give (parse_memory decides)."""


_LIBYAML = hasattr(yaml, "CSafeLoader")


class _FastLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """libyaml's parser with _Loader's resolvers (timestamps kept as text)."""


_FastLoader.yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers


def _check_tree(root: yaml.Node) -> None:
    """_Loader's limits on a composed tree: no node reached twice (an alias), at most MAX_DEPTH
    levels, every node within the limits (_check_node)."""
    seen: set[int] = set()
    todo: list[tuple[yaml.Node, int]] = [(root, 1)]
    while todo:
        node, depth = todo.pop()
        if id(node) in seen or depth > MAX_DEPTH:
            raise _Unsure()
        seen.add(id(node))
        _check_node(node)
        if isinstance(node, yaml.SequenceNode):
            todo += [(child, depth + 1) for child in node.value]
        elif isinstance(node, yaml.MappingNode):
            todo += [(child, depth + 1) for pair in node.value for child in pair]


class _FastHandler(YAMLHandler):
    def load(self, fm: str, **kwargs: object) -> Any:
        loader = _FastLoader(fm)
        try:
            node = loader.get_single_node()
            if node is not None:
                _check_tree(node)
            return loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()


def parse_rendered(text: str, memory: Memory, path: str | None = None) -> Memory:
    """What parse_memory reads in `text`, which serialise_memory just made of `memory` (a write's
    read-back check), about ten times faster: libyaml parses it (when PyYAML has it), checked
    against the same limits, and its reading is taken only when it is exactly `memory` again.
    Anything else (a limit, an error, any difference) is parse_memory's to decide, so what is
    accepted or refused, and why, is always what a scan of the file will say."""
    if not _LIBYAML:
        return parse_memory(text, path)
    try:
        parsed = _parse(text, path, _FastHandler())
    except (InvalidMemory, _Unsure, yaml.YAMLError, RecursionError, ValueError, TypeError):
        return parse_memory(text, path)
    if parsed.frontmatter() != memory.frontmatter() or parsed.body != memory.body.strip():
        return parse_memory(text, path)
    return parsed


# Where libyaml's emitter and PyYAML's differ (escapes in quoted text, folding of line breaks):
# text holding any of these is emitted by PyYAML, so a file reads the same whichever is installed.
_EMITTERS_DIFFER = re.compile("[\n\r\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\U00010000-\U0010ffff]")


def _plain_text(value: Any) -> bool:
    """Whether every string in `value` (keys too) is one both emitters write alike."""
    if isinstance(value, str):
        return not _EMITTERS_DIFFER.search(value)
    if isinstance(value, dict):
        return all(_plain_text(k) and _plain_text(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return all(_plain_text(v) for v in value)
    return True


def serialise_memory(memory: Memory) -> str:
    """Canonical file text: ordered frontmatter, `---` fences, body, one trailing newline. libyaml
    emits it (about four times faster) when its text is the same as PyYAML's for every string."""
    front = memory.frontmatter()
    dumper = _FastDumper if _LIBYAML and _plain_text(front) else _Dumper
    meta = yaml.dump(front, Dumper=dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=100000)
    return f"---\n{meta}---\n{memory.body.strip()}\n"


def compose(front: dict[str, Any], body: str) -> str:
    """File text from a frontmatter mapping (kept in its order) and a body, for validation by parse_memory."""
    meta = yaml.dump(front, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100000)
    return f"---\n{meta}---\n{body}\n"


def load_fields(front: str, label: str) -> dict[str, Any]:
    """A frontmatter block's YAML as a mapping (timestamps kept as text); InvalidMemory otherwise."""
    try:
        meta = yaml.load(front, Loader=_Loader)
    except yaml.YAMLError as exc:
        raise InvalidMemory(_yaml_problem(exc, label, detail=isinstance(exc, ValueTooLarge))) from None
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise InvalidMemory(f"{label}: frontmatter is not a mapping of fields")
    return meta


def dump_fields(front: dict[str, Any]) -> str:
    """Frontmatter YAML in memctl's style (block mapping, flow lists of scalars, no wrapping), in the
    mapping's order."""
    return yaml.dump(front, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False,
                     width=100000)


def memory_from_fields(meta: dict[str, Any], body: str, label: str, path: str | None = None) -> Memory:
    """A validated Memory from a frontmatter mapping and a body; InvalidMemory with a one-line reason."""
    known, extra = split_fields(meta)
    try:
        return Memory(**known, body=body, extra=extra, path=path)
    except ValidationError as exc:
        raise InvalidMemory(f"{label}: {_first_error(exc)}") from None
    except TypeError as exc:
        raise InvalidMemory(f"{label}: {exc}") from None
