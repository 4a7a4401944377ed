"""What the REST API documents in /openapi.json: every answer is the envelope, typed by status.

`responses(data, ...)` gives a route's OpenAPI responses: the envelope with the route's result model
(agents/schemas.py) for its successes (201 written and 200 noop for an add), and for each error
status the envelope with the error codes it carries, so a generated client parses every status
into a typed object. `tidy(schema)` removes what FastAPI adds on its own and this server never
answers (its 422 validation error: a bad request is a 400 in the envelope here).
"""

from __future__ import annotations

from typing import Any, Generic, Optional, TypeVar

from pydantic import BaseModel, ConfigDict, Field

DataT = TypeVar("DataT")

# status -> (what it means, the error codes it carries)
ERRORS: dict[int, tuple[str, tuple[str, ...]]] = {
    400: ("Bad arguments: a parameter or body field that is unknown (never ignored), of the wrong type or "
          "out of range", ("invalid_arguments", "unknown_argument", "duplicate_argument", "bad_name", "invalid_id",
                           "bad_visibility", "owner_mismatch", "immutable_field", "nothing_to_change", "bad_json",
                           "no_owner", "bad_scope", "no_session", "bad_time", "bad_k", "bad_mode", "bad_status")),
    401: ("No token, or not a token this server accepts", ("unauthorized",)),
    403: ("The actor's role does not allow it, or the caller is not on loopback", ("forbidden",)),
    404: ("No such memory of this owner (or one the actor may not see)", ("not_found",)),
    413: ("The request body is over the server's limit", ("too_large",)),
    422: ("Refused by the gate: the data says which checks failed", ("low_confidence", "sensitive", "too_short",
                                                                     "too_long", "rate_limited", "duplicate")),
}


class ErrorItem(BaseModel):
    """One error: a stable code (see each status) and a sentence for people."""

    model_config = ConfigDict(extra="forbid")

    code: str
    message: str


class Envelope(BaseModel, Generic[DataT]):
    """Every answer: `{version, command, ok, data, errors}`."""

    model_config = ConfigDict(extra="forbid")

    version: int = Field(description="The envelope's version (1).")
    command: str = Field(description="What answered: list, add, search, show, update, forget...")
    ok: bool
    data: Optional[DataT] = Field(description="The result (null on most errors; a refused add's report on 422).")
    errors: list[ErrorItem] = Field(description="Empty when ok.")


def responses(data: Any, *errors: int, created: bool = False, refused: Any = None) -> dict[int | str, Any]:
    """The OpenAPI responses of a route answering `data` (201 and a 200 noop when `created`), and the
    envelope of each error status in `errors` (422: with `refused` as its data)."""
    out: dict[int | str, Any] = {}
    if created:
        out[201] = {"model": Envelope[data], "description": "Written (decision add, update or supersede)."}
        out[200] = {"model": Envelope[data], "description": "Already stored: decision noop, nothing written; "
                                                            "data.decision.target names the memory it repeats."}
    else:
        out[200] = {"model": Envelope[data], "description": "The result, in the envelope's data."}
    for status in sorted({*errors, 401, 403}):
        meaning, codes = ERRORS[status]
        model = Envelope[refused] if status == 422 and refused is not None else Envelope[None]
        out[status] = {"model": model, "description": f"{meaning}. Error codes: {', '.join(codes)}."}
    return out


def operation_id(route: Any) -> str:
    """Operation ids a generated client names its functions by: `add_user`, `search_project`, `health`."""
    tags = getattr(route, "tags", None) or []
    kind = str(tags[0]).split()[0] if tags and str(tags[0]).endswith("memories") else ""
    return f"{route.name}_{kind}" if kind else str(route.name)


def tidy(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema without FastAPI's own 422 (never answered: a bad request is a 400 here)."""
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            answer = operation.get("responses", {}).get("422", {})
            if "HTTPValidationError" in str(answer):
                del operation["responses"]["422"]
    components = schema.get("components", {}).get("schemas", {})
    if "HTTPValidationError" not in str(schema.get("paths")):
        components.pop("HTTPValidationError", None)
        components.pop("ValidationError", None)
    return schema
