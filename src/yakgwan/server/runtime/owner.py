"""Which server process a job belongs to, and whether that process has stopped.

A job's ``owner`` is ``host:pid:start`` (``start`` the process's start time in clock ticks since
boot, read from ``/proc`` where there is one, so that a later process given the same pid is not
taken for it). A process on this host is known to have stopped when no process has its pid or
the one that has it started at another time; one on another host is never known to have stopped
from here (its jobs go stale instead, when they stop saying they are alive)."""

from __future__ import annotations

import os
import socket
from pathlib import Path


def _started(pid: int) -> str:
    """The start time of process ``pid`` in clock ticks since boot ('' where it cannot be read)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    fields = stat[stat.rfind(")") + 2:].split()  # after the command name, which may hold spaces
    return fields[19] if len(fields) > 19 else ""


def this_process() -> str:
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{_started(pid)}"


def on_this_host(owner: str | None) -> bool:
    """Whether ``owner`` names a process of this host (whose liveness is known exactly here)."""
    parts = (owner or "").rsplit(":", 2)
    return len(parts) == 3 and parts[1].isdigit() and parts[0] == socket.gethostname()


def stopped(owner: str | None) -> bool:
    """Whether ``owner`` (a :func:`this_process` of some process) is known to have stopped."""
    if not owner or not on_this_host(owner):
        return False
    _, pid_text, start = owner.rsplit(":", 2)
    pid = int(pid_text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # a process of another user has the pid: not ours any more, or not readable
        pass
    if start and (now := _started(pid)) and now != start:
        return True
    return False
