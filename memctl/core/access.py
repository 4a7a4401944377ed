"""Who may see and change which memories: roles per project and visibility per memory (pure rules).

With no actor (one person's own directory) nothing is restricted. With an actor (`--actor`,
MEMCTL_ACTOR, or the authenticated user of a server request):

- a personal memory (`users/<name>/`) belongs to its user: only that user sees or changes it;
- a project with a members table (`[projects.NAME.members]` in memctl.toml: person = role) is
  managed: viewers read, editors also create and change or forget their own memories, admins and
  owners change everything; people who are not members see only `public` memories;
- a project without a members table is open: everyone reads and writes, as before roles existed;
- `visibility`: `public` (anyone who can read the directory), `members` (the default in a managed
  project: members only), `owner_only` (only the memory's author). Any other value (`private`,
  `Owner_Only`, another tool's word) fails closed: the memory is treated as `owner_only`, and
  `unknown_visibility` lets doctor and the command that met it say so.

The rules work on plain field dicts (catalog records, database rows) as well as on memories, so
the stores can filter before anything is validated or leaves the database.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping

Role = Literal["viewer", "editor", "admin", "owner"]
ROLES: tuple[Role, ...] = ("viewer", "editor", "admin", "owner")
VISIBILITIES = ("public", "members", "owner_only")
Action = Literal["create", "change"]  # change: edit, forget, restore, supersede, merge


@dataclass(frozen=True)
class Access:
    """An actor and the member tables of the managed projects (hashable: part of a recall's filter)."""

    actor: str
    members: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()

    @classmethod
    def of(cls, actor: str, members: Mapping[str, Mapping[str, str]]) -> "Access":
        """From an actor name and {project: {person: role}}."""
        table = tuple(sorted((project, tuple(sorted(people.items()))) for project, people in members.items()))
        return cls(actor=actor, members=table)

    def managed(self, project: str | None) -> bool:
        """True when the project has a members table."""
        return project is not None and any(name == project for name, _ in self.members)

    def role(self, project: str | None) -> str | None:
        """The actor's role in a project, or None."""
        for name, people in self.members:
            if name == project:
                return dict(people).get(self.actor)
        return None


def access_view(memory: Any) -> dict[str, Any]:
    """The fields the rules read, from a Memory."""
    return {"scope": memory.scope, "user": memory.user, "project": memory.project,
            "visibility": memory.visibility, "author": memory.author}


def unknown_visibility(value: Any) -> bool:
    """True for a visibility the rules do not know (none at all is the folder's default, not unknown)."""
    return value is not None and value != "" and value not in VISIBILITIES


def visibility_problem(path: str, value: Any) -> str:
    """What doctor and a command that met one say about an unknown visibility."""
    return (f"{path}: unknown visibility {value!r}: only its author sees it "
            f"(use {', '.join(VISIBILITIES)})")


def effective_visibility(value: Any, managed: bool) -> str:
    """The visibility the rules apply: the folder's default when none is given (members in a managed
    project, else public), owner_only for a value they do not know (fail closed)."""
    if value is None or value == "":
        return "members" if managed else "public"
    return value if value in VISIBILITIES else "owner_only"


def _owner(record: Mapping[str, Any]) -> tuple[str, str | None]:
    """("user", name) for a personal memory, ("project", name) for a project one."""
    scope = record.get("scope", "user")
    if scope == "project" or (scope == "session" and not record.get("user")):
        return "project", record.get("project")
    return "user", record.get("user")


def can_read(access: Access | None, record: Mapping[str, Any]) -> bool:
    """Whether the actor may see a memory (a field dict)."""
    if access is None:
        return True
    kind, name = _owner(record)
    if kind == "user":
        return name == access.actor
    visibility = effective_visibility(record.get("visibility"), access.managed(name))
    if visibility == "owner_only":
        return record.get("author") == access.actor
    if visibility == "members" and access.managed(name):
        return access.role(name) is not None
    return True


def write_refusal(access: Access | None, action: Action, record: Mapping[str, Any]) -> str | None:
    """Why the actor may not create or change this memory, or None when they may."""
    if access is None:
        return None
    kind, name = _owner(record)
    if kind == "user":
        return None if name == access.actor else f"{access.actor} may not write {name}'s personal memories"
    if not can_read(access, record):
        return f"{access.actor} may not see this memory"
    if not access.managed(name):
        return None
    role = access.role(name)
    if role in ("owner", "admin"):
        return None
    if role == "editor" and (action == "create" or record.get("author") == access.actor):
        return None
    what = "add memories to" if action == "create" else "change other members' memories in"
    return f"{access.actor} ({role or 'not a member'}) may not {what} project {name}"
