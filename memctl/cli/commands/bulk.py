"""Bulk write commands: import, dedupe, conflicts, log, extract."""

from __future__ import annotations

from typing import Optional

import typer
from typing_extensions import Annotated

from memctl.cli import output as render
from memctl.cli.app import Json, Project, Session, User, app, read_text, run, store
from memctl.errors import EXIT_REFUSED, Refused

Llm = Annotated[Optional[str], typer.Option("--llm", help="LLM command (prompt on stdin, answer on stdout).")]
NeedUser = Annotated[str, typer.Option("--user", "-u", help="Whose conversation.")]
NeedSession = Annotated[str, typer.Option("--session", "-s", help="Session id (the transcript's name).")]


def _refused_message(data: dict, what: str) -> str | None:
    counts = data.get("counts", {})
    return f"{counts['refused']} of {sum(counts.values())} {what} refused" if counts.get("refused") else None


def _report_or_refuse(data: dict, what: str, as_json: bool) -> dict:
    """With --json a refusal is an error envelope carrying the whole report (exit 3)."""
    message = _refused_message(data, what)
    if message and as_json:
        raise Refused(message, data=data)
    return data


def _render_then_exit(data: dict, what: str = "candidates") -> None:
    """For people: the whole summary on stdout, then the refusal on stderr and exit 3."""
    _render_report(data)
    message = _refused_message(data, what)
    if message:
        render.error_line(message)
        raise typer.Exit(EXIT_REFUSED)


def _render_report(data: dict) -> None:
    counts = data.get("counts", {})
    render.rows(["line", "outcome", "id", "codes", "message"],
                [[i["line"], i["outcome"], i.get("id"), ", ".join(i.get("codes") or []),
                  render.short(i.get("message") or "", 90)] for i in data.get("items", [])],
                title=", ".join(f"{v} {k}" for k, v in counts.items()))


@app.command("import")
def import_(
    file: Annotated[str, typer.Argument(help="JSON Lines or '[type:subtype] content' lines; - for stdin.")],
    user: User = None, project: Project = None, session: Session = None,
    source: Annotated[str, typer.Option(help="Source for lines that do not name one.")] = "import",
    llm: Llm = None, json_: Json = False,
) -> None:
    """Import many candidates; each goes through the gate and the write decision. Exit 3 if any is refused."""
    from memctl.services.imports import ImportDefaults, import_text, read_input

    def action() -> dict:
        defaults = ImportDefaults(user=user, project=project, session=session, source=source)
        return _report_or_refuse(import_text(store(), read_input(file), defaults, llm).to_data(), "candidates", json_)

    run("import", json_, action, _render_then_exit)


@app.command()
def dedupe(
    user: User = None, project: Project = None,
    threshold: Annotated[Optional[float], typer.Option(help="Cosine for comparing two memories (default: the gate's duplicate_threshold).")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the plan; change nothing.")] = False,
    resolve: Annotated[Optional[str], typer.Option(help="Resolve conflicts: 'newest' supersedes the older.")] = None,
    llm: Llm = None, json_: Json = False,
) -> None:
    """Merge repeats already on disk; list conflicting pairs (resolved only with --resolve or --llm)."""
    from memctl.services.dedupe import dedupe as do_dedupe

    run("dedupe", json_, lambda: do_dedupe(store(), user=user, project=project, threshold=threshold,
                                           dry_run=dry_run, resolve=resolve, llm=llm).model_dump(mode="json"),
        _render_dedupe)


def _render_dedupe(d: dict) -> None:
    plan = d["plan"]
    render.rows(["survivor", "merged", "reason"],
                [[m["survivor"], ", ".join(m["merged"]), render.short(m["reason"], 90)] for m in plan["merges"]],
                title=f"{len(plan['merges'])} merges")
    render.rows(["older", "newer", "resolved", "reason"],
                [[c["older"], c["newer"], "superseded" if c["resolved"] else "open", render.short(c["reason"], 90)]
                 for c in plan["conflicts"]], title=f"{len(plan['conflicts'])} conflicts")
    if d["similar"]:
        render.rows(["a", "b", "cosine"], [[p["a"], p["b"], p["cosine"]] for p in d["similar"]],
                    title=f"{len(d['similar'])} similar pairs left alone")
    done = "dry run: nothing changed" if d["dry_run"] else (
        f"merged {len(d['merged'])}, superseded {len(d['superseded'])}, linked {len(d['linked'])}")
    render.message(f"{d['considered']} memories considered at threshold {d['threshold']:g}; {done}")
    for note in d["notes"]:
        render.warn(note)


@app.command()
def conflicts(user: User = None, project: Project = None, json_: Json = False) -> None:
    """List open possibly-conflicting pairs of active memories, newest first."""
    from memctl.services.dedupe import open_conflicts

    run("conflicts", json_,
        lambda: {"conflicts": [c.model_dump(mode="json") for c in open_conflicts(store(), user, project)]},
        lambda d: render.rows(["newer", "older", "owner", "newer content", "older content"],
                              [[c["newer"], c["older"], c["owner"], render.short(c["newer_content"], 60),
                                render.short(c["older_content"], 60)] for c in d["conflicts"]],
                              title=f"{len(d['conflicts'])} open conflicts"))


@app.command()
def log(
    text: Annotated[str, typer.Argument(help="The message, or - to read it from stdin.")],
    user: NeedUser, session: NeedSession,
    role: Annotated[str, typer.Option(help="user, assistant, system, ...")] = "user",
    json_: Json = False,
) -> None:
    """Append a message to the session's transcript (transcripts/<user>/<session>.jsonl)."""
    from memctl.services.transcripts import append_message

    run("log", json_, lambda: {"message": append_message(store(), user, session, read_text(text), role).model_dump()},
        lambda d: render.message(f"logged {d['message']['id']}"))


@app.command()
def extract(
    user: NeedUser, session: NeedSession,
    llm: Annotated[str, typer.Option("--llm", help="LLM command: extraction prompt on stdin, JSON candidates on stdout.")],
    every: Annotated[int, typer.Option(help="Extract only once this many new messages have gathered.")] = 1,
    file: Annotated[Optional[str], typer.Option("--file", help="Read messages from this JSONL transcript (- for stdin).")] = None,
    json_: Json = False,
) -> None:
    """Turn the session's new messages into memories through an LLM (source auto, rate-limited)."""
    from memctl.services.imports import read_input
    from memctl.services.transcripts import extract as do_extract, parse_messages

    def action() -> dict:
        messages = parse_messages(read_input(file), session, file) if file else None
        result = do_extract(store(), user, session, llm, every=every, messages=messages)
        data = {**result.model_dump(mode="json", exclude={"report"}), **result.report.to_data()}
        return _report_or_refuse(data, "candidates", json_)

    run("extract", json_, action, _render_extract)


def _render_extract(d: dict) -> None:
    if not d["called_model"]:
        render.message(f"{d['pending']} new message(s) pending" + (
            f"; waiting for {d['every']}" if d["pending"] else "; nothing to extract"))
        return
    _render_then_exit(d)
