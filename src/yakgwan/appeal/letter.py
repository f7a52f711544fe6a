"""The letters a policyholder sends, drafted from an analysis: (a) an 이의신청서 to the insurer and
(b) a 금융감독원 분쟁조정 신청 text.

Each letter has the parties and the policy and claim numbers as blanks to fill (what the notice
printed is shown beside a blank as a hint, never filled in for the sender), the insurer's stated
reasons quoted, one plain-Korean paragraph per point — a finding that raises the band, with the
clause it rests on quoted verbatim with its page — the request, and the attachments (the documents
to collect). Where the analysis found nothing that raises the band, the points ask for the grounds
and quote the clause the claim is under. Nothing internal reaches a letter: no band, no score, no
finding kind, no file name; the analysis stays a separate download (:mod:`yakgwan.appeal.render`).

The letter reads the analysis's JSON (``AppealResult.to_json()``) only; it states no fact the
analysis does not hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Mapping, Sequence

from yakgwan.appeal.band import CITATION_ERRORS
from yakgwan.text.dates import full_dates
from yakgwan.text.particles import josa

BLANK = "____________"
# each point's title and what it says before its evidence, by the kind of finding (plain Korean
# for the insurer's reader)
POINTS: dict[str, tuple[str, str]] = {
    "other_yakgwan": ("거절 근거가 청구한 특약의 조항이 아님", "귀사가 거절 근거로 든 조항은 제가 청구한 특약의 조항이 아닙니다."),
    "article_missing": ("거절 근거 조항이 약관에 없음", "귀사가 거절 근거로 든 조항은 약관에 없습니다."),
    "part_missing": ("인용한 항·호가 약관에 없음", "귀사가 인용한 항 또는 호는 그 조에 없습니다."),
    "quote_differs": ("인용한 약관 문구가 원문과 다름", "안내문이 인용한 약관 문구는 약관 원문과 다릅니다."),
    "threshold_misstated": ("기준 수치가 약관과 다름", "안내문이 옮긴 기준 수치는 약관이 정한 수치와 다릅니다."),
    "arithmetic_fails": ("안내문의 사실로도 요건이 충족됨", "안내문에 적힌 사실과 수치로도 약관의 요건은 충족됩니다."),
    "definition_ground_set_aside": ("약관의 정의가 거절 근거를 요건으로 삼지 않음", "약관의 정의 조항은 귀사가 거절 근거로 든 사정을 요건으로 삼지 않습니다."),
    "full_denial_despite_reduction": ("전부 거절이 아니라 삭감·비례 지급 대상임", "약관은 이 경우 보험금을 전부 거절하지 않고 삭감하거나 비례하여 지급하도록 정하고 있습니다."),
    "proviso_not_addressed": ("인용 조항의 단서를 검토하지 않음", "귀사가 인용한 조항에는 단서가 있으나, 안내문은 이 단서를 검토하지 않았습니다."),
    "general_exclusion_on_own_list": ("특약의 자체 면책 사유 대신 보통약관을 적용함", "제가 청구한 특약은 자체의 면책 사유를 따로 정하고 있는데, 귀사는 보통약관의 면책 조항을 적용했습니다."),
    "reading_of_undefined_word": ("약관이 정의하지 않은 말을 불리하게 풀이함", "귀사가 거절 근거로 풀이한 말은 약관에 정의되어 있지 않으며, 뜻이 명백하지 않은 약관은 계약자에게 유리하게 해석해야 합니다(약관의 규제에 관한 법률 제5조 제2항)."),
    "procedure_without_consequence": ("절차 조항에는 보험금을 지급하지 않는다는 효과가 없음", "귀사가 거절 근거로 든 통지·청구 절차 조항은 그 의무를 정할 뿐, 이를 늦추거나 지키지 않았을 때 보험금을 지급하지 않는다고 정하지 않습니다."),
    "definition_read_narrowly": ("약관의 정의보다 좁게 읽음", "안내문은 약관의 용어를 약관의 정의보다 좁게 읽었습니다."),
    "ambiguity_read_against_policyholder": ("명백하지 않은 말을 불리하게 읽음", "뜻이 명백하지 않은 약관의 말을 계약자에게 불리하게 읽었습니다(약관의 규제에 관한 법률 제5조 제2항)."),
}
OTHER_POINT = ("거절 근거가 약관의 문언과 맞지 않음", "안내문의 거절 근거는 약관의 문언과 맞지 않습니다.")
RAISES = ("decisive", "arguable")


@dataclass(frozen=True)
class Section:
    """A heading and its paragraphs; ``quotes`` are verbatim clause spans shown set off."""

    heading: str
    paragraphs: tuple[str, ...] = ()
    quotes: tuple[tuple[str, str], ...] = ()  # (citation "약관 제N조 (p.N)", verbatim text)


@dataclass(frozen=True)
class Letter:
    """One letter: its kind, title, addressee and sections, in the order they are printed."""

    kind: Literal["insurer", "fss"]
    title: str
    addressee: str
    sections: tuple[Section, ...] = field(default_factory=tuple)

    def text(self) -> str:
        """Every word of the letter (for checks: no internal term may appear in it)."""
        parts = [self.title, self.addressee]
        for s in self.sections:
            parts += [s.heading, *s.paragraphs, *(f"{c} {q}" for c, q in s.quotes)]
        return "\n".join(parts)


def _cite(p: Mapping[str, Any]) -> str:
    page = f", {p['page']}쪽" if p.get("page") else ""
    return f"{p['yakgwan']} {p['article']}{page}".strip()


def _blank(hint: str | None) -> str:
    return f"{BLANK} (안내문 기재: {hint})" if hint else BLANK


def _case(result: Mapping[str, Any]) -> dict[str, str]:
    d = result["denial"]
    dates = d.get("dates") or {}
    return {
        "insurer": d.get("insurer") or "",
        "product": d.get("product") or "",
        "item": ", ".join(_claimed_names(result) or d.get("claim_items") or []) or (d.get("product") or ""),
        "accident": dates.get("accident_date") or "",
        "notice_date": dates.get("notice_date") or "",
        "policy_no": d.get("policy_no") or "",
        "claim_no": d.get("claim_no") or "",
    }


def points(result: Mapping[str, Any], fss: bool = False) -> list[Section]:
    """One section per rule finding that raises the band (the strongest first), each with the
    notice's words and the clause's; none when the analysis found none. A model's finding is no
    point: the policy's text has not settled it. ``fss``: the lead sentences in the third person
    (the insurer as 피신청인), as the 금융감독원 reads them; quoted words stay as written."""
    order = {"decisive": 0, "arguable": 1}
    raised = sorted((f for f in result.get("findings") or [] if f.get("effect") in RAISES and f.get("by", "rules") == "rules"),
                    key=lambda f: order[f["effect"]])
    out: list[Section] = []
    seen: set[tuple[str, str]] = set()
    for f in raised:
        key = (f["kind"], f["text"])
        if key in seen:
            continue
        seen.add(key)
        title, lead = POINTS.get(f["kind"], OTHER_POINT)
        paras = [_third_person(lead) if fss else lead, as_notice(f["text"])]
        if f.get("notice"):
            paras.append(f"안내문의 기재: “{' '.join(f['notice'].split())}”")
        quotes = [(_cite(f["policy"]), f["policy"]["quote"])] if f.get("policy") else []
        if f["kind"] in CITATION_ERRORS:  # about the citation itself: the clause the claim is under beside the insurer's
            quotes += [(f"청구한 보장의 지급사유: {_cite(i['provenance'])}", i["provenance"]["quote"]) for i in _claimed_clauses(result)[:1]]
        out.append(Section(f"{len(out) + 1}. {title}", tuple(paras), tuple(quotes)))
    return out


_NOTICE_WORD = re.compile(r"통지서(이|가|은|는|을|를|과|와)?")


def as_notice(text: str) -> str:
    """A finding's sentence as the letter says it: the insurer's 통지서 is its 안내문, each particle
    after it in the form that fits (통지서가 → 안내문이)."""
    return _NOTICE_WORD.sub(lambda m: josa("안내문", m.group(1)) if m.group(1) else "안내문", text)


def _claimed_names(result: Mapping[str, Any]) -> list[str]:
    """The claimed 특약 as the policy names them, where the analysis resolved them (the notice's
    own words around a name are not part of it)."""
    return list(dict.fromkeys(n for i in _claimed_clauses(result) if (n := i["provenance"].get("yakgwan"))))


def _claimed_clauses(result: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The evidence items that quote the clause the claim is under (the claimed 특약's 지급사유)."""
    return [i for i in result.get("evidence_pack") or [] if i["claim"].startswith("청구한 특약이 보장하는 사유")]


