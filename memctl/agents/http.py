"""`memctl serve`: the REST API over one warm MemoryStore, on FastAPI (served by agents/serve.py).

The seed MemoryService shape, for a user and the same for a project (`/api/project/{project}/memory`):

    GET    /api/memory/{user}             list: type, subtype, tag, state, limit, offset (newest first)
    POST   /api/memory/{user}             add, through the gate and the write decision:
                                          201 written, 200 noop (already stored), 422 refused
    GET    /api/memory/{user}/search      recall: q, k, type, mode
    GET    /api/memory/{user}/tree        active memories by type and subtype
    POST   /api/memory/{user}/query       an exact answer over typed facts: op, kind, where, field
    GET    /api/memory/{user}/{id}        one memory; PUT changes the fields it names; DELETE forgets it
    GET    /api/context                   the prompt block: q, user, project, session, budget, format
    GET    /api/health                    status, version, root
    POST   /api/cli/{command}             the CLI's forwarding (recall, context, add, list, show)

Every request runs as the actor guard.authenticate decides (403 `forbidden` for what their role
does not allow). Every answer, errors included, is the JSON envelope; the operations are the agent tools of
agents/tools.py, so HTTP and MCP answer alike. OpenAPI is at /openapi.json, docs at /docs.
The store is not thread-safe: requests use it one at a time (adds arriving together are written as
one group: services/grouped.py).
"""

# No `from __future__ import annotations`: FastAPI reads these signatures at run time, and the
# per-owner path parameter (`Name` in owner_routes) is a local alias that strings could not name.
import json
import logging
import threading
from dataclasses import replace
from typing import Annotated, Any, Callable, Optional

from fastapi import Body, Depends, FastAPI, Path, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, create_model
from starlette.exceptions import HTTPException
from starlette.routing import Route

from memctl._version import __version__
from memctl.agents import commands, schemas
from memctl.agents.guard import Access, allowed_methods, authenticate, failure, sent_local_key
from memctl.agents.openapi import operation_id, responses, tidy
from memctl.agents.surfaces import query_arguments, query_parameters, rest_body
from memctl.agents.tools import TOOLS, Caller, InvalidArguments, parse_arguments, run_tool
from memctl.core.byid import EditRequest, ForgetRequest
from memctl.core.envelope import envelope
from memctl.core.models import name_arg
from memctl.core.requests import AddRequest, ContextRequest, ListRequest, QueryRequest, RecallRequest
from memctl.errors import EXIT_NOT_FOUND, EXIT_REFUSED, EXIT_USAGE, Forbidden, MemctlError, NotFound

log = logging.getLogger("memctl.agents.http")

