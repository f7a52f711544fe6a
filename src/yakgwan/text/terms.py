"""The term rules of Korean lexical (BM25) search: pure functions that turn an analyser's
morphemes into index terms.

Each analyser (``text.analyzers.kiwi``, ``text.analyzers.mecab``) only converts its own output
into ``Morph`` records with character offsets; ``terms_from_morphs`` applies the same rules to
both:

* **Content morphemes only**: nouns (NNG, NNP), roots (XR), verb and adjective stems (VV, VA),
  foreign words (SL, lower-cased), hanja (SH), numbers (SN). Particles, endings, suffixes,
  dependent nouns, pronouns and punctuation are dropped.
* **Prefixes stay on their noun.** A prefix morpheme (XPN) that touches the following noun (no
  space between, by character offset) is merged with it: 재+가입 → ``재가입``. A *negating*
  Sino-Korean prefix (``NEGATING_PREFIXES``: 비 非, 불/부 不, 미 未, 무 無) flips the meaning of
  its noun, so its merged token is emitted **without** the bare noun: 비+급여 → ``비급여`` only,
  never ``급여``; 부+담보 → ``부담보``; 무+배당 → ``무배당``; 미+지급 → ``미지급``. Analysers
  sometimes tag such a syllable as a noun (부/NNG 지급, 미/NNP 가입); it is treated as a prefix
  when it starts a word and touches a following noun. Other prefixes emit the merged token and
  the bare noun (``재가입``, ``가입``).
* **Numbers keep their unit**: ``3,000만원`` → ``3000``, ``3000만원``; ``2008년`` → ``2008``,
  ``2008년``; ``제3조`` → ``3``, ``제3조``. Mixed Latin/digit runs become one token (``h5n1``).
* **Compounds** (optional): a compound noun is emitted whole and, when the analyser knows its
  parts, with its parts of two or more syllables (해외여행 → ``해외여행``, ``해외``, ``여행``).
  Parts go through the prefix rule too, so 무배당 never yields ``배당``.
* **Domain terms** (``DOMAIN_TERMS``): a few policy terms that analysers segment wrongly in
  context (질병부담보 → 질병/부담/보) become one noun with their proper parts, but only where the
  analyser already puts morpheme boundaries at both ends of the term (so 부담보다 = 부담+보다 is
  left alone).
"""

from __future__ import annotations

import re
from typing import Sequence

from yakgwan.text.tokenizer import Morph, TokenizerConfig

NEGATING_PREFIXES = frozenset({"비", "불", "부", "미", "무"})
_HANJA_PREFIX = {"非": "비", "未": "미", "無": "무", "不": "불"}
NOUN_TAGS = frozenset({"NNG", "NNP", "XR", "SH"})
_CONTENT_TAGS = frozenset({"NNG", "NNP", "XR", "SH", "VV", "VA", "SN", "SL"})
_WEB_TAGS = ("W_URL", "W_EMAIL", "W_HASHTAG", "W_SERIAL")
_PREFIX_LIKE_TAGS = frozenset({"NNG", "NNP", "NNB", "NR", "MM", "XR", "SH", "MAG"})
_UNIT_TAGS = frozenset({"NNB", "NNG"})
_NUMBER_SEPARATORS = frozenset({",", "."})

# Policy terms that analysers mis-segment in context, written prefix+noun (the parts the
# prefix rule should see). Extend with terms a test shows to be split wrongly.
DOMAIN_TERMS: tuple[tuple[tuple[str, str], ...], ...] = (
    (("부", "XPN"), ("담보", "NNG")),
    (("부", "XPN"), ("지급", "NNG")),
    (("후유", "NNG"), ("장해", "NNG")),
)


def _hangul_prefix(form: str, next_form: str) -> str:
    """Reads a hanja negating prefix in hangul (不 is 부 before ㄷ/ㅈ, else 불)."""
    if form == "不" and next_form and "가" <= next_form[0] <= "힣":
        initial = (ord(next_form[0]) - 0xAC00) // 588
        return "부" if initial in (3, 12) else "불"
    return _HANJA_PREFIX.get(form, form)


def apply_domain_terms(text: str, morphs: list[Morph]) -> list[Morph]:
    """Makes each ``DOMAIN_TERMS`` match one noun where both ends fall on morpheme boundaries."""
    starts = {m.start: i for i, m in enumerate(morphs)}
    ends = {m.end: i for i, m in enumerate(morphs)}
    out = list(morphs)
    replaced: list[tuple[int, int, list[Morph]]] = []
    for parts in DOMAIN_TERMS:
        term = "".join(f for f, _ in parts)
        for match in re.finditer(re.escape(term), text):
            s, e = match.start(), match.end()
            if s not in starts or e not in ends or ends[e] < starts[s]:
                continue
            replaced.append((starts[s], ends[e], [Morph(term, "NNG", s, e, parts)]))
    taken: set[int] = set()
    for first, last, new in sorted(replaced, key=lambda r: r[0], reverse=True):
        span = set(range(first, last + 1))
        if not span & taken:
            taken |= span
            out[first:last + 1] = new
    return out


def _word_starts(morphs: Sequence[Morph]) -> list[bool]:
    """True where a morpheme begins a word: after a gap (space) or after punctuation."""
    flags = []
    for i, m in enumerate(morphs):
        prev = morphs[i - 1] if i else None
        after_punct = prev is not None and prev.tag.startswith("S") and prev.tag not in ("SL", "SN", "SH")
        flags.append(prev is None or prev.end < m.start or after_punct)
    return flags