def _grounds_asked(result: Mapping[str, Any], fss: bool = False) -> list[Section]:
    """Where nothing raises the band: the clause the claim is under, quoted, and the grounds asked for."""
    coverage = _claimed_clauses(result)
    cited = [i for i in result.get("evidence_pack") or [] if i["claim"].startswith("회사가 부지급 근거로 든 조항")]
    paras = ["안내문이 거절의 근거로 든 사실과 그 사실을 확인한 자료(조사 보고서, 의료 자문 결과, 사고 기록 등)를 서면으로 제시해 주시기 바랍니다. "
             "면책 사유에 해당한다는 사실은 보험회사가 입증해야 하며, 제출하는 자료와 함께 다시 검토해 주시기 바랍니다."]
    if fss:
        paras = ["피신청인이 거절의 근거로 든 사실과 그 확인 자료가 제시되지 않았다면 이를 밝히도록 하고, 신청인이 제출하는 자료와 함께 "
                 "다시 심사하도록 하여 주시기 바랍니다. 면책 사유에 해당한다는 사실은 보험회사가 입증해야 합니다."]
    quotes = tuple((_cite(i["provenance"]), i["provenance"]["quote"]) for i in (cited[:1] + coverage[:1]))
    return [Section("1. 거절 근거의 확인 요청", tuple(paras), quotes)]


