"""A capability's request model (core/requests.py) as each server surface takes it.

- `argument_model(request, surface, drop)`: the fields a surface offers, as a strict pydantic model
  (MCP lists its JSON Schema; `"5"` is not a number there, as the schema says).
- `canonical(request, given)`: the arguments under the declared names: the seeds' names
  (`memory_type`, `content`, `category`, `subType`...) and camelCase are accepted on MCP and REST.
- `query_arguments(request, query, drop)` and `query_parameters(request, drop)`: a REST query string
  read into the request's fields, and the OpenAPI parameters that document it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, get_args, get_origin

from pydantic import AliasChoices, BaseModel, ConfigDict, create_model
from pydantic.fields import FieldInfo

from memctl.core.declare import aliases, fields_for, spelled_of, unknown_argument
from memctl.errors import UsageError


@lru_cache(maxsize=64)
def argument_model(request: type[BaseModel], surface: str, drop: tuple[str, ...] = ()) -> type[BaseModel]:
    """The fields `surface` offers (less `drop`: what a route's path or the server decides), strict."""
    fields: Any = {name: (info.annotation, info) for name, info in fields_for(request, surface).items()
                   if name not in drop}
    model: type[BaseModel] = create_model(request.__name__.removesuffix("Request") + "Arguments",
                                          __config__=ConfigDict(extra="forbid", strict=True,
                                                                json_schema_extra=_choices(request)),
                                          __doc__=request.__doc__, **fields)
    return model


def _choices(request: type[BaseModel]) -> Any:
    """A schema hook: fields declared with choices get an `enum` (their items, for a list)."""
    def add(schema: dict[str, Any]) -> None:
        for name, prop in schema.get("properties", {}).items():
            if name not in request.model_fields:
                continue
            choices = spelled_of(request.model_fields[name]).choices
            if choices:
                target = prop["items"] if prop.get("type") == "array" else prop
                target.setdefault("enum", list(choices))
    return add


def canonical(request: type[BaseModel], given: dict[str, Any], what: str) -> dict[str, Any]:
    """`given` with every accepted alias replaced by the field's own name (both given: refused)."""
    names = aliases(request)
    out = dict(given)
    for alias in [k for k in out if k in names and k not in request.model_fields]:
        target = names[alias]
        if out.get(target) is not None:
            raise UsageError(f"{what}: {alias!r} and {target!r} name the same argument", code="duplicate_argument")
        out[target] = out.pop(alias)
    return out


def query_arguments(request: type[BaseModel], query: Any, what: str, drop: tuple[str, ...] = ()) -> dict[str, Any]:
    """A query string (a multi-dict) as the request's arguments: repeated names make a list, an
    alias names its field, a name the request does not declare is refused (never ignored)."""
    offered = {name: info for name, info in fields_for(request, "rest").items() if name not in drop}
    out: dict[str, Any] = {}
    for key in dict.fromkeys(query.keys()):
        name = canonical(request, {key: True}, what)
        field = next(iter(name))
        if field not in offered:
            raise unknown_argument(what, key, list(offered))
        values = query.getlist(key)
        out[field] = values if _is_list(offered[field].annotation) else _typed(offered[field].annotation, values[-1])
    return out


def _typed(annotation: Any, text: str) -> Any:
    """A query string's text as the number or flag the field takes (left as text when it is not one:
    the strict model then says what is wrong)."""
    kinds = {a for a in (annotation, *get_args(annotation)) if a in (int, float, bool)}
    try:
        if bool in kinds:
            return {"true": True, "false": False, "1": True, "0": False}.get(text.lower(), text)
        if int in kinds:
            return int(text)
        if float in kinds:
            return float(text)
    except ValueError:
        return text
    return text


def _is_list(annotation: Any) -> bool:
    return get_origin(annotation) is list or any(get_origin(a) is list for a in get_args(annotation))


def query_parameters(request: type[BaseModel], drop: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The OpenAPI `parameters` of a GET whose query string is the request (aliases in the text)."""
    model = argument_model(request, "rest", drop)
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    required = set(schema.get("required", []))
    reverse: dict[str, list[str]] = {}
    for alias, name in aliases(request).items():
        reverse.setdefault(name, []).append(alias)
    out = []
    for name, prop in schema["properties"].items():
        prop = {k: v for k, v in prop.items() if k not in ("title", "description")}
        description = request.model_fields[name].description or ""
        if reverse.get(name):
            description += f" (also accepted as: {', '.join(reverse[name])})"
        out.append({"name": name, "in": "query", "required": name in required, "schema": prop,
                    "description": description, **({"explode": True} if prop.get("type") == "array" else {})})
    return out


@lru_cache(maxsize=16)
def rest_body(request: type[BaseModel], drop: tuple[str, ...] = ()) -> type[BaseModel]:
    """A REST body of the request's fields (less `drop`), documented under the declared names and
    accepting the seeds' names and camelCase too (`category`, `subType`, `content`, `validUntil`)."""
    reverse: dict[str, list[str]] = {}
    for alias, name in aliases(request).items():
        reverse.setdefault(name, []).append(alias)
    fields: Any = {}
    for name, info in fields_for(request, "rest").items():
        if name in drop:
            continue
        copy = FieldInfo.merge_field_infos(info, validation_alias=AliasChoices(name, *reverse.get(name, [])))
        fields[name] = (info.annotation, copy)
    name = request.__name__.removesuffix("Request") + "Body" + "".join(d.title().replace("_", "") for d in drop)
    model: type[BaseModel] = create_model(name, __doc__=request.__doc__,
                                          __config__=ConfigDict(extra="forbid", validate_by_name=True,
                                                                validate_by_alias=True), **fields)
    return model
