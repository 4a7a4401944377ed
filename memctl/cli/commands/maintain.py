"""Keeping memory in order: dedupe, conflicts, compact, index (MEMORY.md), reindex, doctor."""

from __future__ import annotations

from typing import Any, List, Optional

import typer
from typing_extensions import Annotated

from memctl.cli import output
from memctl.cli.app import Json, Llm, Project, Quiet, User, open_store, run
from memctl.errors import MemctlError

DryRun = Annotated[bool, typer.Option("--dry-run", help="Show the plan; change nothing.")]


def dedupe(
    user: User = None, project: Project = None,
    threshold: Annotated[Optional[float], typer.Option(metavar="0..1", min=0.0, max=1.0,
                                                       help="Cosine for comparing two memories (default: the gate's duplicate_threshold).")] = None,
    dry_run: DryRun = False,
    resolve: Annotated[Optional[str], typer.Option(metavar="STRATEGY", help="Resolve conflicts: 'newest' supersedes the older.")] = None,
    llm: Llm = None, json_: Json = False,
) -> None:
    """Merge repeats already on disk; list conflicting pairs (resolved only with --resolve or --llm)."""
    run("dedupe", json_, lambda: open_store().dedupe(user=user, project=project, threshold=threshold, dry_run=dry_run,
                                                     resolve=resolve, llm=llm).model_dump(mode="json"), _render_dedupe)


def _render_dedupe(d: dict) -> None:
    plan = d["plan"]
    output.rows(["survivor", "merged", "reason"],
                [[m["survivor"], ", ".join(m["merged"]), output.short(m["reason"], 90)] for m in plan["merges"]],
                title=f"{len(plan['merges'])} merges")
    output.rows(["older", "newer", "resolved", "reason"],
                [[c["older"], c["newer"], "superseded" if c["resolved"] else "open", output.short(c["reason"], 90)]
                 for c in plan["conflicts"]], title=f"{len(plan['conflicts'])} conflicts")
    if d["similar"]:
        output.rows(["a", "b", "cosine"], [[p["a"], p["b"], p["cosine"]] for p in d["similar"]],
                    title=f"{len(d['similar'])} similar pairs left alone")
    done = "dry run: nothing changed" if d["dry_run"] else (
        f"merged {len(d['merged'])}, superseded {len(d['superseded'])}, linked {len(d['linked'])}")
    output.message(f"{d['considered']} memories considered at threshold {d['threshold']:g}; {done}")
    for note in d["notes"]:
        output.warn(note)


def conflicts(user: User = None, project: Project = None, json_: Json = False, quiet: Quiet = False) -> None:
    """List open possibly-conflicting pairs of active memories, newest first."""
    run("conflicts", json_,
        lambda: {"conflicts": [c.model_dump(mode="json") for c in open_store().conflicts(user, project)]},
        lambda d: output.rows(["newer", "older", "owner", "newer content", "older content"],
                              [[c["newer"], c["older"], c["owner"], output.short(c["newer_content"], 60),
                                output.short(c["older_content"], 60)] for c in d["conflicts"]],
                              title=f"{len(d['conflicts'])} open conflicts"), quiet)


def compact(
    user: Annotated[Optional[str], typer.Option("--user", "-u", metavar="USER", help="Only this user's memories.")] = None,
    project: Annotated[Optional[str], typer.Option("--project", "-p", metavar="PROJECT", help="Only this project's memories.")] = None,
    dry_run: DryRun = False,
    llm: Annotated[Optional[str], typer.Option(metavar="COMMAND", help="Command writing consolidation summaries (stdin -> stdout).")] = None,
    undo: Annotated[bool, typer.Option("--undo", help="Reverse the last applied compaction.")] = False,
    json_: Json = False,
) -> None:
    """Keep memory small and current: every step is journaled and can be undone."""
    if undo:
        run("compact", json_, lambda: open_store().undo_compaction(), lambda d: output.message(
            f"undid {d['plan_id']}: {len(d['restored'])} memories put back, {len(d['removed'])} summaries removed"))
        return
    run("compact", json_, lambda: open_store().compact(user=user, project=project, dry_run=dry_run, llm=llm), _render_plan)


