"""The evidence pack as a document a person can hand over: Markdown, HTML (self-contained,
escaped, printable) or PDF (Noto Sans KR embedded). Korean throughout; every quote carries its citation (약관, 조/항, page)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any, Mapping

from yakgwan.appeal.band import percent

DISCLAIMER = (
    "이 자료는 약관과 통지서의 문언을 정리한 참고 자료이며 법률 자문이 아닙니다. "
    "성공 가능성은 금융감독원 금융분쟁조정사례의 결과 분포에서 출발한 추정치로, 결과를 보장하지 않습니다. "
    "중요한 결정 전에는 손해사정사나 변호사 등 전문가와 상의하십시오. (분쟁 사례 출처: 금융감독원 금융분쟁조정사례)"
)
KIND_KO = {"coverage_trigger": "지급사유", "exclusion": "면책", "definition": "용어 정의", "procedure": "청구·절차", "disclosure_duty": "알릴 의무"}


def _cite(p: Mapping[str, Any]) -> str:
    page = f", {p['page']}쪽" if p.get("page") else ""
    return f"{p['yakgwan']} {p['article']}{page}"


def _tag(item: Mapping[str, Any]) -> str:
    """Marks what the LLM analysis wrote (the templates' items carry no mark)."""
    return " (LLM 작성)" if item.get("by") == "llm" else ""


FINDING_KO = {"part_missing": "없는 항·호 인용", "article_missing": "없는 조 인용", "other_yakgwan": "다른 특약의 조항", "claimed_exclusion": "청구 특약의 면책 조항",
              "name_unresolved": "특정되지 않는 약관", "proviso_not_addressed": "다루지 않은 단서", "general_exclusion_on_own_list": "보통약관 면책의 적용",
              "quote_differs": "원문과 다른 인용", "threshold_misstated": "약관과 다른 수치 기준", "arithmetic_fails": "맞지 않는 수치 계산",
              "arithmetic_holds": "맞는 수치 계산", "definition_read_narrowly": "정의보다 좁게 읽은 용어",
              "full_denial_despite_reduction": "삭감 지급 대신 전액 거절", "ambiguity_read_against_policyholder": "불리하게 좁혀 읽은 불명확한 말"}
CHECK_KO = {"definition": "용어 정의 대조", "proportional": "삭감·비례 지급 규정", "ambiguity": "불명확한 말과 약관의 해석"}
STATUS_KO = {"found": "문제 있음", "not_found": "문제 없음", "not_assessed": "판단하지 않음", "not_applicable": "해당 없음"}
CHECKS_TITLE = "9. 읽기 검토 (정의·삭감 지급·해석)"


def check_lines(result: Mapping[str, Any]) -> list[str]:
    """Each reading check as one line: what it checks, how it came out, who judged and why,
    and the policy span it pointed to."""
    out = []
    for c in result.get("checks") or []:
        by = f" — {c['by']}" if c.get("by") else ""
        cite = f" [약관: {_cite(c['policy'])} “{c['policy']['quote'][:120]}”]" if c.get("policy") else ""
        said = f" [안내문: “{c['notice'][:120]}”]" if c.get("notice") else ""
        out.append(f"{CHECK_KO.get(c['check'], c['check'])}: {STATUS_KO.get(c['status'], c['status'])}{by} ({c['note']}){said}{cite}")
    return out
DIFF_LEGEND = "대조: [-원문에만 있는 말-] {+안내문에만 있는 말+}"
COMPARE_TITLE = "8. 안내문과 약관 원문 대조"


def comparisons(result: Mapping[str, Any]) -> list[dict[str, str]]:
    """Each finding that has both sides, as the pack shows it: what it is, what moved, the
    notice's sentence and the policy's own words with their citation."""
    out = []
    for f in result.get("findings") or []:
        if not (f.get("notice") and f.get("policy")):
            continue
        moved = f"밴드 {f['weight']:+.1f}" if f["weight"] else "참고"
        out.append({"title": f"{FINDING_KO.get(f['kind'], f['kind'])} ({moved}){_tag(f)}", "text": f["text"], "notice": f["notice"],
                    "cite": _cite(f["policy"]), "quote": f["policy"]["quote"], "diff": f.get("diff") or []})
    return out


def marked(diff: list[Mapping[str, str]]) -> str:
    """A quote's difference from the policy in plain text: [-only in the policy-] {+only in the notice+}."""
    wrap = {"same": "{}", "policy_only": "[-{}-]", "notice_only": "{{+{}+}}"}
    return "".join(wrap[d["op"]].format(d["text"]) for d in diff)


def marked_html(diff: list[Mapping[str, str]]) -> str:
    tag = {"same": "{}", "policy_only": "<del>{}</del>", "notice_only": "<ins>{}</ins>"}
    return "".join(tag[d["op"]].format(html.escape(d["text"])) for d in diff)


def _analysis_by(result: Mapping[str, Any]) -> str:
    by = result.get("analysis_by", "rules")
    return "규칙 기반 템플릿" if by == "rules" else f"규칙 기반 템플릿 + LLM({by}) 분석"


def _summary_rows(result: Mapping[str, Any]) -> list[tuple[str, str]]:
    d = result["denial"]
    rows = [
        ("보험회사", d.get("insurer")),
        ("상품", d.get("product")),
        ("증권번호", d.get("policy_no")),
        ("접수번호", d.get("claim_no")),
        ("청구 담보", ", ".join(d.get("claim_items") or [])),
        ("청구금액", f"{d['amount_won']:,}원" if d.get("amount_won") else None),
        *((k.replace("_date", "").replace("accident", "사고일").replace("claim", "청구일").replace("notice", "통지일"), v) for k, v in (d.get("dates") or {}).items()),
        ("통지서", d.get("source")),
        ("분석", _analysis_by(result)),
    ]
    return [(k, str(v)) for k, v in rows if v]


def to_markdown(result: Mapping[str, Any]) -> str:
    sp = result["success_probability"]
    out = ["# 보험금 부지급 재심사 근거 자료", "", "## 1. 부지급 통지 요약", ""]
    out += [f"- **{k}**: {v}" for k, v in _summary_rows(result)]
    out += ["", "## 2. 쟁점과 약관 근거", ""]
    for i, issue in enumerate(result["issue_tree"], 1):
        out += [f"### 사유 {i}", "", f"> {issue['reason']}", ""]
        if issue.get("cited"):
            out.append("통지서가 인용한 조항: " + "; ".join(issue["cited"]))
            out.append("")
        out += [f"- [{KIND_KO.get(s['kind'], s['kind'])}] {s['question']}{_tag(s)}" for s in issue["sub_issues"]]
        out.append("")
    out += ["## 3. 근거 조항 (인용)", ""]
    for item in result["evidence_pack"]:
        p = item["provenance"]
        out += [f"- **{item['claim']}**{_tag(item)} — {_cite(p)}", f"  > {p['quote']}", f"  <sub>문서 {p['doc']}, chunk {p['chunk_id']}</sub>"]
    out += ["", "## 4. 요건과 입증 현황", "", "| 약관 요건 | 통지서에 나타난 사실 | 보완할 점 |", "|---|---|---|"]
    out += [f"| {_md_cell(g['requirement'])} | {_md_cell(g['shown'] + _tag(g))} | {_md_cell(g['to_close'])} |" for g in result["gap_analysis"]]
    out += ["", "## 5. 수집할 서류", ""] + [f"- [ ] {doc}" for doc in result["documents_to_collect"]]
    out += ["", "## 6. 권고 조치", ""] + [f"{i}. {a}" for i, a in enumerate(result["recommended_actions"], 1)]
    out += ["", "## 7. 재심사 성공 가능성", "", f"**{sp['band']}** (추정 {percent(sp['probability'])})", "", sp["rationale"]]
    if cmp := comparisons(result):
        out += ["", f"## {COMPARE_TITLE}", ""]
        for c in cmp:
            out += [f"- **{c['title']}** {c['text']}", f"  - 안내문: {c['notice']}", f"  - 약관 원문 ({c['cite']}): {c['quote']}"]
            if c["diff"]:
                out.append(f"  - {DIFF_LEGEND}: {_md_cell(marked(c['diff']))}")
    if checks := check_lines(result):
        out += ["", f"## {CHECKS_TITLE}", ""] + [f"- {line}" for line in checks]
    out += ["", "---", "", DISCLAIMER, ""]
    return "\n".join(out)


def _md_cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


CSS = """
body { font-family: "Noto Sans KR", "Noto Sans CJK KR", "Apple SD Gothic Neo", "Malgun Gothic", sans-serif;
  max-width: 860px; margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.6; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; border-bottom: 1px solid #ccc; margin-top: 2rem; }
blockquote { margin: .4rem 0 .4rem 0; padding: .3rem .8rem; border-left: 3px solid #4C72B0; background: #f6f8fb; }
table { border-collapse: collapse; width: 100%; font-size: .92rem; } th, td { border: 1px solid #ccc; padding: .35rem; vertical-align: top; }
.cite { color: #555; font-size: .85rem; } .band { font-size: 1.3rem; font-weight: 700; }
del { background: #fde2e2; color: #8a1c1c; } ins { background: #e0f4e0; color: #1c5e1c; text-decoration: none; } .diff { font-size: .9rem; }
.disclaimer { color: #555; font-size: .85rem; border-top: 1px solid #ccc; padding-top: .6rem; margin-top: 2rem; }
@media print { body { margin: 0; } }
"""


def to_html(result: Mapping[str, Any]) -> str:
    e = lambda s: html.escape(str(s), quote=True)  # noqa: E731
    sp = result["success_probability"]
    parts = ["<h1>보험금 부지급 재심사 근거 자료</h1>", "<h2>1. 부지급 통지 요약</h2><table>"]
    parts += [f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in _summary_rows(result)]
    parts.append("</table><h2>2. 쟁점과 약관 근거</h2>")
    for i, issue in enumerate(result["issue_tree"], 1):
        parts.append(f"<h3>사유 {i}</h3><blockquote>{e(issue['reason'])}</blockquote>")
        if issue.get("cited"):
            parts.append(f"<p>통지서가 인용한 조항: {e('; '.join(issue['cited']))}</p>")
        parts.append("<ul>" + "".join(f"<li>[{e(KIND_KO.get(s['kind'], s['kind']))}] {e(s['question'] + _tag(s))}</li>" for s in issue["sub_issues"]) + "</ul>")
    parts.append("<h2>3. 근거 조항 (인용)</h2>")
    for item in result["evidence_pack"]:
        p = item["provenance"]
        parts.append(f"<p><strong>{e(item['claim'])}</strong>{e(_tag(item))} — {e(_cite(p))}</p><blockquote>{e(p['quote'])}</blockquote>"
                     f"<p class=\"cite\">문서 {e(p['doc'])}, chunk {e(p['chunk_id'])}</p>")
    parts.append("<h2>4. 요건과 입증 현황</h2><table><tr><th>약관 요건</th><th>통지서에 나타난 사실</th><th>보완할 점</th></tr>")
    parts += [f"<tr><td>{e(g['requirement'])}</td><td>{e(g['shown'] + _tag(g))}</td><td>{e(g['to_close'])}</td></tr>" for g in result["gap_analysis"]]
    parts.append("</table><h2>5. 수집할 서류</h2><ul>" + "".join(f"<li>☐ {e(doc)}</li>" for doc in result["documents_to_collect"]) + "</ul>")
    parts.append("<h2>6. 권고 조치</h2><ol>" + "".join(f"<li>{e(a)}</li>" for a in result["recommended_actions"]) + "</ol>")
    parts.append(f"<h2>7. 재심사 성공 가능성</h2><p class=\"band\">{e(sp['band'])} (추정 {percent(sp['probability'])})</p><p>{e(sp['rationale'])}</p>")
    if cmp := comparisons(result):
        parts.append(f"<h2>{COMPARE_TITLE}</h2><table><tr><th>발견 사항</th><th>안내문</th><th>약관 원문</th></tr>")
        parts += [f"<tr><td><b>{e(c['title'])}</b><br>{e(c['text'])}</td><td>{e(c['notice'])}</td><td>{e(c['cite'])}<br><q>{e(c['quote'])}</q>"
                  + (f"<br><span class=\"diff\">대조: {marked_html(c['diff'])}</span>" if c["diff"] else "") + "</td></tr>" for c in cmp]
        parts.append("</table>")
    if checks := check_lines(result):
        parts.append(f"<h2>{CHECKS_TITLE}</h2><ul>" + "".join(f"<li>{e(line)}</li>" for line in checks) + "</ul>")
    parts.append(f"<p class=\"disclaimer\">{e(DISCLAIMER)}</p>")
    return ('<!DOCTYPE html>\n<html lang="ko">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>보험금 부지급 재심사 근거 자료</title>\n<style>{CSS}</style>\n</head>\n<body>\n" + "\n".join(parts) + "\n</body>\n</html>\n")


# characters the font lacks, drawn as the one it has that looks the same (the JSON keeps the
# verbatim text; "뇌․내장수술비" uses U+2024 ONE DOT LEADER)
LOOKALIKES = str.maketrans({"\u2024": "\u00b7", "\u2027": "\u00b7", "\u2219": "\u00b7", "\u00a0": " "})


def to_pdf(result: Mapping[str, Any], path: Path) -> int:
    """Write the pack as an A4 PDF with Noto Sans KR (from the ``pylopdf-fonts-ko`` package,
    embedded as the subset used). Returns how many characters the font lacks (drawn as □);
    0 for Korean text, clause symbols (①, 【】) and ASCII; a few dots it lacks are drawn as the
    middle dot that looks the same."""
    from importlib.resources import as_file, files

    with as_file(files("pylopdf_fonts_ko") / "NotoSansKR-Regular.otf") as font_path:
        pdf = _Pdf(font_path)
        _pdf_notice_and_issues(pdf, result)
        _pdf_evidence_and_gaps(pdf, result)
        _pdf_actions_and_band(pdf, result)
        pdf.pdf.output(str(path))
    return pdf.missing


class _Pdf:
    """An A4 page flow in the one embedded font, counting the characters the font lacks."""

    def __init__(self, font_path: Path) -> None:
        from fontTools.ttLib import TTFont
        from fpdf import FPDF

        self.cmap = set(TTFont(str(font_path), lazy=True).getBestCmap())
        self.missing = 0
        self.pdf = FPDF(format="A4")
        self.pdf.set_auto_page_break(True, margin=15)
        self.pdf.add_font("KR", fname=str(font_path))
        self.pdf.set_title("보험금 부지급 재심사 근거 자료")
        self.pdf.add_page()
        self.width = self.pdf.w - self.pdf.l_margin - self.pdf.r_margin

    def text(self, value: object) -> str:
        s = str(value).translate(LOOKALIKES)
        bad = sum(1 for ch in s if ord(ch) not in self.cmap and ch not in "\n\t")
        self.missing += bad
        return "".join(ch if ord(ch) in self.cmap or ch in "\n\t" else "□" for ch in s) if bad else s

    def heading(self, text: str, size: int = 13) -> None:
        pdf = self.pdf
        pdf.ln(3)
        pdf.set_font("KR", size=size)
        pdf.multi_cell(self.width, size * 0.6, self.text(text), new_x="LMARGIN", new_y="NEXT")
        pdf.set_draw_color(180, 180, 180)
        pdf.line(pdf.l_margin, pdf.get_y(), pdf.l_margin + self.width, pdf.get_y())
        pdf.ln(2)

    def para(self, text: str, size: float = 10, indent: float = 0.0, fill: bool = False) -> None:
        pdf = self.pdf
        pdf.set_font("KR", size=size)
        pdf.set_x(pdf.l_margin + indent)
        if fill:
            pdf.set_fill_color(242, 245, 250)
        pdf.multi_cell(self.width - indent, size * 0.55, self.text(text), new_x="LMARGIN", new_y="NEXT", fill=fill, align="L")

    def table(self, rows: list[tuple[str, ...]]) -> None:
        """A table whose first row is its header (the font has no bold weight: a grey fill)."""
        from fpdf.fonts import FontFace

        self.pdf.set_font("KR", size=8.5)
        head_style = FontFace(emphasis="", fill_color=(235, 235, 235))
        with self.pdf.table(col_widths=(40, 35, 25), text_align="LEFT", line_height=4.6, headings_style=head_style) as table:
            for row_cells in rows:
                row = table.row()
                for cell in row_cells:
                    row.cell(self.text(cell))


def _pdf_notice_and_issues(pdf: _Pdf, result: Mapping[str, Any]) -> None:
    pdf.heading("보험금 부지급 재심사 근거 자료", 16)
    pdf.heading("1. 부지급 통지 요약")
    for k, v in _summary_rows(result):
        pdf.para(f"{k}: {v}")
    pdf.heading("2. 쟁점과 약관 근거")
    for i, issue in enumerate(result["issue_tree"], 1):
        pdf.para(f"사유 {i}", 11)
        pdf.para(issue["reason"], indent=4, fill=True)
        if issue.get("cited"):
            pdf.para("통지서가 인용한 조항: " + "; ".join(issue["cited"]), 9)
        for s in issue["sub_issues"]:
            pdf.para(f"• [{KIND_KO.get(s['kind'], s['kind'])}] {s['question']}{_tag(s)}", indent=2)
        pdf.pdf.ln(1)


def _pdf_evidence_and_gaps(pdf: _Pdf, result: Mapping[str, Any]) -> None:
    pdf.heading("3. 근거 조항 (인용)")
    for item in result["evidence_pack"]:
        p = item["provenance"]
        pdf.para(f"{item['claim']}{_tag(item)} — {_cite(p)}", 10)
        pdf.para(p["quote"], 9.5, indent=4, fill=True)
        pdf.para(f"문서 {p['doc']}, chunk {p['chunk_id']}", 8, indent=4)
        pdf.pdf.ln(1)
    pdf.heading("4. 요건과 입증 현황")
    pdf.table([("약관 요건", "통지서에 나타난 사실", "보완할 점")] + [(g["requirement"], g["shown"] + _tag(g), g["to_close"]) for g in result["gap_analysis"]])


def _pdf_actions_and_band(pdf: _Pdf, result: Mapping[str, Any]) -> None:
    sp = result["success_probability"]
    pdf.heading("5. 수집할 서류")
    for doc in result["documents_to_collect"]:
        pdf.para(f"□ {doc}", indent=2)
    pdf.heading("6. 권고 조치")
    for i, a in enumerate(result["recommended_actions"], 1):
        pdf.para(f"{i}. {a}", indent=2)
    pdf.heading("7. 재심사 성공 가능성")
    pdf.para(f"{sp['band']} (추정 {percent(sp['probability'])})", 13)
    pdf.para(sp["rationale"])
    if cmp := comparisons(result):
        pdf.heading(COMPARE_TITLE)
        for c in cmp:
            pdf.para(c["title"], 10)
            pdf.para(c["text"], 9.5, indent=2)
            pdf.para(f"안내문: {c['notice']}", 9.5, indent=4)
            pdf.para(f"약관 원문 ({c['cite']}): {c['quote']}", 9.5, indent=4, fill=True)
            if c["diff"]:
                pdf.para(f"{DIFF_LEGEND}: {marked(c['diff'])}", 9.5, indent=4)
    if checks := check_lines(result):
        pdf.heading(CHECKS_TITLE)
        for line in checks:
            pdf.para(f"• {line}", 9.5, indent=2)
    pdf.pdf.ln(4)
    pdf.para(DISCLAIMER, 8.5)
