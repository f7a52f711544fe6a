"""The rule-based analysis: every statement tied to a quoted clause, no model needed.

From the notice and, per reason, the cited clauses (resolved exactly), the claimed 특약's own
지급사유 article and the retrieved clauses, it builds the issue tree, the gap table, the actions,
the documents to collect (the policy's own 보험금의 청구 article, plus what each ground needs),
the calibrated band and the evidence pack. Quotes are sentences cut from the chunk text, so they
are verbatim; :mod:`yakgwan.appeal.validate` checks them anyway.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from yakgwan.appeal import band as B
from yakgwan.appeal.article_parts import missing_part, parts_of_chunks, what_is_printed
from yakgwan.appeal.equivalents import equivalents
from yakgwan.appeal.figures import FigureCheck, check as check_figures, conditions, describe as describe_figures
from yakgwan.appeal.quotes import misquotes
from yakgwan.appeal.own_exclusions import general_applied_to_own_list
from yakgwan.appeal.provisos import candidate_spans, cited_span, unaddressed
from yakgwan.appeal.citations import paragraph_label
from yakgwan.appeal.notice import DenialNotice
from yakgwan.appeal.policy import Policy
from yakgwan.appeal.retrieve import CitedClause, ReasonEvidence
from yakgwan.appeal.schema import Analysis, CheckStatus, DiffPiece, EvidenceItem, FindingItem, Gap, Issue, IssueKind, Provenance, SubIssue, SuccessProbability
from yakgwan.core.records import Chunk
from yakgwan.text.particles import josa
from yakgwan.text.tokenizer import Tokenizer
from yakgwan.text.sentences import clause_spans

QUOTE_MAX = 300
_HEADING_ONLY = re.compile(r"^\s*(?:\S+\s+)?(?:특별약관\s*)?제\s*\d+\s*조(?:의\s*\d+)?\s*\([^()]*\)\s*$")
# what a ground needs from the claimant, by words in the reason or the clause
REASON_DOCUMENTS = (
    (("음주", "혈중알코올"), "혈중알코올농도 측정 결과와 측정 경위 자료(채혈 여부, 측정 시각)"),
    (("무면허",), "운전면허 보유 및 효력 확인 자료"),
    (("알릴 의무", "청약서"), "청약서 사본과 당시 질문 문항, 답변 근거가 된 진료기록"),
    (("골절", "진단"), "진단서(진단명과 질병분류코드 포함)와 영상 판독 기록"),
    (("깁스", "부목"), "깁스 시행을 보여 주는 진료기록부와 진료비 세부내역서(처치 코드)"),
    (("약식", "정식재판", "기소"), "공소장, 약식명령서, 재판 기록 등 형사절차 서류"),
    (("이륜", "오토바이"), "사고 당시 차량 종류와 운전 빈도를 보여 주는 자료"),
    (("영업", "배송", "택배"), "사고 당시 운행 목적을 보여 주는 자료"),
    (("소멸시효", "3년"), "청구 시점과 시효 중단 사유를 보여 주는 자료"),
    (("통지", "늦게"), "사고 통지 시점과 지연 사유 자료"),
    (("치료기간", "42일", "중상해", "진단기간"), "피해자 진단서(치료기간 포함)와 형사합의서"),
)


@dataclass(frozen=True)
class ClauseUse:
    """One clause as the analysis uses it."""

    role: str  # "cited", "coverage", "retrieved"
    yakgwan: str
    label: str  # "제2조 제8호"
    title: str | None
    chunk: Chunk
    item: str | None = None  # the cited 호 ("제8호"): its line is the quote


# what a clause says follows from its breach for the benefit (insurance vocabulary): not paid,
# reduced, the right extinguished, the contract ended, the increased loss not borne
CONSEQUENCE = re.compile(r"(?:지급|보상)(?:하지|되지)\s*않|드리지\s*않|소멸|해지|감액|삭감|차감|공제|줄여|책임을\s*지지\s*않|면책|증가된\s*손해|효력을\s*잃|거절")


def kind_of(title: str | None, text: str = "") -> IssueKind:
    t = f"{title or ''} {text[:80]}"
    if "알릴 의무" in t or "알릴의무" in t:
        return "disclosure_duty"
    if "지급하지 않는" in t or "보장제외" in t or "보상하지 않는" in t:
        return "exclusion"
    if any(w in t for w in ("청구", "통지", "소멸시효", "지급절차", "지급기일")):
        return "procedure"
    if "용어" in t or "정의" in t:
        return "definition"
    return "coverage_trigger"


QUESTIONS: dict[str, str] = {
    "coverage_trigger": "청구한 사고가 「{c}」의 보험금 지급사유 요건을 모두 충족하는가?",
    "exclusion": "「{c}」의 면책 요건이 이 사고의 사실관계에 실제로 해당하는가? (입증책임은 회사에 있음)",
    "definition": "「{c}」의 용어 정의에 비추어 사고·치료가 약관상 개념에 해당하는가?",
    "procedure": "「{c}」의 청구·통지 절차 요건과 그 위반의 효과가 지급 거절로 이어지는가?",
    "disclosure_duty": "「{c}」에 따른 알릴 의무 위반이 있었고, 위반 사실과 보험금 지급사유 사이에 인과관계가 있는가?",
}
TO_CLOSE: dict[str, str] = {
    "coverage_trigger": "지급사유 요건 각각을 입증하는 서류(진단서, 진료기록, 사고 증명)를 갖춥니다.",
    "exclusion": "면책 요건의 사실(회사 주장)을 다투는 자료를 모으고, 회사에 면책 사실의 입증 자료를 요청합니다.",
    "definition": "약관 정의 조항과 치료·사고 내용을 대조할 수 있는 의료기록을 확보합니다.",
    "procedure": "청구·통지 시점과 지연 사유를 보여 주는 자료를 확보하고, 절차 위반이 지급 거절 사유로 약관에 정해져 있는지 확인합니다.",
    "disclosure_duty": "청약 당시 질문 문항과 답변, 위반 사실과 사고 사이의 인과관계가 없음을 보여 주는 의료기록을 확보합니다.",
}


SHOWN_MAX = 200  # the notice's reason as a gap shows it


def shown_reason(text: str, limit: int = SHOWN_MAX) -> str:
    """The reason cut to whole sentences within ``limit`` characters (the first sentence alone,
    cut at a word and marked "…", when even it is longer): never cut mid-sentence unmarked."""
    if len(text) <= limit:
        return text
    ends = [m.end() for m in re.finditer(r"(?:다|요)\.(?=\s|$)|[.?!](?=\s)", text[: limit + 1])]
    if ends:
        return text[: ends[-1]]
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > 0 else limit].rstrip() + "…"


def body_spans(text: str) -> list[tuple[int, int]]:
    """The clause's sentence spans without an article's heading line alone ("제1조(보험금의
    지급사유)"), which says nothing by itself."""
    return [(s, e) for s, e in clause_spans(text) if not _HEADING_ONLY.match(text[s:e])]


