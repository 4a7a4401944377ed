"""How a capability is declared once: a request model whose fields say how every surface spells them.

A request model (core/requests.py) is a pydantic model; each field may carry a `Spelled` in its
`Annotated` metadata: the CLI's option names and metavar, the other names MCP and REST accept
(the seeds': `memory_type`, `content`, `category`, `subType`), which surfaces offer it, which
memory field it filters recall on, and what completes its value. The surfaces read these models
(cli/declared.py builds typer options, agents/ the MCP schemas and REST parameters, the facade's
signatures are checked against them), so a field added here reaches all of them.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import re
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.fields import FieldInfo

from memctl.errors import MemctlError, UsageError

SURFACES = frozenset({"cli", "mcp", "rest"})  # the library always takes every field
F = TypeVar("F", bound=Callable[..., Any])
M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Spelled:
    """How the surfaces spell one request field (the library always uses the field's own name)."""

    cli: tuple[str, ...] = ()  # option spellings; () -> `--field-name`; ("",) -> the positional argument
    metavar: str | None = None
    aliases: tuple[str, ...] = ()  # other names MCP and REST accept (the seeds' names)
    surfaces: frozenset[str] = SURFACES
    filter: str | None = None  # recall and list: the memory field whose value must be one of those given
    complete: str | None = None  # what completes its value: ids, users, projects, types, config_keys, files
    choices: tuple[str, ...] = ()  # the values it takes (completion, help, MCP enum)


DEFAULT = Spelled()


class Request(BaseModel):
    """A capability's arguments: unknown ones are refused, so a typo is reported instead of ignored."""

    model_config = ConfigDict(extra="forbid")
    codes: ClassVar[dict[str, str]] = {}  # field -> the error code a bad value of it raises (else bad_<field>)
    errors: ClassVar[dict[str, Any]] = {}  # field -> the MemctlError class a bad value of it raises (else UsageError)

    @classmethod
    def spelled(cls, name: str) -> Spelled:
        """The `Spelled` of a field (the default one when it declares none)."""
        return spelled_of(cls.model_fields[name])


def spelled_of(info: FieldInfo) -> Spelled:
    """The `Spelled` in a field's metadata, or the default."""
    return next((m for m in info.metadata if isinstance(m, Spelled)), DEFAULT)


def fields_for(model: type[BaseModel], surface: str) -> dict[str, FieldInfo]:
    """The fields a surface offers, in declaration order."""
    return {name: info for name, info in model.model_fields.items() if surface in spelled_of(info).surfaces}


def aliases(model: type[BaseModel]) -> dict[str, str]:
    """Every other name a field is accepted by on MCP and REST, including camelCase -> field name."""
    out: dict[str, str] = {}
    for name, info in model.model_fields.items():
        for alias in (*spelled_of(info).aliases, _camel(name)):
            if alias != name:
                out[alias] = name
    return out


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def parse(model: type[M], given: dict[str, Any], what: str, by_alias: bool = False) -> M:
    """`given` as the model; UsageError naming the first problem (an unknown name: the closest known
    one). `by_alias`: the seeds' names and camelCase are accepted too (MCP and REST bodies)."""
    data = dict(given)
    if by_alias:
        names = aliases(model)
        for alias in [k for k in data if k in names and k not in model.model_fields]:
            target = names[alias]
            if target in data and data[target] is not None:
                raise UsageError(f"{what}: {alias!r} and {target!r} name the same argument", code="duplicate_argument")
            data[target] = data.pop(alias)
    unknown = [k for k in data if k not in model.model_fields]
    if unknown:
        raise unknown_argument(what, unknown[0], list(model.model_fields))
    try:
        return model.model_validate(data, by_alias=False, by_name=True)
    except ValidationError as exc:
        raise _usage(model, exc, what) from None


def unknown_argument(what: str, name: str, known: list[str]) -> UsageError:
    """The error for an argument nobody declared, naming the closest one declared."""
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else f" (expected one of: {', '.join(known)})"
    return UsageError(f"{what}: unknown argument {name!r}{hint}", code="unknown_argument")


def missing_argument(model: type[BaseModel], what: str, name: str) -> UsageError:
    """The error for a required argument not given (the CLI's options are all optional: a missing
    one reached the method as a TypeError, a traceback), with the code its bad value has."""
    codes: dict[str, str] = getattr(model, "codes", {}) or {}
    flags = [f for f in spelled_of(model.model_fields[name]).cli if f.startswith("--")]
    said = f"{name} ({flags[0]})" if flags else name
    return UsageError(f"{what}: {said} is required", code=codes.get(name) or f"bad_{name}")


def _usage(model: type[BaseModel], exc: ValidationError, what: str) -> MemctlError:
    err = exc.errors()[0]
    where = str(err["loc"][0]) if err["loc"] else ""
    message = re.sub(r"^(Value|Assertion) error, ", "", str(err["msg"]))
    codes: dict[str, str] = getattr(model, "codes", {}) or {}
    code = codes.get(where) or (f"bad_{where}" if where else "bad_argument")
    detail = ".".join(str(p) for p in err["loc"])
    error = (getattr(model, "errors", {}) or {}).get(where, UsageError)
    return error(f"{what}: {detail}: {message}" if detail else f"{what}: {message}", code=code)


def declared(model: type[BaseModel]) -> Callable[[F], F]:
    """A facade method whose parameters are `model`'s fields, checked when the module loads (a field
    added to the model and not to the method, or the reverse, is an error at import); a call naming
    an unknown keyword is a UsageError, not a TypeError, and not silently dropped."""

    def wrap(method: F) -> F:
        signature = inspect.signature(method)
        params = [p for p in signature.parameters.values() if p.name != "self"]
        names = [p.name for p in params]
        if set(names) != set(model.model_fields):
            raise TypeError(f"{method.__qualname__} takes {sorted(names)}, {model.__name__} declares "
                            f"{sorted(model.model_fields)}")
        for param in params:
            _same_default(method.__qualname__, param, model.model_fields[param.name])
        positional = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
        required = [p.name for p in params if p.default is p.empty]

        @functools.wraps(method)
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            if len(args) > len(positional):
                raise UsageError(f"{method.__name__}: takes {len(positional)} positional argument(s) "
                                 f"({', '.join(positional) or 'none'}); name the others", code="unknown_argument")
            for name in kwargs:
                if name not in model.model_fields:
                    raise unknown_argument(method.__name__, name, names)
            given = {*positional[:len(args)], *kwargs}
            for name in required:
                if name not in given:
                    raise missing_argument(model, method.__name__, name)
            return method(self, *args, **kwargs)

        call.request = model  # type: ignore[attr-defined]
        return call  # type: ignore[return-value]

    return wrap


def _same_default(where: str, param: inspect.Parameter, info: FieldInfo) -> None:
    if param.default is inspect.Parameter.empty:
        if not info.is_required():
            raise TypeError(f"{where}: {param.name} has no default, its field has one")
        return
    default = info.get_default(call_default_factory=True)
    mine = list(param.default) if isinstance(param.default, tuple) else param.default
    if info.is_required() or mine != default:
        raise TypeError(f"{where}: {param.name} defaults to {param.default!r}, its field to {default!r}")


def declared_filters(request: BaseModel) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The filters a request's values ask for: (memory field, values) of every field declared with
    `Spelled(filter=FIELD)` and given (store/filters.py MemoryFilter.fields reads them generically)."""
    out = []
    for name, info in type(request).model_fields.items():
        target, values = spelled_of(info).filter, getattr(request, name)
        if target and values:
            out.append((target, tuple(values) if isinstance(values, (list, tuple)) else (values,)))
    return tuple(out)


def request_of(model: type[M], given: dict[str, Any], what: str) -> M:
    """The request a facade method was called with (`locals()` of the method: its parameters)."""
    return parse(model, {k: v for k, v in given.items() if k in model.model_fields}, what)


def keywords_checked(method: F) -> F:
    """A facade method whose signature is its own declaration (one surface, the CLI): a keyword it
    does not take is a UsageError naming the closest one, like a declared method's."""
    params = [p for p in inspect.signature(method).parameters.values() if p.name != "self"]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return method
    names = [p.name for p in params if p.kind is not p.VAR_POSITIONAL]

    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        for name in kwargs:
            if name not in names:
                raise unknown_argument(method.__name__, name, names)
        return method(self, *args, **kwargs)

    return call  # type: ignore[return-value]


def check_keywords(cls: type) -> type:
    """Every public method of `cls` refuses an unknown keyword (declared ones already do)."""
    for name, member in list(vars(cls).items()):
        if not name.startswith("_") and inspect.isfunction(member) and not hasattr(member, "request"):
            setattr(cls, name, keywords_checked(member))
    return cls
