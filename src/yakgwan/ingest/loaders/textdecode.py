"""Decode text bytes: UTF-8, then Korean legacy encodings (cp949 ⊃ EUC-KR), with mojibake repair.

Pure functions over bytes/str; the loaders turn the failures into ``InputError``.
"""

from __future__ import annotations

import re

from yakgwan.messages import Message, msg

_HANGUL = re.compile(r"[\uac00-\ud7a3]")
# Latin-1 supplement / Greek letters that appear when UTF-8 Korean bytes are read as a
# single-byte code page (e.g. "í•œêµ­" for "한국"). Typographic punctuation (“ ” ‘ ’ — …) is
# not counted: ordinary Korean text uses it.
_MOJIBAKE_CHARS = re.compile(r"[\u00c0-\u00ff\u0370-\u03ff\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192]")
_MOJIBAKE_CODECS = ("cp1252", "latin-1", "cp1253")
# UTF-8 lead bytes of Hangul (0xEA–0xED) as they appear in cp1252/latin-1 ("ê" "ë" "ì" "í") or
# cp1253 ("κ" "λ" "μ" "ν"), followed by a continuation-byte character: the mojibake signature.
_UTF8_LEAD = re.compile(r"[\u00ea-\u00ed\u03ba-\u03bd][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013-\u203a\u20ac\u2122\u0384-\u038f\ufffd]")


class DecodeFailure(ValueError):
    """Bytes that are not text in any supported encoding; ``message`` is the reason (``str(self)``
    its English)."""

    def __init__(self, message: Message) -> None:
        super().__init__(str(message))
        self.message = message

    def __reduce__(self) -> tuple[type, tuple[Message]]:
        return (type(self), (self.message,))


def hangul_share(text: str) -> float:
    letters = sum(1 for ch in text if ch.isalpha())
    return len(_HANGUL.findall(text)) / letters if letters else 0.0


def looks_binary(data: bytes) -> bool:
    """NUL bytes or a high share of C0 control bytes (other than tab/newline/CR/FF) mean binary."""
    sample = data[:65536]
    if not sample:
        return False
    if b"\x00" in sample:
        return True
    controls = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13, 27))
    return controls / len(sample) > 0.01


def repair_mojibake(text: str) -> tuple[str, str | None]:
    """If ``text`` is UTF-8 that was decoded with a single-byte code page and saved again,
    undo it. Returns (text, codec undone) or (text, None) when it does not look like mojibake."""
    suspicious = len(_MOJIBAKE_CHARS.findall(text))
    if suspicious < 4 or suspicious < 0.05 * max(1, sum(ch.isalpha() for ch in text)):
        return text, None
    for codec in _MOJIBAKE_CODECS:
        try:
            fixed = text.encode(codec).decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            continue
        if hangul_share(fixed) > hangul_share(text):
            return fixed, codec
    if hangul_share(text) >= 0.3:
        return text, None  # real Korean text with some Western letters in it (names, French, Greek symbols)
    if not _UTF8_LEAD.search(text):
        return text, None  # accented Western text, not UTF-8 read with the wrong code page
    raise DecodeFailure(msg("decode.mojibake"))


def decode_text(data: bytes) -> tuple[str, str]:
    """Decode bytes to text. Returns (text, encoding name); raises DecodeFailure with the reason.

    Order: BOMs, strict UTF-8, strict cp949 (covers EUC-KR) when it yields Hangul, then
    charset-normalizer's best guess. Mojibake in the decoded text is repaired or refused.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return _finish(data.decode("utf-16"), "utf-16")
        except UnicodeDecodeError:
            raise DecodeFailure(msg("decode.bad_utf16")) from None
    if looks_binary(data):
        raise DecodeFailure(msg("decode.binary"))
    if data.startswith(b"\xef\xbb\xbf"):
        data, enc = data[3:], "utf-8-sig"
    else:
        enc = "utf-8"
    try:
        return _finish(data.decode("utf-8"), enc)
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("cp949")
        if hangul_share(text) > 0.2:
            return _finish(text, "cp949")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None or best.encoding is None:
        raise DecodeFailure(msg("decode.unknown"))
    return _finish(str(best), best.encoding)


def decode_prefix(data: bytes, limit: int) -> tuple[str, str]:
    """``decode_text`` of the first ``limit`` bytes (enough to tell what a file is), the cut
    moved back by up to 3 bytes so that it does not split a character (a UTF-8 Hangul syllable
    is 3 bytes, a cp949 one 2, a UTF-16 unit 2)."""
    if len(data) <= limit:
        return decode_text(data)
    failure: DecodeFailure | None = None
    for back in range(4):
        try:
            return decode_text(data[: limit - back])
        except DecodeFailure as exc:
            failure = failure or exc
    assert failure is not None
    raise failure


def _finish(text: str, encoding: str) -> tuple[str, str]:
    fixed, undone = repair_mojibake(text)
    if undone:
        return fixed, f"{encoding} (repaired mojibake via {undone})"
    return text, encoding