def best_quote(chunk: Chunk, query: str, tokenizer: Tokenizer) -> str:
    """The chunk's sentence that shares most content words with ``query`` (the first one on a
    tie), cut to ``QUOTE_MAX`` characters at a sentence start; always a verbatim span."""
    spans = body_spans(chunk.text) or clause_spans(chunk.text) or [(0, len(chunk.text))]
    q = set(tokenizer.tokenize(query))
    sents = [chunk.text[s:e] for s, e in spans]
    scores = [len(q & set(t)) for t in tokenizer.tokenize_many(sents)]
    best = max(range(len(sents)), key=lambda i: (scores[i], -i))
    s, e = spans[best]
    return chunk.text[s : min(e, s + QUOTE_MAX)]


def _question(u: ClauseUse, claimed: list[str]) -> str:
    if u.role == "cited" and claimed and u.yakgwan not in claimed and u.yakgwan != "보통약관" and "보장제외" not in u.yakgwan:
        return f"회사가 인용한 {josa(f'「{clause_name(u)}」', '은')} 청구한 특약({', '.join(claimed)})의 조항이 아닙니다: 이 조항이 청구를 거절할 근거가 되는가?"
    return QUESTIONS[kind_of(u.title, u.chunk.text)].format(c=clause_name(u))


def item_quote(chunk: Chunk, item: str | None) -> str | None:
    """The cited 호 ("제8호" -> the item starting "8.", with its wrapped lines), verbatim; None
    if absent."""
    m = re.fullmatch(r"제(\d+)호", item or "")
    if not m:
        return None
    mark = re.compile(rf"{m.group(1)}\.[ \t]*\S")
    span = next(((s, e) for s, e in clause_spans(chunk.text) if mark.match(chunk.text, s)), None)
    return chunk.text[span[0] : min(span[1], span[0] + QUOTE_MAX)] if span else None


