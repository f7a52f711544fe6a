"""Korean particles that depend on the word before them: 을/를, 은/는, 이/가, 과/와 (pure).

The form follows the last spoken syllable: after a final consonant (받침) 을, 은, 이, 과; after a
vowel 를, 는, 가, 와. Closing brackets and quotes are skipped ("「제2조 제8호」를"); a digit is
read as its Sino-Korean name (1 일, 2 이 …: 1, 3, 6, 7, 8, 0 end in a consonant).
"""

from __future__ import annotations

PAIRS = {"을": ("을", "를"), "를": ("을", "를"), "은": ("은", "는"), "는": ("은", "는"), "이": ("이", "가"), "가": ("이", "가"),
         "과": ("과", "와"), "와": ("과", "와")}
_CLOSERS = "」』)]}\"'”’ "
_DIGIT_BATCHIM = {"0": True, "1": True, "2": False, "3": True, "4": False, "5": False, "6": True, "7": True, "8": True, "9": False}


def has_batchim(word: str) -> bool | None:
    """Whether ``word`` ends, as spoken, in a final consonant; None when its end is not Hangul or a digit."""
    for ch in reversed(word):
        if ch in _CLOSERS:
            continue
        if "가" <= ch <= "힣":
            return (ord(ch) - 0xAC00) % 28 != 0
        return _DIGIT_BATCHIM.get(ch)
    return None


def josa(word: str, particle: str) -> str:
    """``word`` followed by the form of ``particle`` (any of its two forms) that fits it; both
    forms written as "을(를)" when the end of ``word`` cannot tell."""
    after_consonant, after_vowel = PAIRS[particle]
    b = has_batchim(word)
    return word + (f"{after_consonant}({after_vowel})" if b is None else after_consonant if b else after_vowel)
