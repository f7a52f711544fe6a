"""One exception hierarchy; every message names the thing at fault and the reason."""

from __future__ import annotations

import errno
import json
import re

from yakgwan.messages import Message, msg, text


class YakgwanError(Exception):
    """Base of every error yakgwan raises on purpose. Its message is a catalogue :class:`Message`
    (shown in the reader's language by :meth:`localized`) or, where it is not yet one, English
    text; ``str()`` is always the English."""

    def __init__(self, message: "str | Message" = "") -> None:
        self.message = message if isinstance(message, Message) else None
        super().__init__(str(message))

    def localized(self, lang: str) -> str:
        """The message in ``lang`` (``ko`` or ``en``); English text stays English."""
        return self.message.text(lang) if self.message is not None else str(self)

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:  # pickled as it was made (a worker process sends it back)
        return (type(self), (self.message if self.message is not None else str(self),))


# the characters that change the direction text is shown in (Unicode's bidirectional formatting
# characters, UAX #9: embeddings, overrides, isolates and marks): "\u202eevil.pdf" shows as a
# name it is not
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029" + "".join(sorted(BIDI_CONTROLS)) + "]")


def one_line(name: str) -> str:
    """``name`` (a file name, a path) with every control character and every character that
    changes the text's direction (:data:`BIDI_CONTROLS`) written as an escape (``\\n``, ``\\t``,
    ``\\x1b``, ``\\u202e``…), so that a line that shows it stays one line and shows the name as it
    is. Pure."""
    return _CONTROL.sub(lambda m: _escape(m.group(0)), name)


# what json.dumps(ensure_ascii=False) leaves raw inside a string (it escapes U+0000–U+001F itself,
# and the newlines and spaces of its indent are no part of a string)
_RAW_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029" + "".join(sorted(BIDI_CONTROLS)) + "]")


def json_text(value: object, indent: int = 2) -> str:
    """``value`` as JSON that is safe to print: letters of every script as they are, but every
    control character and every character that changes the text's direction
    (:data:`BIDI_CONTROLS`) as a ``\\uXXXX`` escape — the same JSON value, a different spelling
    (``json.dumps`` leaves U+202E and C1 controls raw). Pure."""
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group(0)):04x}", json.dumps(value, ensure_ascii=False, indent=indent))


def _escape(ch: str) -> str:
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return named.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")


class InputError(YakgwanError):
    """A file or argument the user gave cannot be used.

    ``path`` names the file (when there is one) and ``reason`` says why, so the CLI can print
    one line: ``PATH: REASON``.
    """

    def __init__(self, path: str | None, reason: "str | Message") -> None:
        self.path = path
        self.reason = str(reason)  # English
        self.reason_message = reason if isinstance(reason, Message) else None
        Exception.__init__(self, f"{one_line(path)}: {self.reason}" if path else self.reason)
        self.message = None

    @property
    def given_reason(self) -> "Message | str":
        """The reason as it was given: its catalogue message, or its (English) text."""
        return self.reason_message or self.reason

    def reason_in(self, lang: str) -> str:
        """The reason alone, in ``lang`` when it is a catalogue message."""
        return text(self.given_reason, lang)

    def localized(self, lang: str) -> str:
        reason = self.reason_in(lang)
        return f"{one_line(self.path)}: {reason}" if self.path else reason

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:  # pickled as it was made (a worker process sends it back)
        return (type(self), (self.path, self.given_reason))


def as_message(exc: BaseException) -> "Message | str":
    """An error as a message to show in a reader's language: an ``InputError`` as "PATH:
    REASON", any other of yakgwan's errors by its message; else its English text."""
    if isinstance(exc, InputError):
        reason = exc.given_reason
        return msg("error.at_file", file=one_line(exc.path), reason=reason) if exc.path else reason
    if isinstance(exc, YakgwanError) and exc.message is not None:
        return exc.message
    return str(exc)


class NoTextLayer(InputError):
    """A PDF whose pages are pictures of text (a scan): an OCR reader can still read it."""


class IndexStoreError(YakgwanError):
    """The index directory is missing, unreadable, or from an incompatible version."""


class VersionGone(IndexStoreError):
    """The committed version a view reads is no longer kept (newer commits pruned it): open the
    index again and read the current one."""


class UnknownName(YakgwanError):
    """A name (pipeline, embedder, loader) that the registry does not hold.

    The message lists what is available, generated from the registry keys.
    """

    def __init__(self, kind: str, name: str, available: list[str]) -> None:
        self.kind = kind
        self.name = name
        self.available = sorted(available)
        Exception.__init__(self, f"unknown {kind} {name!r}; available: {', '.join(self.available)}")
        self.message = msg("error.unknown_name", kind=kind, name=repr(name), available=", ".join(self.available))

    def __reduce__(self) -> tuple[type, tuple[str, str, list[str]]]:
        return (type(self), (self.kind, self.name, self.available))


class ProviderError(YakgwanError):
    """A model provider (embedder, LLM) failed or is not installed."""


class PromptTooLongError(ProviderError):
    """The prompt (with the room kept for the answer) does not fit in the model's context."""


def storage_problem(exc: OSError) -> Message | None:
    """In words, an error of the disk rather than of yakgwan: full, read-only, not permitted;
    None for any other. (numpy reports a short write as "N requested and M written", no errno.)"""
    where = f" ({one_line(str(exc.filename))})" if exc.filename else ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT) or re.fullmatch(r"\d+ requested and \d+ written", str(exc)):
        return msg("error.disk_full", where=where)
    if exc.errno == errno.EROFS:
        return msg("error.read_only", where=where)
    if exc.errno in (errno.EACCES, errno.EPERM):
        return msg("error.permission", where=where, why=exc.strerror or "")
    return None
