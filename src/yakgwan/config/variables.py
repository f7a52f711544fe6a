"""What ties a config field to the environment: the variable's name and what it means.

A field declared with :func:`env_field` carries an :class:`EnvVar` in its metadata;
``config.env`` reads the variable and ``config.table`` lists it in docs/configuration.md, the
default being what ``config.env`` builds when the variable is unset.
"""

from __future__ import annotations

from dataclasses import MISSING, Field, dataclass, field
from typing import Any

ENV_KEY = "yakgwan.env"


@dataclass(frozen=True)
class EnvVar:
    """One environment variable.

    ``choices``: the kind of the registry whose names are the allowed values (``"tokenizer"``);
    that registry checks the name when the component is built. ``values``: what may be given
    where there is no such set ("a folder"). ``default``: the default as the table shows it, where
    the field holds another form of it than the variable (bytes for a size given in MB).
    """

    name: str
    meaning: str
    values: str = ""
    choices: str = ""
    default: str = ""

    def __post_init__(self) -> None:
        if not self.name.startswith("YAKGWAN_"):
            raise ValueError(f"environment variable {self.name!r}: yakgwan's variables start with YAKGWAN_")
        if not self.meaning:
            raise ValueError(f"environment variable {self.name}: say what it means")


def env_field(var: EnvVar, default: Any = MISSING, *, repr: bool = True) -> Any:
    """A dataclass field fed by ``var`` (``repr=False`` for a secret)."""
    return field(default=default, repr=repr, metadata={ENV_KEY: var})


def env_var(f: Field[Any]) -> EnvVar | None:
    """The variable a field is fed by, if any."""
    var = f.metadata.get(ENV_KEY)
    return var if isinstance(var, EnvVar) else None
