"""Typer commands built from a capability's request model (core/requests.py), so the CLI's options
are the model's fields: their spellings, metavars, help, bounds and defaults come from there.

`command(model, body, extras)` returns a function typer registers like a hand-written one: its
signature is the model's CLI fields (in declaration order) and the command's own `extras` (--json,
-q, --explain...), and calling it hands every value, by name, to `body`.
"""

from __future__ import annotations

import inspect
import types
from datetime import datetime
from typing import Any, Callable, List, Literal, Optional, Union, get_args, get_origin

import typer
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from typing_extensions import Annotated

from memctl.core.declare import fields_for, spelled_of


def command(model: type[BaseModel], name: str, body: Callable[[dict[str, Any]], None], doc: str,
            extras: tuple[tuple[str, Any, Any], ...] = ()) -> Callable[..., None]:
    """A typer command function `name` taking the model's CLI fields and `extras` ((name, annotation, default))."""
    params = [_parameter(field, info) for field, info in fields_for(model, "cli").items()]
    params += [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, annotation=a, default=d) for n, a, d in extras]
    params.sort(key=lambda p: p.kind)  # the positional argument first

    def run(**values: Any) -> None:
        body(values)

    run.__name__ = run.__qualname__ = name
    run.__doc__ = doc
    run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params}
    run.request = model  # type: ignore[attr-defined]  # what the generated option table reads values from
    return run


def _parameter(field: str, info: FieldInfo) -> inspect.Parameter:
    spelled = spelled_of(info)
    kind, many = _cli_type(info.annotation)
    help_text = info.description or ""
    if spelled.cli == ("",):
        marker: Any = typer.Argument(metavar=spelled.metavar or field.upper(), show_default=False, help=help_text)
        return inspect.Parameter(field, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                 annotation=Annotated[Optional[kind], marker], default=None)
    names = spelled.cli or (f"--{field.replace('_', '-')}",)
    bounds = _bounds(info) if kind in (int, float) else {}
    default = None if many or info.is_required() or info.default is None else info.default
    if kind is bool and default is None:  # three states: --flag, --no-flag, or the setting's
        marker = typer.Option(f"{names[0]}/--no-{names[0][2:]}", help=help_text)
        return inspect.Parameter(field, inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[Optional[bool], marker],
                                 default=None)
    if kind is bool:
        marker = typer.Option(*names, help=help_text)
        return inspect.Parameter(field, inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[bool, marker],
                                 default=bool(default))
    marker = typer.Option(*names, metavar=spelled.metavar or field.upper(), help=help_text,
                          show_default=default is not None, **bounds)
    annotation = Optional[List[kind]] if many else (Optional[kind] if default is None else kind)  # type: ignore[valid-type]
    return inspect.Parameter(field, inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[annotation, marker],
                             default=default)


def _cli_type(annotation: Any) -> tuple[type, bool]:
    """The CLI's value type of a field's annotation, and whether the option repeats (a list)."""
    args = [a for a in get_args(annotation) if a is not type(None)]
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType) and len(args) == 1:
        return _cli_type(args[0])
    if origin in (list, List):
        return _cli_type(args[0])[0], True
    if origin is Annotated:
        return _cli_type(args[0])
    if origin is Literal or annotation in (str, datetime):
        return str, False
    if annotation in (int, float, bool):
        return annotation, False
    return str, False


def _bounds(info: FieldInfo) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in info.metadata:
        if getattr(item, "ge", None) is not None:
            out["min"] = item.ge
        if getattr(item, "le", None) is not None:
            out["max"] = item.le
    return out