STATUS_BY_EXIT = {EXIT_USAGE: 400, EXIT_REFUSED: 422, EXIT_NOT_FOUND: 404}
WARNINGS_HEADER = "Memctl-Warnings"
ACTOR_HEADER = "Memctl-Actor"  # the actor a forwarded CLI command runs as (its --actor / MEMCTL_ACTOR)
CODE_BY_STATUS = {401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed"}


class HealthOut(BaseModel):
    status: str
    version: str
    root: Optional[str] = Field(description="The memory directory served (null: a database with no folder).")


def change_body() -> type[BaseModel]:
    """A PUT's body: the edit request's REST fields, and the owner's names, which may be given only
    as they are (a memory never moves to another owner)."""
    fixed: Any = {name: (Optional[str], Field(None, description=f"The memory's {name}, unchanged (or refused)."))
                  for name in ("user", "project", "session")}
    model: type[BaseModel] = create_model("MemoryChange", __base__=rest_body(EditRequest, ("memory_id",)), **fixed)
    return model


class Served:
    """What the routes share: the store, the lock that serialises it, and the access rules."""

    def __init__(self, store: Any, access: Access) -> None:
        self.store = store
        self.access = access
        self.lock = threading.Lock()
        store.group_adds(self.lock)  # the adds of requests arriving together are written together

    def answer(self, command: str, work: Callable[[Any], Any], caller: Caller,
               status: Callable[[Any], int] = lambda _: 200, warnings_header: bool = False) -> JSONResponse:
        """Run `work(store)` under the lock, as the caller's actor; its data, or its MemctlError, as the envelope."""
        warnings: list[str] = []
        try:
            with self.lock:
                try:
                    data = work(self.for_actor(caller.actor))
                finally:
                    warnings = self.store.drain_warnings()
            response = JSONResponse(envelope(command, True, data), status_code=status(data))
        except MemctlError as exc:
            response = JSONResponse(failure(command, exc.code, exc.message, exc.data), status_code=status_of(exc))
        except Exception as exc:  # a bug costs one request, not the server
            log.exception("internal error in %s", command)
            response = JSONResponse(failure(command, "internal", str(exc) or type(exc).__name__), status_code=500)
        for message in warnings:
            log.warning("%s", message)
        if warnings_header and warnings:
            response.headers[WARNINGS_HEADER] = json.dumps(warnings)  # ASCII-escaped: any text fits a header
        return response

    def for_actor(self, actor: str | None) -> Any:
        """The store acting for `actor` (the warm store itself when it already does)."""
        return self.store if actor == self.store.actor else self.store.as_actor(actor)

    def tool(self, name: str, arguments: "dict[str, Any] | Callable[[], dict[str, Any]]", caller: Caller,
             command: str, status: Callable[[Any], int] = lambda _: 200) -> JSONResponse:
        """Run an agent tool (memctl.agents.tools) on arguments taken from the request (or a function
        reading them, so that a bad one is answered in the envelope too)."""
        tool = TOOLS[name]

        def work(store: Any) -> dict[str, Any]:
            given = arguments() if callable(arguments) else arguments
            return run_tool(store, tool, parse_arguments(tool, store.config, given), caller)
        return self.answer(command, work, caller, status)


def status_of(exc: MemctlError) -> int:
    """The HTTP status of an error: 403 for what the actor's role does not allow, else by exit code."""
    if isinstance(exc, Forbidden):
        return 403
    return STATUS_BY_EXIT.get(exc.exit_code, 500)


def served(request: Request) -> Served:
    """The shared state of the app serving this request."""
    state: Served = request.app.state.served
    return state


Shared = Annotated[Served, Depends(served)]
Authenticated = Annotated[Caller, Depends(authenticate)]
MemoryIdPath = Annotated[str, Path(description="The memory's id (or a unique prefix of at least 4).")]


def owned(store: Any, kind: str, name: str, memory_id: str) -> Any:
    """The memory if it belongs to that user or project; NotFound otherwise (ids are not a key to others')."""
    name_arg(name, kind)
    memory = store.get(memory_id)
    if getattr(memory, kind) != name:
        raise NotFound(f"no memory {memory_id} of {kind} {name!r}")
    return memory


def _written(data: Any) -> int:
    return 201 if data.get("written") else 200


def owner_routes(app: FastAPI, kind: str) -> None:
    """The memory routes of one user (`kind` user) or one project (`kind` project). Registered on
    the app itself, not through an included router, so each is a plain route `Allow` can list."""
    prefix = "/api/memory/{user}" if kind == "user" else "/api/project/{project}/memory"
    router = _Routes(app, prefix, [f"{kind} memories"])
    Name = Annotated[str, Path(alias=kind, description=f"The {kind}'s name.")]  # noqa: N806 (a type alias)

    owner = (kind,)  # the path names whose memories: not a parameter

    @router.get("", name="list", summary=f"List a {kind}'s memories, newest first",
                openapi_extra={"parameters": query_parameters(ListRequest, owner)},
                responses=responses(schemas.ListOut, 400, 403))
    def list_memories(name: Name, request: Request, app: Shared, caller: Authenticated) -> JSONResponse:
        def arguments() -> dict[str, Any]:
            return {**query_arguments(ListRequest, request.query_params, "list", owner), kind: name}
        return app.tool("memory_list", arguments, caller, "list")

    body_model = rest_body(AddRequest)

    @router.post("", name="add", summary=f"Add a {kind} memory through the gate", status_code=201,
                 responses=responses(schemas.AddOut, 400, 403, 413, 422, created=True, refused=schemas.AddOut))
    def add_memory(name: Name, app: Shared, caller: Authenticated, body: Annotated[body_model, Body()]) -> JSONResponse:  # type: ignore[valid-type]
        fields = body.model_dump(exclude_none=True)  # type: ignore[attr-defined]
        if (fields.get("user", name) != name and kind == "user") or (kind == "user" and "project" in fields):
            return JSONResponse(failure("add", "owner_mismatch", f"the body names another owner than the path's "
                                        f"{kind} {name!r}"), status_code=400)
        return app.tool("memory_add", {**fields, kind: name}, caller, "add", _written)

    drop = ("users",) if kind == "user" else ("projects",)  # the path names whose memories

    @router.get("/search", name="search", summary=f"Recall a {kind}'s memories for a query",
                openapi_extra={"parameters": query_parameters(RecallRequest, drop)},
                responses=responses(schemas.SearchOut, 400, 403))
    def search(name: Name, request: Request, app: Shared, caller: Authenticated) -> JSONResponse:
        def arguments() -> dict[str, Any]:
            return {**query_arguments(RecallRequest, request.query_params, "search", drop), f"{kind}s": [name]}
        return app.tool("memory_search", arguments, caller, "search")

    query_body = rest_body(QueryRequest, owner)

    @router.post("/query", name="query", summary=f"Count, add up or pick a {kind}'s typed facts exactly",
                 responses=responses(schemas.QueryOut, 400, 403))
    def query(name: Name, app: Shared, caller: Authenticated, body: Annotated[query_body, Body()]) -> JSONResponse:  # type: ignore[valid-type]
        return app.tool("memory_query", {**body.model_dump(exclude_none=True), kind: name}, caller, "query")  # type: ignore[attr-defined]

    @router.get("/tree", name="tree", summary=f"A {kind}'s memories by type and subtype",
                responses=responses(schemas.TreeOut, 400))
    def tree(name: Name, app: Shared, caller: Authenticated) -> JSONResponse:
        def work(store: Any) -> dict[str, Any]:
            grouped = store.tree(**{kind: name})
            types = {t: {sub: [m.to_public() for m in ms] for sub, ms in subs.items()} for t, subs in grouped.items()}
            return {kind: name, "count": sum(len(ms) for subs in grouped.values() for ms in subs.values()),
                    "types": types}
        return app.answer("tree", work, caller)

    @router.get("/{memory_id}", name="show", summary="One memory, with its importance",
                responses=responses(schemas.MemoryOut, 400, 404))
    def show(name: Name, memory_id: MemoryIdPath, app: Shared, caller: Authenticated) -> JSONResponse:
        return app.answer("show", lambda store: {"memory": store.show(owned(store, kind, name, memory_id).id)}, caller)

    by_id = ("memory_id",)  # the path names the memory
    change = change_body()

    @router.put("/{memory_id}", name="update", summary="Change the fields the body names",
                responses=responses(schemas.MemoryOut, 400, 403, 404, 413, 422))
    def update(name: Name, memory_id: MemoryIdPath, app: Shared, caller: Authenticated,
               body: Annotated[change, Body()]) -> JSONResponse:  # type: ignore[valid-type]
        def work(store: Any) -> dict[str, Any]:
            memory = owned(store, kind, name, memory_id)
            fields = body.model_dump(exclude_none=True)  # type: ignore[attr-defined]
            for owner in ("user", "project", "session"):
                if owner in fields and fields.pop(owner) != getattr(memory, owner):
                    raise InvalidArguments(f"{owner} cannot be changed", code="immutable_field")
            return _tool(store, "memory_update", {**fields, "memory_id": memory.id}, caller)
        return app.answer("update", work, caller)

    @router.delete("/{memory_id}", name="forget", summary="Forget a memory (archived; `memctl restore` brings it back)",
                   openapi_extra={"parameters": query_parameters(ForgetRequest, by_id)},
                   responses=responses(schemas.MemoryOut, 400, 403, 404))
    def forget(name: Name, memory_id: MemoryIdPath, request: Request, app: Shared,
               caller: Authenticated) -> JSONResponse:
        def work(store: Any) -> dict[str, Any]:
            given = query_arguments(ForgetRequest, request.query_params, "forget", by_id)
            memory = owned(store, kind, name, memory_id)
            return _tool(store, "memory_forget", {**given, "memory_id": memory.id}, caller)
        return app.answer("forget", work, caller)


def _tool(store: Any, name: str, arguments: dict[str, Any], caller: Caller) -> dict[str, Any]:
    """An agent tool's answer to arguments a route read (checked against the tool's model)."""
    tool = TOOLS[name]
    return run_tool(store, tool, parse_arguments(tool, store.config, arguments), caller)


def general_routes(app: FastAPI) -> None:
    """Health, the prompt block, and the CLI's forwarding."""
    router = _Routes(app, "/api", None)

    @router.get("/health", name="health", tags=["server"], summary="Is the server up, and for which directory",
                responses=responses(HealthOut))
    def health(app: Shared, caller: Authenticated) -> JSONResponse:
        return app.answer("health", lambda store: {"status": "ok", "version": __version__, "root": str(store.root) if store.root else None},
                          caller)

    @router.get("/context", name="context", tags=["context"], summary="The memory block for a prompt",
                openapi_extra={"parameters": query_parameters(ContextRequest)},
                responses=responses(schemas.ContextOut, 400))
    def context(request: Request, app: Shared, caller: Authenticated) -> JSONResponse:
        return app.tool("memory_context", lambda: query_arguments(ContextRequest, request.query_params, "context"),
                        caller, "context")

    @router.post("/cli/{command}", name="cli", include_in_schema=False)
    async def cli(command: str, request: Request, app: Shared, caller: Authenticated) -> JSONResponse:
        raw = await request.body()
        label = command if command in commands.PARAMS else "cli"
        runs_as = forwarded_caller(caller, request.headers.get(ACTOR_HEADER), sent_local_key(request, app.access))
        if runs_as is None:  # the CLI's actor is not the one this server answers as: it runs in-process
            return JSONResponse(failure(label, "other_actor", "this server answers as another actor"),
                                status_code=409)

        def work(store: Any) -> dict[str, Any]:
            try:
                arguments = json.loads(raw.decode("utf-8")) if raw.strip() else {}
            except (UnicodeDecodeError, ValueError):
                raise InvalidArguments("the request body is not JSON", code="bad_json") from None
            return commands.run(store, command, commands.normalise(command, arguments, remote=True),
                                trusted_source=runs_as.trust_source)

        return await run_in_threadpool(app.answer, label, work, runs_as, warnings_header=True)


def forwarded_caller(caller: Caller, claimed: str | None, local: bool = False) -> Caller | None:
    """The caller a forwarded CLI command runs as. A server that decides the actor itself (a token
    that names one, or `--actor`) answers only the same actor, so the command's output is what it
    would be in-process; one that does not runs it as the CLI's own --actor, which the user could
    as well have run in-process. None: the actors differ. `local` (the command sent the key of the
    folder's server.json: whoever sent it can read the folder, and could run it in-process) makes
    the source it gives believed."""
    caller = replace(caller, trust_source=True) if local else caller
    try:
        claimed = json.loads(claimed) if claimed else None  # JSON in the header: any name fits in ASCII
    except ValueError:
        return None
    if claimed is not None and not isinstance(claimed, str):
        return None
    claimed = claimed or None
    if caller.actor is not None or caller.identity == "token":
        return caller if claimed == caller.actor else None
    return Caller(caller.identity, caller.defaults, caller.trust_source, actor=claimed)


class _Routes:
    """Route decorators for one path prefix on the app, every route behind `authenticate`."""

    def __init__(self, app: FastAPI, prefix: str, tags: list[str] | None) -> None:
        self.app, self.prefix, self.tags = app, prefix, tags

    def _route(self, method: str, path: str, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self.app.api_route(self.prefix + path, methods=[method], tags=options.pop("tags", self.tags),
                                  dependencies=[Depends(authenticate)], **options)

    def get(self, path: str, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self._route("GET", path, **options)

    def post(self, path: str, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self._route("POST", path, **options)

    def put(self, path: str, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self._route("PUT", path, **options)

    def delete(self, path: str, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self._route("DELETE", path, **options)


def create_app(store: Any, access: Access = Access()) -> FastAPI:
    """The FastAPI app over `store` (wrap it in guard.HttpEdges to serve it: body limits, HEAD, OPTIONS)."""
    from memctl.agents.mcp_http import PATH, McpEndpoint

    served = Served(store, access)
    mcp = McpEndpoint(served)  # MCP over streamable HTTP; its session manager lives as long as the app
    app = FastAPI(title="memctl", version=__version__, summary="Readable long-term memory for AI agents",
                  description="Every answer is the JSON envelope `{version, command, ok, data, errors}`; "
                              f"MCP (streamable HTTP) is at {PATH}.",
                  generate_unique_id_function=operation_id, lifespan=lambda _app: mcp.running())
    app.router.routes.append(Route(PATH, mcp, methods=["GET", "POST", "DELETE"], include_in_schema=False))
    app.state.served = served
    generate = app.openapi
    app.openapi = lambda: tidy(generate())  # type: ignore[method-assign]
    app.state.access = access
    owner_routes(app, "user")
    owner_routes(app, "project")
    general_routes(app)
    app.add_exception_handler(HTTPException, _http_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, _invalid_request)  # type: ignore[arg-type]
    return app


async def _http_error(request: Request, exc: HTTPException) -> JSONResponse:
    """404, 405 (with every allowed method in `Allow`), 401 and 403 as the envelope."""
    headers = dict(exc.headers or {})
    path = request.url.path
    message = str(exc.detail)
    if exc.status_code == 405:
        allow = allowed_methods(request.app, path)
        headers["Allow"] = ", ".join(allow)
        message = f"{path} takes {', '.join(allow)}, not {request.method}"
    elif exc.status_code == 404 and message == "Not Found":
        message = f"no endpoint {path}"
    code = CODE_BY_STATUS.get(exc.status_code, "http_error")
    return JSONResponse(failure(_command(request), code, message), status_code=exc.status_code, headers=headers)


async def _invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
    """A request whose parameters or body do not fit: 400, every problem named."""
    problems = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"] if p != "body") or "body"
        problems.append(f"{where}: {str(err['msg']).removeprefix('Value error, ')}")
    return JSONResponse(failure(_command(request), "invalid_arguments", "; ".join(problems)), status_code=400)


def _command(request: Request) -> str:
    route = request.scope.get("route")
    return getattr(route, "name", None) or "http"
