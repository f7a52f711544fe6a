"""The Self-RAG answer check: is the answer supported by the sentences it cites, and does it
answer the question? One rewrite with the feedback when not; then an unsupported answer is
refused and an unhelpful one becomes partial. Every verdict goes into the notes."""

from __future__ import annotations

from dataclasses import dataclass

from yakgwan.answer.anchors import Terms, Unknown
from yakgwan.answer.generate import GenerativeAnswerer
from yakgwan.answer.ko_rules.point import ALL
from yakgwan.answer.ko_rules.ruleset import RuleSet
from yakgwan.answer.records import REFUSAL, Generated, Sentence
from yakgwan.messages import msg
from yakgwan.llm import LLM, StructuredOutputError
from yakgwan.llm.types import Message
from yakgwan.llm.prompts.self_rag import YesNo


def support_messages(answer: str, quotes: list[str]) -> list[Message]:
    listed = "\n".join(f"- {' '.join(q.split())}" for q in quotes)
    return [Message("system", "답변의 모든 내용이 근거 문장에 그대로 있거나 근거 문장에서 바로 나오면 yes=true, 근거에 없는 내용이 하나라도 있으면 yes=false."),
            Message("user", f"근거 문장:\n{listed}\n\n답변: {answer}")]


def useful_messages(question: str, answer: str) -> list[Message]:
    return [Message("system", "답변이 질문에 직접 답하면 yes=true, 질문과 다른 것을 말하면 yes=false."),
            Message("user", f"질문: {question}\n답변: {answer}")]


@dataclass
class SelfCheckingAnswerer:
    llm: LLM
    unknown: Unknown | None = None
    terms: Terms | None = None
    rules: RuleSet = ALL
    reasoning: bool = False  # the answers are written with a scratchpad first (``--mode cot``)

    def answer(self, question: str, sentences: list[Sentence]) -> Generated:
        gen = GenerativeAnswerer(self.llm, self.unknown, self.terms, self.rules, self.reasoning)
        done = gen.answer(question, sentences)
        if done.outcome == "refused":
            return done
        if done.computed:  # its quotes are verbatim and its one statement is arithmetic on their numbers
            done.notes.append(msg("note.self_check_skipped"))
            return done
        supported, useful = self._check(question, done)
        if supported and useful:
            done.notes.append(msg("note.self_check_ok"))
            return done
        problem = "근거 문장에 없는 내용이 있습니다" if not supported else "질문에 직접 답하지 않았습니다"
        again = gen.answer(question, sentences, feedback=problem)
        again.notes = [*done.notes, msg("note.self_check_failed_unsupported" if not supported else "note.self_check_failed_not_useful"), *again.notes]
        if again.outcome == "refused":
            return again
        supported, useful = self._check(question, again)
        if not supported:
            again.notes.append(msg("note.self_check_still_unsupported"))
            return Generated("refused", REFUSAL, [], notes=again.notes, scratchpad=again.scratchpad, attempted=True)
        if not useful:
            again.notes.append(msg("note.self_check_still_not_useful"))
            again.outcome = "partial"
        return again

    def _check(self, question: str, done: Generated) -> tuple[bool, bool]:
        """(supported, useful); a verdict the model cannot give counts as passed (the claim checks
        of the answer already ran)."""
        def ask(msgs: list[Message], step: str) -> bool:
            try:
                return self.llm.complete(msgs, schema=YesNo, step=step).yes
            except StructuredOutputError:
                return True
        claims = done.claims_text or done.answer  # what it states; "다만 문서에는 … 없습니다" is not a claim to support
        return ask(support_messages(claims, [c.quote for c in done.citations]), "self_rag_support"), ask(useful_messages(question, done.answer), "self_rag_useful")
