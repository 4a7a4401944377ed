"""Many memories at once: import (from other stores too), export, and conversations: log, extract."""

from __future__ import annotations

import json
from typing import Optional

import typer
from typing_extensions import Annotated

from memctl.cli import output as render
from memctl.cli.app import Json, Llm, Project, Quiet, Session, User, open_store, run
from memctl.cli.inputs import read_input, read_text
from memctl.errors import EXIT_REFUSED, Refused, UsageError

NeedUser = Annotated[str, typer.Option("--user", "-u", metavar="USER", help="Whose conversation.")]
NeedSession = Annotated[str, typer.Option("--session", "-s", metavar="SESSION", help="Session id (the transcript's name).")]


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


def import_(
    file: Annotated[str, typer.Argument(metavar="PATH", help="JSON Lines or '[type:subtype] content' lines, or what "
                                                             "--from names (a file or a folder); - for stdin.")],
    from_: Annotated[Optional[str], typer.Option("--from", metavar="SOURCE",
                                                 help="mem0, memoryservice, claude, jsonl or folder.")] = None,
    user: User = None, project: Project = None, session: Session = None,
    source: Annotated[str, typer.Option(metavar="SOURCE", help="Source for lines that do not name one.")] = "import",
    llm: Llm = None, json_: Json = False, quiet: Quiet = False,
    second_fit: Annotated[bool, typer.Option("--second-fit", help="Decide with the second model's pair fit too "
                                             "(multilingual; about 10x slower).")] = False,
) -> None:
    """Import many candidates, or another store (--from); each through the gate and the write decision. Exit 3 if any is refused."""
    if from_ is not None:
        _import_from(from_, file, user, project, session, llm, json_, quiet)
        return

    def action() -> dict:
        report = open_store().import_text(read_input(file), user=user, project=project, session=session,
                                          source=source, llm=llm, second_fit=second_fit)
        return _report_or_refuse(report.to_data(), "candidates", json_)

    run("import", json_, action, _render_then_exit, quiet)


def _import_from(from_: str, path: str, user: Optional[str], project: Optional[str], session: Optional[str],
                 llm: Optional[str], json_: bool, quiet: bool) -> None:
    def action() -> dict:
        text = read_input("-") if path == "-" else None
        report = open_store().import_from(from_, None if text is not None else path, text=text, user=user,
                                          project=project, session=session, llm=llm)
        return _report_or_refuse(report.to_data(), "items", json_)

    run("import", json_, action, _render_migration, quiet)


def _render_migration(data: dict) -> None:
    """Per item, then one line saying what was taken, merged, already there and refused."""
    render.rows(["item", "from", "outcome", "id", "message"],
                [[i["line"], i.get("ref"), i["outcome"], i.get("id"), render.short(i.get("message") or "", 80)]
                 for i in data.get("items", [])], title=f"import --from {data['source']}")
    for note in data.get("notes", []):
        render.warn(note)
    s = data["summary"]
    render.message(f"{data['source']}: {s['taken']} taken, {s['merged']} merged into stored memories, "
                   f"{s['already']} imported before, {s['refused']} refused")
    message = _refused_message(data, "items")
    if message:
        render.error_line(message)
        raise typer.Exit(EXIT_REFUSED)


def export(
    to: Annotated[str, typer.Option("--to", metavar="TARGET", help="jsonl (JSON Lines on stdout) or folder.")],
    directory: Annotated[Optional[str], typer.Argument(metavar="DIR", show_default=False,
                                                       help="For --to folder: a new or empty folder.")] = None,
    layout: Annotated[str, typer.Option(metavar="LAYOUT", help="For --to folder: memctl or claude.")] = "memctl",
    user: User = None,
    project: Project = None,
    json_: Json = False,
) -> None:
    """Write every memory out (or a user's and a project's: --user, --project): JSON Lines on stdout,
    or a folder of memory files (memctl's or Claude Code's layout)."""

    def action() -> dict:
        store = open_store()
        if to == "jsonl" and directory is None:
            lines = store.export_records(user=user, project=project)
            return {"count": len(lines), "lines": lines}
        if to == "folder" and directory:
            return store.export_folder(directory, layout, user=user, project=project)
        raise UsageError("use `memctl export --to jsonl` or `memctl export --to folder DIR [--layout memctl|claude]`",
                         code="bad_target")

    def human(d: dict) -> None:
        if "lines" in d:
            render.lines(d["lines"])
        else:
            render.message(f"exported {d['count']} memories to {d['target']} (layout {d['layout']})")

    def as_json() -> dict:
        data = action()
        if "lines" in data:
            data = {"count": data["count"], "records": [json.loads(line) for line in data.pop("lines")]}
        return data

    run("export", json_, as_json if json_ else action, human)


def log(
    user: NeedUser, session: NeedSession,
    text: Annotated[Optional[str], typer.Argument(metavar="TEXT", show_default=False,
                                                  help="The message; - or none reads stdin.")] = None,
    role: Annotated[str, typer.Option(metavar="ROLE", help="user, assistant, system, ...")] = "user",
    keep_secrets: Annotated[bool, typer.Option("--keep-secrets", help="Write secrets as typed (default: masked).")] = False,
    json_: Json = False,
) -> None:
    """Append a message to the session's transcript (transcripts/<user>/<session>.jsonl); secrets are masked."""
    run("log", json_, lambda: {"message": open_store().log(user, session, read_text(text), role, keep_secrets).model_dump()},
        lambda d: render.message(f"logged {d['message']['id']}"))


def extract(
    user: NeedUser, session: NeedSession,
    llm: Annotated[str, typer.Option("--llm", metavar="COMMAND",
                                     help="LLM command: extraction prompt on stdin, JSON candidates on stdout.")],
    every: Annotated[int, typer.Option(metavar="N", min=1, help="Extract only once this many new messages have gathered.")] = 1,
    file: Annotated[Optional[str], typer.Option("--file", metavar="FILE",
                                                help="Read messages from this JSONL transcript (- for stdin).")] = None,
    json_: Json = False,
) -> None:
    """Turn the session's new messages into memories through an LLM (source auto, rate-limited)."""
    def action() -> dict:
        transcript = read_input(file) if file else None
        result = open_store().extract(user, session, llm, every=every, transcript=transcript)
        data = {**result.model_dump(mode="json", exclude={"report"}), **result.report.to_data()}
        return _report_or_refuse(data, "candidates", json_)

    run("extract", json_, action, _render_extract)


def _render_extract(d: dict) -> None:
    if d.get("skipped"):
        render.message(f"skipped {len(d['skipped'])} message(s) in turns an explicit write already covered")
    if not d["called_model"]:
        if not d.get("skipped"):
            render.message(f"{d['pending']} new message(s) pending" + (
                f"; waiting for {d['every']}" if d["pending"] else "; nothing to extract"))
        return
    _render_then_exit(d)


COMMANDS = [("import", import_), ("export", export), ("log", log), ("extract", extract)]
