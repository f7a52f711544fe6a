"""Words about statutes shared by the readers of policies and of denial notices (pure data)."""

from __future__ import annotations

# general Korean nouns that end in 법 and name no law ("보험금 청구 방법(제5조)", "「보장방법」 제3조"):
# a statute's name never ends in one of them
NOT_LAWS = ("방법", "불법", "위법", "적법", "합법", "편법", "용법", "문법", "기법", "수법", "요법", "해법", "어법", "필법", "화법", "비법", "요령법")
