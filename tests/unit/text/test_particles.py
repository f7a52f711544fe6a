"""Particles after a word, by its last spoken syllable (hand-checked Korean)."""

from __future__ import annotations

import pytest

from yakgwan.text.particles import has_batchim, josa


@pytest.mark.unit
def test_particles_follow_the_last_syllable() -> None:
    assert josa("「벌금 특별약관 제2조 제8호」", "을") == "「벌금 특별약관 제2조 제8호」를"  # 호: a vowel; the bracket is skipped
    assert josa("「보통약관 제5조 제1항」", "를") == "「보통약관 제5조 제1항」을"  # 항: ㅇ
    assert josa("제3조", "은") == "제3조는" and josa("제9호", "은") == "제9호는" and josa("제2항", "는") == "제2항은"
    assert josa("특별약관", "이") == "특별약관이" and josa("보험사", "이") == "보험사가" and josa("약관", "와") == "약관과"
    assert [josa(d, "은") for d in ("1", "2", "10", "15")] == ["1은", "2는", "10은", "15는"]  # 일, 이, 십, 오
    assert josa("KB", "을") == "KB을(를)" and has_batchim("KB") is None and has_batchim("") is None