def _render_plan(data: dict) -> None:
    actions = data["plan"]["actions"]
    if data.get("resumed"):
        output.message(f"resumed and finished the interrupted compaction {data['resumed']}")
    if not actions:
        output.message("nothing to compact")
        return
    rows = [[a["kind"], ", ".join(a["ids"]), a.get("winner") or a.get("target_scope") or "", a["reason"]] for a in actions]
    verb = "would apply" if data["dry_run"] else f"applied {data['plan_id']}"
    output.rows(["action", "memories", "kept / to", "why"], rows, title=f"compact: {verb} ({len(actions)} actions)")


def index(
    user: Annotated[Optional[List[str]], typer.Option("--user", "-u", metavar="USER", help="Render users/<U>/MEMORY.md (repeatable).")] = None,
    project: Annotated[Optional[List[str]], typer.Option("--project", "-p", metavar="PROJECT",
                                                         help="Render projects/<P>/MEMORY.md (repeatable).")] = None,
    all_: Annotated[bool, typer.Option("--all", help="Every user and project with active memories.")] = False,
    json_: Json = False,
) -> None:
    """Regenerate MEMORY.md from MEMORY.md.template, within the configured budget."""
    run("index", json_, lambda: {"indexes": open_store().write_memory_md(user or [], project or [], all_)},
        lambda d: output.rows(["path", "changed", "listed", "omitted", "lines", "bytes"],
                              [[i["path"], i["changed"], i["listed"], i["omitted"], i["lines"], i["bytes"]]
                               for i in d["indexes"]], title="MEMORY.md"))


def reindex(json_: Json = False,
            keyword_only: Annotated[bool, typer.Option("--keyword-only", help="Skip the vectors.")] = False,
            full: Annotated[bool, typer.Option("--full", help="Embed with the second model now too "
                                               "(otherwise its vectors are filled lazily).")] = False) -> None:
    """Rebuild every cache (catalog, keyword index, vectors) from the files."""

    def action() -> dict:
        with _Progress(not json_ and output.is_terminal()) as tick:
            return open_store().reindex(vectors=not keyword_only, progress=tick, full=full)

    run("reindex", json_, action, lambda d: output.message(_reindexed(d)))


def _reindexed(d: dict) -> str:
    """What `reindex` says: counts, and the second model's vectors still to fill."""
    text = f"reindexed {d['memories']} memories ({d['embedded']} embedded) in {d['seconds']:.1f} s"
    if d.get("pending"):
        text += (f"; the second model's vectors of {d['pending']} are filled lazily (recall fuses it once they "
                 "are complete; `memctl serve` fills them in the background, `reindex --full` now)")
    return text


class _Progress:
    """A rich progress bar on stderr (or nothing, for --json and pipes)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: Any = None
        self.tasks: dict[str, Any] = {}

    def __enter__(self) -> Any:
        if self.enabled:
            from rich.progress import Progress

            self.bar = Progress(console=output.console(stderr=True), transient=True)
            self.bar.start()
        return self.tick

    def tick(self, stage: str, done: int) -> None:
        if self.bar is None:
            return
        if stage not in self.tasks:
            self.tasks[stage] = self.bar.add_task(stage, total=None)
        self.bar.update(self.tasks[stage], completed=done)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def doctor(fix: Annotated[bool, typer.Option("--fix", help="Repair what needs no person (leftovers of interrupted writes).")] = False,
           json_: Json = False) -> None:
    """Check the directory: broken or misplaced files, duplicate ids, leftovers. Exit 1 if anything is wrong."""

    def action() -> dict:
        report = open_store().doctor(fix=fix)
        if report["problems"]:
            raise MemctlError(f"{len(report['problems'])} problem(s) found", code="problems", data=report)
        return report

    def human(d: dict) -> None:
        output.message(f"{d['memories']} memories, no problems"
                       + (f" (removed {len(d['removed'])} temp files)" if d["removed"] else ""))

    run("doctor", json_, action, human)


COMMANDS = [("dedupe", dedupe), ("conflicts", conflicts), ("compact", compact), ("index", index),
            ("reindex", reindex), ("doctor", doctor)]