def clause_name(u: ClauseUse) -> str:
    return f"{u.yakgwan} {u.label}".strip()


def chunk_label(c: Chunk) -> str:
    """"제1조 ①" for an article's chunk; the section (e.g. a 별표 or 분류표 heading) otherwise."""
    if c.article:
        return " ".join(p for p in (c.article, paragraph_label(c.paragraph)) if p)
    return (c.section or "").split(" > ")[-1] or "본문"


def uses_for(ev: ReasonEvidence, retrieved: int = 2) -> list[ClauseUse]:
    out: list[ClauseUse] = []
    for role, clauses in (("cited", ev.cited), ("coverage", ev.coverage)):
        for cc in clauses:
            if cc.yakgwan and cc.chunks:
                # a cited part the article does not print is not pointed to: its article is
                cited = role == "cited" and missing_part(cc.ref, parts_of_chunks(cc.chunks)) is None
                label = cc.ref.label if cited else cc.chunks[0].article or ""
                out.append(ClauseUse(role, cc.yakgwan, label, cc.chunks[0].article_title, cc.chunks[0], cc.ref.item if cited else None))
    for h in ev.retrieved[:retrieved]:
        if h.chunk.yakgwan:
            out.append(ClauseUse("retrieved", h.chunk.yakgwan, chunk_label(h.chunk), h.chunk.article_title, h.chunk))
    seen: set[str] = set()
    return [u for u in out if not (u.chunk.chunk_id in seen or seen.add(u.chunk.chunk_id))]  # type: ignore[func-returns-value]


def quoted_span(chunk: Chunk, start: int, end: int, label: str) -> Provenance:
    """A verbatim span of ``chunk`` (trimmed, at most ``QUOTE_MAX`` characters) with its provenance."""
    text = chunk.text[start:end]
    lead = len(text) - len(text.lstrip())
    quote = text.strip()[:QUOTE_MAX].rstrip()
    start += lead
    return Provenance(doc=chunk.doc_id, yakgwan=chunk.yakgwan or "", article=label, page=chunk.pages[0] if chunk.pages else None,
                      chunk_id=chunk.chunk_id, quote=chunk.text[start : start + len(quote)])


def _heading(chunks: tuple[Chunk, ...] | list[Chunk]) -> Provenance:
    """The article's first line (its heading, "제2조(보험금을 지급하지 않는 사유)") as a quote."""
    first = min(chunks, key=lambda c: (c.doc_id, c.start))
    m = re.search(r"제\s*\d+\s*조[^\n]*", first.text)
    s, e = (m.start(), m.end()) if m else (0, len(first.text.split("\n", 1)[0]))
    return quoted_span(first, s, e, first.article or "")


def _cited_quote(cc: CitedClause) -> Provenance:
    """The part a citation points to, or its article's heading when it points to a whole article."""
    span = cited_span(cc.chunks, cc.ref)
    return quoted_span(span[0], span[1], span[2], cc.ref.label) if span else _heading(cc.chunks)


