"""Domain errors. The CLI is the only place that turns them into output and exit codes."""

from __future__ import annotations

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_REFUSED = 3
EXIT_NOT_FOUND = 4


class MemctlError(Exception):
    """Base error: a stable machine code, a one-line message, and an exit code."""

    code = "error"
    exit_code = EXIT_ERROR

    def __init__(self, message: str, *, code: str | None = None, data: object = None) -> None:
        super().__init__(message.splitlines()[0] if message else self.code)
        if code:
            self.code = code
        self.data = data

    @property
    def message(self) -> str:
        return str(self)


class UsageError(MemctlError):
    """Bad arguments or bad input from the caller."""

    code = "usage"
    exit_code = EXIT_USAGE


class InvalidMemory(MemctlError):
    """A memory (from a file, a flag or stdin) does not satisfy the file format."""

    code = "invalid_memory"
    exit_code = EXIT_USAGE


class InvalidId(UsageError):
    """An id-like argument that could escape the directory or is malformed."""

    code = "invalid_id"


class NotFound(MemctlError):
    """No memory (or directory) with that name."""

    code = "not_found"
    exit_code = EXIT_NOT_FOUND


class NoDirectory(MemctlError):
    """No memory directory could be located."""

    code = "no_directory"
    exit_code = EXIT_ERROR


class Refused(MemctlError):
    """Refused by policy: the gate, the rate limit, permissions."""

    code = "refused"
    exit_code = EXIT_REFUSED


class Forbidden(Refused):
    """The actor's role or the memory's visibility does not allow this."""

    code = "forbidden"


class ConfigError(MemctlError):
    """memctl.toml or an environment override is malformed."""

    code = "config"
    exit_code = EXIT_ERROR


class Conflict(MemctlError):
    """A memory changed on disk between reading and writing it; nothing was written."""

    code = "conflict"
    exit_code = EXIT_ERROR


class LockTimeout(MemctlError):
    """Another process held the directory's write lock for too long."""

    code = "locked"
    exit_code = EXIT_ERROR


class StoreError(MemctlError):
    """The memory store could not be reached or used (a database down, a schema too new)."""

    code = "store"
    exit_code = EXIT_ERROR