def _cited(result: Mapping[str, Any], i: int, reason: Mapping[str, Any]) -> list[str]:
    """The clauses reason ``i`` cites, by the policy's own names where the analysis resolved them
    (the notice's words around a citation are not part of it), else as the notice writes them."""
    found = (result.get("retrieval") or [])[i:i + 1]
    if found:
        return list(dict.fromkeys(f"{c['yakgwan']} {c['article']}" if c.get("yakgwan") else c["as_written"] for c in found[0].get("cited") or []))
    return list(reason.get("cited") or [])


def _reasons(result: Mapping[str, Any]) -> Section:
    reasons = result["denial"].get("reasons") or []
    paras = []
    for i, r in enumerate(reasons):
        cited = _cited(result, i, r)
        paras.append(f"“{' '.join(r['text'].split())}”" + (f" (인용 조항: {', '.join(cited)})" if cited else ""))
    return Section("귀사가 밝힌 거절 사유", tuple(paras))


def _attachments(result: Mapping[str, Any]) -> Section:
    docs = list(result.get("documents_to_collect") or [])
    return Section("첨부 서류", tuple(f"{i}. {d}" for i, d in enumerate(["보험금 부지급 안내문 사본", *docs], 1)))


def insurer_letter(result: Mapping[str, Any]) -> Letter:
    """The 이의신청서 to the insurer."""
    c = _case(result)
    pts = points(result)
    parties = Section("신청인과 계약", (
        f"신청인(계약자·피보험자) 성명: {BLANK}", f"주소: {BLANK}", f"연락처: {BLANK}",
        f"증권번호: {_blank(c['policy_no'])}", f"접수번호: {_blank(c['claim_no'])}",
        f"보험상품: {c['product'] or BLANK}", f"청구한 보장: {c['item'] or BLANK}",
        f"사고일: {c['accident'] or BLANK}", f"부지급 안내일: {c['notice_date'] or BLANK}",
    ))
    intro = Section("이의 신청의 취지", (
        f"저는 위 계약의 {c['item'] or '보장'}에 따른 보험금을 청구하였으나 귀사로부터 지급할 수 없다는 안내를 받았습니다. "
        "아래의 이유로 이 결정에 이의를 신청하오니 재심사하여 주시기 바랍니다.",))
    request = ("위 사항을 검토하여 부지급 결정을 취소하고 약관에 따라 보험금을 지급하여 주시기 바랍니다." if pts else
               "거절 근거가 된 자료를 서면으로 제시하여 주시고, 제가 제출하는 자료를 포함하여 다시 심사하여 주시기 바랍니다.")
    closing = Section("요청 사항", (request, "재심사 결과와 그 근거를 서면으로 회신하여 주시기 바랍니다.", f"신청일: {BLANK}", f"신청인: {BLANK} (서명)"))
    return Letter("insurer", "보험금 부지급 결정에 대한 이의신청서", f"{c['insurer'] or BLANK} 귀중",
                  (parties, intro, _reasons(result), *(pts or _grounds_asked(result)), closing, _attachments(result)))


