"""A scripted LLM whose answers fit every technique's schema (the contract suites' LLM)."""

from __future__ import annotations

from typing import Any, Sequence

from yakgwan.llm.types import Message


def technique_reply(messages: Sequence[Message], schema: dict[str, Any] | None) -> str | dict[str, Any]:
    """A valid answer to any technique's request, chosen by the fields of its schema."""
    if schema is None:  # free text: a HyDE passage, a RAPTOR summary
        return "회사는 자동차 사고로 선고받은 벌금액을 2천만원 한도로 보상합니다."
    props = schema.get("properties", {})
    if "order" in props:
        return {"order": [3, 1, 2]}
    if "scores" in props:
        n = props["scores"].get("minItems", 1)
        return {"scores": [5, *[1] * (n - 1)]}
    if "keep" in props:
        return {"keep": [1]}
    if "questions" in props:
        return {"questions": ["벌금 특별약관 보상 한도"]}
    if "enough" in props:
        return {"enough": True, "query": ""}
    if "yes" in props:
        return {"yes": True}
    if "about_this" in props:
        return {"about_this": True, "reason": "같은 약관"}
    if "tool" in props:
        return {"tool": "finish", "input": ""}
    if "passage" in props:
        return {"passage": "회사는 자동차 사고로 선고받은 벌금액을 보상합니다."}
    if "queries" in props:
        return {"queries": ["벌금 특별약관 보상 한도", "벌금액 2천만원"]}
    raise AssertionError(f"no scripted answer for a request with schema fields {sorted(props)}")


def option_scores(messages: Sequence[Message], options: Sequence[str]) -> dict[str, float]:
    """Log-probabilities for a yes/no judgement: "yes" for the passage with the larger 벌금 limit
    (so that a judged list is reordered), "no" otherwise."""
    yes = "3천만원" in messages[-1].content
    return {options[0]: -0.2 if yes else -2.0, options[1]: -2.0 if yes else -0.2}


def scripted_llm():  # type: ignore[no-untyped-def]
    from yakgwan.llm import LLM
    from yakgwan.llm.scripted import ScriptedProvider

    return LLM(ScriptedProvider(responder=technique_reply, option_scorer=option_scores))
