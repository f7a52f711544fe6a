"""The message catalogue: every string a user reads, in Korean and in English, under one key.

``catalogue.json`` (beside this file) holds ``{key: {"ko": text, "en": text}}``. A text may name
parameters as ``{name}``; both languages name the same ones. A :class:`Message` is a key with its
parameters, made by :func:`msg` (which checks both against the catalogue at once, so a typo fails
where it is written, not when a user reads it) and rendered in a language by :meth:`Message.text`.
A parameter may itself be a Message, rendered in the same language.

Korean is the default; English is chosen by the toggle in the web app, ``Accept-Language`` on the
HTTP API (:func:`negotiate`) and the locale on the command line (``config.env``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Mapping, Sequence, Union

LANGS = ("ko", "en")
DEFAULT_LANG = "ko"
FIELD = re.compile(r"\{(\w+)\}")

# a parameter: a value, a message (rendered in the same language), or a sequence of them (each
# rendered, then joined as they are: the items carry their own separators)
Param = Union[str, int, float, "Message", tuple[Union[str, int, float, "Message"], ...]]


def fields_of(template: str) -> frozenset[str]:
    """The parameter names a template uses. Pure."""
    return frozenset(FIELD.findall(template))


def fill(template: str, values: Mapping[str, str]) -> str:
    """``template`` with each ``{name}`` replaced by ``values[name]``; other braces stay. Pure."""
    return FIELD.sub(lambda m: values[m.group(1)] if m.group(1) in values else m.group(0), template)


@dataclass(frozen=True)
class Catalogue:
    """Every key's text in each of :data:`LANGS`."""

    texts: Mapping[str, Mapping[str, str]]

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> "Catalogue":
        texts = {k: v for k, v in data.items() if not k.startswith("_")}
        for key, entry in texts.items():
            if not isinstance(entry, dict) or set(entry) != set(LANGS) or not all(isinstance(entry[lang], str) and entry[lang].strip() for lang in LANGS):
                raise ValueError(f"message catalogue: {key!r} needs a non-empty text in each of {', '.join(LANGS)}, got {entry!r}")
            if fields_of(entry["ko"]) != fields_of(entry["en"]):
                raise ValueError(f"message catalogue: {key!r} names {sorted(fields_of(entry['ko']))} in Korean "
                                 f"but {sorted(fields_of(entry['en']))} in English")
        return cls(texts)

    def has(self, key: str) -> bool:
        return key in self.texts

    def require(self, key: str, params: Mapping[str, object]) -> None:
        """Raise when ``key`` is not in the catalogue or ``params`` are not exactly its fields."""
        if key not in self.texts:
            raise KeyError(f"message catalogue has no key {key!r}")
        want = fields_of(self.texts[key]["ko"])
        if set(params) != want:
            raise KeyError(f"message {key!r} takes {sorted(want)}, given {sorted(params)}")

    def text(self, key: str, lang: str, params: Mapping[str, Param] | None = None) -> str:
        if lang not in LANGS:
            raise ValueError(f"language {lang!r}: one of {', '.join(LANGS)}")
        self.require(key, params or {})
        values = {k: _render(v, lang) for k, v in (params or {}).items()}
        return fill(self.texts[key][lang], values)

    def for_lang(self, lang: str) -> dict[str, str]:
        """Every key's raw text in ``lang`` (what the web app loads)."""
        return {k: v[lang] for k, v in self.texts.items()}


def _render(value: Param, lang: str) -> str:
    if isinstance(value, tuple):
        return "".join(_render(v, lang) for v in value)
    return value.text(lang) if isinstance(value, Message) else str(value)


def _param_json(value: Param) -> object:
    if isinstance(value, tuple):
        return [_param_json(v) for v in value]
    return value.to_json() if isinstance(value, Message) else value


def _param_from_json(value: object) -> Param:
    if isinstance(value, list):
        return tuple(_param_from_json(v) for v in value)  # type: ignore[misc]
    if isinstance(value, dict):
        return Message.from_json(value)
    return value  # type: ignore[return-value]


@cache
def catalogue() -> Catalogue:
    """The catalogue shipped with the package (read once; it is constant data)."""
    raw = resources.files("yakgwan.messages").joinpath("catalogue.json").read_text("utf-8")
    return Catalogue.from_json(json.loads(raw))