def _notice_says(reason: str, cc: CitedClause) -> str:
    """What the notice says with a citation: the reason's sentence that holds it, else the
    citation as written (one listed under "관련 약관")."""
    raw = "".join(cc.ref.raw.split())
    for sentence in re.split(r"(?<=[.?!])\s+", reason):
        squashed = "".join(sentence.split())
        if cc.ref.article in squashed or raw in squashed:  # "1조 1항 3호" written without 제
            return sentence
    return cc.ref.raw


def findings_for(notice: DenialNotice, evidence: list[ReasonEvidence], policy: Policy) -> list[B.Finding]:
    """The rule findings, each with its kind (whose effect on the band :mod:`yakgwan.appeal.band`
    reads), the notice's words (the citation as written) and the policy's (a verbatim span)."""
    claimed = {cc.yakgwan for ev in evidence for cc in ev.coverage if cc.yakgwan}
    out: dict[str, B.Finding] = {}
    for ev in evidence:
        for cc in ev.cited:
            where = f"「{cc.yakgwan} {cc.ref.label}」" if cc.yakgwan else f"「{cc.ref.raw}」"
            said = _notice_says(ev.reason.text, cc)
            if cc.yakgwan is None:
                if cc.ref.yakgwan:
                    out.setdefault(f"unresolved {cc.ref.raw}", B.Finding(f"통지서가 인용한 {where}의 약관을 이 약관에서 특정할 수 없습니다.",
                                                                          "name_unresolved", said))
                continue
            if not cc.chunks:
                out.setdefault(f"missing {cc.ref.raw}", B.Finding(f"통지서가 인용한 {josa(where, '이')} 「{cc.yakgwan}」에 없습니다.",
                                                                   "article_missing", said))
                continue
            parts = parts_of_chunks(cc.chunks)
            missing = missing_part(cc.ref, parts)
            if missing is not None:
                out.setdefault(f"missing part {cc.yakgwan} {cc.ref.label}", B.Finding(
                    f"통지서가 인용한 {where}의 {josa(missing, '은')} 약관에 없습니다: 「{cc.yakgwan}」 {what_is_printed(cc.ref, parts)}.",
                    "part_missing", said, _heading(cc.chunks)))
            if claimed and cc.yakgwan not in claimed and cc.yakgwan != "보통약관" and "보장제외" not in cc.yakgwan:
                out.setdefault(f"foreign {cc.yakgwan}", B.Finding(
                    f"통지서의 근거 {josa(where, '은')} 청구한 특약({', '.join(sorted(claimed))})이 아닌 「{cc.yakgwan}」의 조항입니다.",
                    "other_yakgwan", said, _cited_quote(cc)))
            elif cc.yakgwan in claimed and missing is None and kind_of(cc.chunks[0].article_title) == "exclusion":
                out.setdefault(f"exclusion {cc.yakgwan}", B.Finding(f"회사가 청구한 특약 자체의 면책 조항 {josa(where, '을')} 근거로 들었습니다.",
                                                                     "claimed_exclusion", said, _cited_quote(cc)))
            for name, own, text in general_applied_to_own_list(cc.yakgwan, cc.chunks[0].article_title, sorted(claimed), policy.chunks, cc.ref):
                out.setdefault(f"general on own list {name}", B.Finding(f"회사가 보통약관의 면책 조항 {josa(where, '을')} 적용했으나, {text}.",
                                                                         "general_exclusion_on_own_list", said,
                                                                         _heading([own.article])))
            for mq in misquotes(ev.reason.text, cc.chunks):
                lacks = f"원문의 {josa(', '.join(f'‘{t}’' for t in mq.dropped), '이')} 인용에 없고" if mq.dropped else "원문에 있는 말은 모두 있으나"
                adds = f" 인용에만 {josa(', '.join(f'‘{t}’' for t in mq.added), '이')} 있습니다" if mq.added else " 인용에 더해진 말은 없습니다"
                out.setdefault(f"misquote {cc.yakgwan} {mq.quote}", B.Finding(
                    f"통지서가 인용한 문구가 {where}의 원문과 다릅니다: {lacks}{adds}.", "quote_differs", mq.quote,
                    quoted_span(mq.chunk, mq.start, mq.end, cc.ref.label), diff=mq.diff))
            for key, f in _figure_findings(notice.text, cc, where, said, policy):
                out.setdefault(key, f)
            for pv in unaddressed(cc.chunks, cc.ref, notice.text, policy.ctx.tokenizer):
                out.setdefault(f"proviso {pv.chunk.chunk_id} {pv.start}", B.Finding(
                    f"인용된 {where}의 단서를 통지서가 다루지 않습니다: “{pv.text}”", "proviso_not_addressed", said,
                    quoted_span(pv.chunk, pv.start, pv.end, cc.ref.label)))
        procedural = procedure_without_consequence(ev.cited)
        if procedural:
            first = procedural[0]
            out.setdefault(f"procedure {first.yakgwan} {first.ref.article}", B.Finding(
                f"통지서가 거절 근거로 든 {josa(', '.join(f'「{cc.yakgwan} {cc.ref.label}」' for cc in procedural), '은')} 통지·청구 절차를 정할 뿐, "
                "그 의무를 어겼을 때 보험금을 지급하지 않거나 줄인다는 효과를 정하지 않습니다.", "procedure_without_consequence",
                _notice_says(ev.reason.text, first), _heading(first.chunks)))
        cited_articles = {(cc.yakgwan, cc.ref.article) for cc in ev.cited}
        for cc in ev.coverage:  # the claimed 특약's 지급사유, where the notice did not cite it
            if cc.yakgwan and cc.chunks and (cc.yakgwan, cc.chunks[0].article) not in cited_articles:
                for key, f in _figure_findings(notice.text, cc, f"「{cc.yakgwan} {cc.chunks[0].article}」", None, policy):
                    out.setdefault(key, f)
    return list(out.values())