def fss_letter(result: Mapping[str, Any]) -> Letter:
    """The 금융감독원 분쟁조정 신청 text."""
    c = _case(result)
    pts = points(result, fss=True)
    parties = Section("당사자", (
        f"신청인 성명: {BLANK}", f"생년월일: {BLANK}", f"주소: {BLANK}", f"연락처: {BLANK}",
        f"피신청인(금융회사): {c['insurer'] or BLANK}",
        f"증권번호: {_blank(c['policy_no'])}", f"접수번호: {_blank(c['claim_no'])}",
    ))
    facts = Section("사실관계", (
        f"신청인은 {c['insurer'] or '피신청인'}의 {c['product'] or '보험'} 계약의 {c['item'] or '보장'}에 따라 보험금을 청구하였습니다"
        + (f" (사고일 {c['accident']})" if c["accident"] else "") + ".",
        f"피신청인은 {c['notice_date'] + '에 ' if c['notice_date'] else ''}아래 사유로 보험금을 지급하지 않는다고 안내하였습니다.",
    ))
    purpose = Section("신청 취지", (
        "피신청인은 약관에 따라 신청인에게 보험금을 지급하라는 조정을 구합니다." if pts else
        "피신청인이 거절의 근거를 밝히고 약관에 따라 다시 심사하도록 하는 조정을 구합니다.",))
    closing = Section("기타", (f"피신청인에게 한 이의신청(한 경우): 신청일 {BLANK}, 회신일 {BLANK}, 회신 내용 {BLANK}",
                             f"신청일: {BLANK}", f"신청인: {BLANK} (서명)"))
    reasons = _reasons(result)
    return Letter("fss", "금융분쟁조정 신청서", "금융감독원장 귀하",
                  (parties, purpose, facts, Section("피신청인이 밝힌 거절 사유", reasons.paragraphs),
                   *[Section(f"신청 이유 {s.heading}", s.paragraphs, s.quotes) for s in (pts or _grounds_asked(result, fss=True))],
                   closing, _attachments(result)))


def _third_person(lead: str) -> str:
    """A point's lead sentence (this module's own words, never a quote) as the 금융감독원 reads it:
    the insurer is the 피신청인 and the sender the 신청인."""
    for a, b in (("귀사가", "피신청인이"), ("귀사는", "피신청인은"), ("귀사의", "피신청인의"), ("귀사", "피신청인"), ("제가", "신청인이"), ("저는", "신청인은")):
        lead = re.sub(rf"(?<![가-힣]){a}", b, lead)
    return lead


def letters(result: Mapping[str, Any]) -> tuple[Letter, Letter]:
    """Both letters of an analysis: to the insurer, then to the 금융감독원."""
    return insurer_letter(result), fss_letter(result)


ITEM_MAX = 80  # characters of the 특약's name in a file name
def iso_date(text: str) -> str | None:
    """"2025년 1월 27일" / "2025. 1. 27." as 2025-01-27; None if no (valid) date is written."""
    return next((d.isoformat() for _, d in full_dates(text or "")), None)


