"""How many threads an embedding model may use: the cores this process may run on that are not busy.

Both runtimes size their pools to every core by default, and their threads wait by spinning: on a
machine whose cores other jobs already use, a pool of two threads on two busy cores doubled the
CPU time of a build for no gain in wall time (bench/speed.py prints both). One thread per free
core, and at least one, keeps the work the same and stops the spinning.
"""

from __future__ import annotations

import os


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, else the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def free_cores() -> int:
    """Usable cores minus the load of the last minute (rounded), at least one."""
    cores = usable_cores()
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average: assume the machine is ours
        return cores
    return min(cores, max(1, round(cores - load)))