def _touches(a: Morph, b: Morph) -> bool:
    return a.end == b.start


def _is_prefix(m: Morph, at_word_start: bool) -> bool:
    if m.tag == "XPN":
        return True
    form = _HANJA_PREFIX.get(m.form, m.form)
    return at_word_start and len(m.form) == 1 and form in NEGATING_PREFIXES and m.tag in _PREFIX_LIKE_TAGS


def _number_run(morphs: Sequence[Morph], i: int) -> tuple[list[str], int] | None:
    """Digits (with , or . between), numerals (만, 천만) and one unit; returns terms and next index."""
    j = i
    if morphs[j].form == "제" and j + 1 < len(morphs) and morphs[j + 1].tag == "SN" and _touches(morphs[j], morphs[j + 1]):
        j += 1
    if morphs[j].tag != "SN":
        return None
    digits = morphs[j].form.replace(",", "")
    j += 1
    while (j + 1 < len(morphs) and morphs[j].form in _NUMBER_SEPARATORS and morphs[j + 1].tag == "SN"
           and _touches(morphs[j - 1], morphs[j]) and _touches(morphs[j], morphs[j + 1])):
        digits += ("." if morphs[j].form == "." else "") + morphs[j + 1].form
        j += 2
    suffix, unit_noun = "", None
    while j < len(morphs) and morphs[j].tag == "NR" and _touches(morphs[j - 1], morphs[j]):
        suffix += morphs[j].form
        j += 1
    if j < len(morphs) and _touches(morphs[j - 1], morphs[j]):
        m = morphs[j]
        if m.form == "%" or m.tag == "NNB" or (m.tag == "NNG" and len(m.form) <= 2):
            suffix += m.form
            unit_noun = m.form if m.tag == "NNG" and len(m.form) == 2 else None
            j += 1
    terms = [digits]
    if suffix:
        terms.append(("제" if morphs[i].form == "제" else "") + digits + suffix)
    elif morphs[i].form == "제":
        terms.append("제" + digits)
    if unit_noun:
        terms.append(unit_noun)
    return terms, j


def _alnum_run(morphs: Sequence[Morph], i: int) -> tuple[list[str], int] | None:
    """Touching Latin letters and digits (H5N1, 5G) as one lower-case token."""
    j = i + 1
    while j < len(morphs) and morphs[j].tag in ("SL", "SN") and _touches(morphs[j - 1], morphs[j]):
        j += 1
    run = morphs[i:j]
    if len(run) < 2 or not any(m.tag == "SL" for m in run) or morphs[i].tag not in ("SL", "SN"):
        return None
    return ["".join(m.form for m in run).lower()], j


def _single_terms(m: Morph, config: TokenizerConfig) -> list[str]:
    """Terms of one content morpheme (and its compound parts)."""
    if m.tag.startswith(_WEB_TAGS):
        return [m.form.lower()]
    if m.tag not in _CONTENT_TAGS:
        return []
    terms = [m.form.lower() if m.tag == "SL" else m.form]
    if config.compound_parts and len(m.parts) > 1:
        pos, sub = m.start, []
        for form, tag in m.parts:
            sub.append(Morph(form, tag, pos, pos + len(form)))
            pos += len(form)
        flat = TokenizerConfig(compound_parts=False, attach_prefixes=config.attach_prefixes)
        for t in terms_from_morphs(sub, flat):
            if t != m.form and len(t) >= config.min_part_len and t not in terms:
                terms.append(t)
    return terms


def _prefixed(morphs: Sequence[Morph], i: int, starts: list[bool], config: TokenizerConfig) -> tuple[list[str], int] | None:
    """A chain of prefixes touching a noun: the merged token, plus the noun unless negated."""
    j, chain = i, []
    while j < len(morphs) and _is_prefix(morphs[j], starts[j] or bool(chain)):
        if chain and not _touches(morphs[j - 1], morphs[j]):
            break
        chain.append(morphs[j])
        j += 1
    if not chain or j >= len(morphs) or morphs[j].tag not in NOUN_TAGS or not _touches(chain[-1], morphs[j]):
        return None
    noun = morphs[j]
    prefix = "".join(_hangul_prefix(p.form, noun.form) for p in chain)
    terms = [prefix + noun.form]
    negated = any(_hangul_prefix(p.form, noun.form) in NEGATING_PREFIXES for p in chain)
    if not negated:
        terms += [t for t in _single_terms(noun, config) if t not in terms]
    return terms, j + 1


def terms_from_morphs(morphs: Sequence[Morph], config: TokenizerConfig) -> list[str]:
    """Index terms from one analysed text, in order (see the module docstring for the rules)."""
    starts = _word_starts(morphs)
    out: list[str] = []
    i = 0
    while i < len(morphs):
        m = morphs[i]
        step = None
        if m.tag in ("SL", "SN"):
            step = _alnum_run(morphs, i)
        if step is None and (m.tag == "SN" or m.form == "제"):
            step = _number_run(morphs, i)
        if step is None and config.attach_prefixes:
            step = _prefixed(morphs, i, starts, config)
        if step is None:
            step = (_single_terms(m, config) if m.tag != "XPN" else [], i + 1)
        out.extend(step[0])
        i = step[1]
    return out
