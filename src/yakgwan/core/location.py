"""Where an index lives: a folder (the embedded store) or a database URI.

``--index``, ``YAKGWAN_INDEX`` and the services take either. A value that starts with
``postgresql://`` or ``postgres://`` is a libpq URI naming a PostgreSQL database (and, in its
``collection`` parameter, one collection inside it); anything else is a folder path.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

IndexLocation = Path | str  # a folder, or a database URI (kept as the exact string the user gave)

DATABASE_SCHEMES = ("postgresql", "postgres")
SECRET_PARAMS = ("password", "sslpassword")


def is_database_uri(value: object) -> bool:
    """Whether ``value`` names a database (a ``postgresql://`` or ``postgres://`` URI). Pure."""
    return isinstance(value, str) and value.split("://", 1)[0].lower() in DATABASE_SCHEMES and "://" in value


def index_location(value: str | Path) -> IndexLocation:
    """The location ``value`` names: the URI string itself for a database, else a ``Path``
    (a URI must not go through ``Path``, which folds its ``//``). Pure."""
    if isinstance(value, Path):
        return value
    return value if is_database_uri(value) else Path(value)


def display_location(location: IndexLocation) -> str:
    """``location`` as it may be shown or logged: a URI's password replaced by ``***``. Pure."""
    if not is_database_uri(location):
        return str(location)
    parts = urlsplit(str(location))
    netloc = parts.netloc
    if "@" in netloc:
        user, host = netloc.rsplit("@", 1)
        if ":" in user:
            user = user.split(":", 1)[0] + ":***"
        netloc = f"{user}@{host}"
    query = urlencode([(k, "***" if k in SECRET_PARAMS else v) for k, v in parse_qsl(parts.query, keep_blank_values=True)], quote_via=quote)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
