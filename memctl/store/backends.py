"""Which repository keeps a directory's memories: its `[layout]` setting, or what the folder looks like."""

from __future__ import annotations

from pathlib import Path

from memctl.config import Config, LayoutSettings
from memctl.store.filerepo import FileRepository
from memctl.store.layout import ACTIVE_DIRS


def resolve_layout(root: Path, settings: LayoutSettings) -> LayoutSettings:
    """`auto` made definite (a folder of Claude Code topic files is `claude`, anything else `memctl`),
    and the claude layout's project filled in from the folder's name when not set."""
    kind = settings.kind
    if kind == "auto":
        if any((root / folder).is_dir() for folder in ACTIVE_DIRS):
            kind = "memctl"  # the common case, settled by a stat: no Claude Code module loaded
        else:
            from memctl.store.claudelayout import looks_like_claude

            kind = "claude" if looks_like_claude(root) else "memctl"
    project = settings.project
    if kind == "claude" and not project:
        from memctl.store.claudelayout import default_project

        project = default_project(root)
    return LayoutSettings(kind=kind, project=project)


def open_repository(root: Path, config: Config) -> FileRepository:
    """The repository for `root` (config.layout resolved): FileRepository, or ClaudeRepository."""
    if config.layout.kind == "claude":
        from memctl.core.claudefile import TopicDefaults
        from memctl.store.claude import ClaudeRepository

        return ClaudeRepository(root, TopicDefaults(project=config.layout.project, type=config.default_type))
    return FileRepository(root)