def file_name(result: Mapping[str, Any], suffix: str, stem: str = "이의신청서") -> str:
    """``이의신청서_<특약>_<사고일>.<suffix>`` (no suffix: the stem alone): the claimed 특약 (by the
    policy's own name when the analysis resolved it, else as the notice writes it, else the product) and the accident date (else the notice's date), characters a file name cannot hold
    replaced, the name cut to ITEM_MAX characters (the date is kept)."""
    c = _case(result)
    item = (_claimed_names(result) or result["denial"].get("claim_items") or [c["product"]])[0] or ""
    item = re.sub(r"[\\/:*?\"<>|\s]+", "_", item).strip("._")[:ITEM_MAX]  # a long name is cut, never the date
    name = "_".join(p for p in (stem, item, iso_date(c["accident"]) or iso_date(c["notice_date"]) or "") if p)
    return f"{name}.{suffix.lstrip('.')}" if suffix else name


# --- rendering ---------------------------------------------------------------------------------

def to_markdown(pair: Sequence[Letter]) -> str:
    out: list[str] = []
    for n, letter in enumerate(pair):
        if n:
            out += ["", "---", ""]
        out += [f"# {letter.title}", "", f"**{letter.addressee}**", ""]
        for s in letter.sections:
            out += [f"## {s.heading}", ""]
            out += [f"{p}" + "  " for p in s.paragraphs]
            for cite, quote in s.quotes:
                out += ["", f"> {' '.join(quote.split())}", f"> — {cite}"]  # the PDF's line breaks joined
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def to_pdf(pair: Sequence[Letter], path: Path) -> int:
    """Both letters as an A4 PDF (each on its own pages) in the embedded Korean font; returns how
    many characters the font lacks."""
    from importlib.resources import as_file, files

    from yakgwan.appeal.render import PdfFlow

    with as_file(files("pylopdf_fonts_ko") / "NotoSansKR-Regular.otf") as font_path:
        pdf = PdfFlow(font_path, pair[0].title)
        for n, letter in enumerate(pair):
            if n:
                pdf.pdf.add_page()
            pdf.para(letter.title, 16)
            pdf.pdf.ln(2)
            pdf.para(letter.addressee, 11)
            for s in letter.sections:
                pdf.heading(s.heading, 12)
                for p in s.paragraphs:
                    pdf.para(p, 10.5)
                for cite, quote in s.quotes:
                    pdf.para(" ".join(quote.split()), 10, indent=4, fill=True)  # the PDF's line breaks joined
                    pdf.para(f"— {cite}", 9, indent=4)
        pdf.pdf.output(str(path))
    return pdf.missing


def to_docx(pair: Sequence[Letter], path: Path) -> None:
    """Both letters as a Word document (a page break between them), for the sender to edit."""
    import docx
    from docx.enum.text import WD_BREAK

    doc = docx.Document()
    for n, letter in enumerate(pair):
        if n:
            doc.add_paragraph().add_run().add_break(WD_BREAK.PAGE)
        doc.add_heading(letter.title, level=1)
        doc.add_paragraph(letter.addressee)
        for s in letter.sections:
            doc.add_heading(s.heading, level=2)
            for p in s.paragraphs:
                doc.add_paragraph(p)
            for cite, quote in s.quotes:
                doc.add_paragraph(" ".join(quote.split()), style="Intense Quote")
                doc.add_paragraph(f"— {cite}")
    doc.save(str(path))


LETTER_SUFFIXES = (".md", ".pdf", ".docx")


def write(result: Mapping[str, Any], out: Path) -> tuple[Path, int]:
    """Both letters written to ``out`` (.md, .pdf or .docx); a folder (one that exists, or a path
    with no suffix, made) gets the file named from the case (:func:`file_name`, PDF). Returns the
    path written and how many characters a PDF's font lacks (drawn as □)."""
    if out.is_dir() or not out.suffix:
        out.mkdir(parents=True, exist_ok=True)
        out = out / file_name(result, "pdf")
    suffix = out.suffix.lower()
    if suffix not in LETTER_SUFFIXES:
        raise ValueError(f"{out}: a letter is written as {', '.join(LETTER_SUFFIXES)}")
    out.parent.mkdir(parents=True, exist_ok=True)
    pair = letters(result)
    missing = 0
    if suffix == ".md":
        out.write_text(to_markdown(pair), "utf-8")
    elif suffix == ".pdf":
        missing = to_pdf(pair, out)
    else:
        to_docx(pair, out)
    return out, missing