def procedure_without_consequence(cited: Sequence[CitedClause]) -> list[CitedClause]:
    """The cited clauses that resolve, when every one of them is a procedure article (통지, 청구,
    as :func:`kind_of` reads its title) whose text attaches nothing to its breach (no
    :data:`CONSEQUENCE`): a refusal that rests on a duty alone. Else []."""
    found = [cc for cc in cited if cc.yakgwan and cc.chunks]
    if found and all(kind_of(cc.chunks[0].article_title) == "procedure" and not CONSEQUENCE.search(" ".join(c.text for c in cc.chunks)) for cc in found):
        return found
    return []


def _figure_findings(text: str, cc: CitedClause, where: str, said: str | None, policy: Policy) -> list[tuple[str, B.Finding]]:
    """The notice's figures against the numeric conditions of the cited part (else of each chunk
    of the cited article): a threshold restated wrong, or whether its facts meet the condition —
    which, for a coverage clause, is a ground to pay and, for an exclusion, a ground to refuse."""
    span = cited_span(cc.chunks, cc.ref)
    # a part that cannot be told among several printed with its number: each of them, and a
    # threshold one of them prints is not misstated
    candidates = [] if span else candidate_spans(cc.chunks, cc.ref)
    places = [span] if span else candidates or [(c, 0, len(c.text)) for c in cc.chunks]
    printed = {(r.unit, b) for c, s, e in candidates for r in conditions(c.text[s:e], clause=True) if r.bounded for b in r.bounds}
    out = []
    for chunk, s, e in places:
        exclusion = kind_of(chunk.article_title, chunk.text) == "exclusion"
        for fc in check_figures(text, chunk.text[s:e], policy.ctx.tokenizer):
            if fc.misstated and any((fc.notice.unit, b) in printed for b in fc.notice.bounds):
                continue
            cs, ce = min(r.start for r in fc.clause) + s, max(r.end for r in fc.clause) + s
            sent = next(((a, b) for a, b in clause_spans(chunk.text) if a <= cs < b), (cs, ce))
            start = sent[0] if ce - sent[0] <= QUOTE_MAX else cs  # the sentence when the quote can hold it to the figure
            quote = quoted_span(chunk, start, max(sent[1], ce), cc.ref.label if span else chunk_label(chunk))
            kind, tail = _figure_verdict(fc, exclusion)
            out.append((f"{kind} {chunk.yakgwan} {chunk.article}", B.Finding(
                f"{where}: {describe_figures(fc)}{tail}", kind, said or fc.notice.text, quote)))
    return out


