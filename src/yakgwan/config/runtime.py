"""Switches of one run of the program that belong to no component: tracebacks on internal
errors, and where the shared data folder is."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from yakgwan.config.variables import EnvVar, env_field


@dataclass(frozen=True)
class RuntimeConfig:
    debug: bool = env_field(EnvVar(
        "YAKGWAN_DEBUG",
        "an internal error raises with its traceback instead of one line on stderr, and a file that "
        "breaks a loader stops the ingest instead of being listed",
        values="any non-empty value (`0` too)", default="unset",
    ), False)
    shared_dir: Path | None = env_field(EnvVar(
        "YAKGWAN_SHARED",
        "the shared data folder (the KB policy, the evaluation sets) for `yakgwan demo`, when it is "
        "not `../shared` beside the repository or the working folder",
        values="a folder",
    ), None)