@dataclass(frozen=True)
class Message:
    """A catalogue key and its parameters; the text is made only when a language is known."""

    key: str
    params: tuple[tuple[str, Param], ...] = ()

    def text(self, lang: str) -> str:
        return catalogue().text(self.key, lang, dict(self.params))

    def __str__(self) -> str:  # logs, tracebacks and English-only callers
        return self.text("en")

    def to_json(self) -> dict[str, object]:
        return {"key": self.key, "params": {k: _param_json(v) for k, v in self.params}}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> "Message":
        params = data.get("params") or {}
        if not isinstance(params, dict):
            raise TypeError(f"message {data.get('key')!r}: params must be an object, got {params!r}")
        return msg(str(data["key"]), **{k: _param_from_json(v) for k, v in params.items()})


def msg(key: str, /, **params: Param) -> Message:
    """The message ``key`` with ``params``; raises KeyError at once when the key is unknown or the
    parameters are not exactly the ones its texts name."""
    catalogue().require(key, params)
    return Message(key, tuple(sorted(params.items())))


def text(message: "Message | str", lang: str) -> str:
    """A message in ``lang``; a plain string (data: a file name, a quote) as it is."""
    return message.text(lang) if isinstance(message, Message) else message


def joined(items: "Sequence[Param]", sep: str = "; ") -> tuple:
    """``items`` with ``sep`` between them, as one parameter (each item rendered in the
    message's language). Pure."""
    out: list = []
    for i, item in enumerate(items):
        out += [sep, item] if i else [item]
    return tuple(out)


TAG = "$message"  # the one key of a message kept in JSON for its reader's language (:func:`said`)

def said(value: "Message | str | None", lang: str | None) -> "str | dict[str, object] | None":
    """``value`` for a JSON answer: its text in ``lang``; with ``lang`` None (a job's result,
    stored once and read by readers of either language), a message stays a message, tagged
    ``{"$message": {key, params}}``, and :func:`render_said` says it when it is read. A plain
    string (data, or a record written as text) and None are kept as they are. Pure."""
    if not isinstance(value, Message):
        return value
    return value.text(lang) if lang is not None else {TAG: value.to_json()}


def render_said(value: object, lang: str) -> object:
    """``value`` (a JSON answer) with every tagged message (:func:`said`) said in ``lang``; a
    message this catalogue does not know (a record of another version) reads as its key. Pure."""
    if isinstance(value, dict):
        if set(value) == {TAG} and isinstance(value[TAG], dict):
            try:
                return Message.from_json(value[TAG]).text(lang)
            except (KeyError, TypeError, ValueError):
                return str(value[TAG].get("key", ""))
        return {k: render_said(v, lang) for k, v in value.items()}
    if isinstance(value, list):
        return [render_said(v, lang) for v in value]
    return value


def negotiate(accept_language: str | None) -> str:
    """The language of :data:`LANGS` an ``Accept-Language`` header prefers (RFC 9110 §12.5.4:
    comma-separated ranges, each with an optional ``;q=`` weight, 1 when absent; a range matches
    a language when it equals it or is a prefix of it followed by ``-``). Korean when the header
    is absent, names neither, or weighs them the same. Pure."""
    best: dict[str, float] = {}
    star: float | None = None  # "*": the weight of every language the header does not name
    for part in (accept_language or "").split(","):
        bits = part.strip().split(";")
        tag = bits[0].strip().lower()
        q = 1.0
        for b in bits[1:]:
            name, _, value = b.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = min(max(float(value), 0.0), 1.0)
                except ValueError:
                    q = 0.0
        if tag == "*":
            star = q if star is None else max(star, q)
        for lang in LANGS:
            if tag == lang or tag.startswith(lang + "-"):
                best[lang] = max(best.get(lang, 0.0), q)
    weight = {lang: best.get(lang, star if star is not None else 0.0) for lang in LANGS}
    return "en" if weight["en"] > weight["ko"] and weight["en"] > 0 else DEFAULT_LANG


def locale_language(values: tuple[str | None, ...]) -> str:
    """The CLI's language from the locale variables in POSIX order of precedence (``LC_ALL``,
    ``LC_MESSAGES``, ``LANG``): the first one set decides; Korean when it names ``ko``
    (``ko_KR.UTF-8``), English otherwise (``C``, ``en_US.UTF-8``, nothing set). Pure."""
    for value in values:
        if value:
            return "ko" if re.split(r"[_.@-]", value.lower(), maxsplit=1)[0] == "ko" else "en"
    return "en"