def _figure_verdict(fc: FigureCheck, exclusion: bool) -> tuple[str, str]:
    if fc.misstated:
        return "threshold_misstated", " (통지서의 기준이 약관과 다릅니다)."
    if fc.met != exclusion:  # a coverage condition met, or an exclusion's condition not met
        return "arithmetic_fails", " — 통지서의 수치로는 거절의 계산이 맞지 않습니다."
    return "arithmetic_holds", " — 통지서의 수치로는 거절의 계산이 맞습니다."


def finding_items(findings: Sequence[B.Finding]) -> list[FindingItem]:
    """The findings as the analysis states them, each with its effect on the band."""
    return [FindingItem(kind=f.kind, text=f.text, effect=B.effect(f), notice=f.notice, policy=f.policy, by=f.by,
                        diff=[DiffPiece(op=op, text=s) for op, s in f.diff] if f.diff else None) for f in findings]


def success(findings: Sequence[B.Finding], note: str = "") -> SuccessProbability:
    """The band the rule gives ``findings``, with its rationale (``note`` appended)."""
    return SuccessProbability(band=B.band_for(findings), rationale=B.rationale(findings) + note, base_rate=round(B.base_rate(), 4),
                              decided_by=B.deciding(findings))


def documents_to_collect(notice: DenialNotice, policy: Policy) -> list[str]:
    """The items of the policy's 보험금의 청구 article (보통약관), then what the grounds need."""
    docs: list[str] = []
    claim_article = [c for c in policy.chunks if c.yakgwan == "보통약관" and c.article_title and "보험금의 청구" in c.article_title]
    for c in claim_article[:1]:
        for m in re.finditer(r"(?m)^\s*\d+\.\s*(.+(?:\n(?!\s*\d+\.|\s*[②③④]).+)*)", c.text):
            item = " ".join(m.group(1).split())
            docs.append(f"{item} (보통약관 {c.article}({c.article_title}))")
    text = notice.text
    docs += [doc for words, doc in REASON_DOCUMENTS if any(w in text for w in words)]
    return list(dict.fromkeys(docs))


def analyse(
    notice: DenialNotice, evidence: list[ReasonEvidence], policy: Policy,
    read: Sequence[B.Finding] = (), checks: Sequence[CheckStatus] = (),
) -> Analysis:
    """The rule-based analysis; ``read`` are the reading checks' findings (banded with the rule
    findings) and ``checks`` every reading check's status."""
    tok = policy.ctx.tokenizer
    issues, gaps, pack = [], [], []
    claimed = sorted({cc.yakgwan for ev in evidence for cc in ev.coverage if cc.yakgwan})
    for ev in evidence:
        uses = uses_for(ev)
        subs = [SubIssue(kind=kind_of(u.title, u.chunk.text), question=_question(u, claimed), clauses=[clause_name(u)]) for u in uses if u.role in ("cited", "coverage")]
        if not subs:  # nothing cited or claimed that resolves: the retrieved clauses frame the issue
            subs = [SubIssue(kind=kind_of(u.title, u.chunk.text), question=QUESTIONS[kind_of(u.title, u.chunk.text)].format(c=clause_name(u)), clauses=[clause_name(u)]) for u in uses[:1]]
        if not subs:
            subs = [SubIssue(kind="coverage_trigger", question="통지서의 거절 사유에 해당하는 약관 조항을 이 약관에서 찾지 못했습니다: 회사에 근거 조항을 서면으로 요청해야 합니다.")]
        issues.append(Issue(reason=ev.reason.text, cited=[c.ref.raw for c in ev.cited], sub_issues=subs))
        for u in uses:
            quote = item_quote(u.chunk, u.item) or best_quote(u.chunk, ev.reason.text, tok)
            claim = {
                "cited": f"회사가 부지급 근거로 든 조항: {clause_name(u)}",
                "coverage": f"청구한 특약이 보장하는 사유: {clause_name(u)}",
                "retrieved": f"거절 사유와 관련된 약관 조항: {clause_name(u)}",
            }[u.role]
            pack.append(EvidenceItem(claim=claim, provenance=Provenance(
                doc=u.chunk.doc_id, yakgwan=u.yakgwan, article=u.label or (u.chunk.article or ""), page=u.chunk.pages[0] if u.chunk.pages else None,
                chunk_id=u.chunk.chunk_id, quote=quote)))
            if u.role in ("cited", "coverage"):
                k = kind_of(u.title, u.chunk.text)
                gaps.append(Gap(requirement=f"{clause_name(u)}: “{quote}”", shown=f"통지서의 사유: {shown_reason(ev.reason.text)}", to_close=TO_CLOSE[k]))
        if not any(g.shown.endswith(shown_reason(ev.reason.text)) for g in gaps) and uses:
            u = uses[0]
            gaps.append(Gap(requirement=f"{clause_name(u)}: “{best_quote(u.chunk, ev.reason.text, tok)}”", shown=f"통지서의 사유: {shown_reason(ev.reason.text)}",
                            to_close=TO_CLOSE[kind_of(u.title, u.chunk.text)]))
    for eq in equivalents(evidence, policy):
        c = eq.hit.chunk
        claim = (f"통지서가 인용한 다른 특약의 조항({eq.cited})에 대응하는, 청구한 특약의 가장 가까운 조항: {c.yakgwan} {chunk_label(c)} (같은 내용인지 대조하세요)"
                 if eq.why == "another 특약" else
                 f"통지서가 인용한 조항({eq.cited})은 약관에 없습니다. 통지서의 사유에 가장 가까운 조항: {c.yakgwan} {chunk_label(c)} (같은 내용인지 대조하세요)")
        pack.append(EvidenceItem(claim=claim, provenance=Provenance(
            doc=c.doc_id, yakgwan=c.yakgwan or "", article=chunk_label(c), page=c.pages[0] if c.pages else None, chunk_id=c.chunk_id,
            quote=best_quote(c, eq.query, tok))))
    findings = [*findings_for(notice, evidence, policy), *read]
    actions = ["회사에 부지급 근거 조항과 사실 판단의 근거 자료를 서면으로 요청합니다."]
    if any(f.kind in B.CITATION_ERRORS for f in findings):
        actions.append("통지서가 인용한 조항이 청구한 특약의 조항이 아니거나 약관에 없음을 지적하여, 청구한 특약의 지급사유 조항으로 재심사를 청구합니다.")
    actions.append("아래 '수집할 서류'를 갖추어 재심사(이의) 신청서를 제출합니다.")
    actions.append("회사의 재심사 결과에도 이견이 있으면 금융감독원(국번 없이 1332)에 분쟁조정을 신청합니다.")
    return Analysis(
        issue_tree=issues,
        gap_analysis=gaps or [Gap(requirement="근거 조항 미확인", shown="통지서에 인용된 조항을 약관에서 찾지 못했습니다.", to_close="회사에 근거 조항을 서면으로 요청합니다.")],
        recommended_actions=actions,
        success_probability=success(findings),
        evidence_pack=pack,
        documents_to_collect=documents_to_collect(notice, policy),
        findings=finding_items(findings),
        checks=list(checks),
    )
