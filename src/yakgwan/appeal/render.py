"""The evidence pack as a document a person can hand over: Markdown, HTML (self-contained,
escaped, printable) or PDF (Noto Sans KR embedded). Its headings and labels come from the message
catalogue in the reader's language (Korean by default, English on request); what it quotes (the
notice, the policy, the analysis) stays as written. Every quote carries its citation (약관, 조/항,
page) and the document it comes from, by the name it was given."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any, Mapping

from yakgwan.messages import DEFAULT_LANG, catalogue, msg
from yakgwan.messages.catalogue import Param


class Words:
    """The pack's labels in one language."""

    def __init__(self, lang: str = DEFAULT_LANG) -> None:
        self.lang = lang

    def __call__(self, key: str, /, **params: Param) -> str:
        return msg(key, **params).text(self.lang)

    def named(self, prefix: str, value: str) -> str:
        """``prefix + value``'s text, or ``value`` where the catalogue has no words for it."""
        return self(prefix + value) if catalogue().has(prefix + value) else value

    def cite(self, p: Mapping[str, Any]) -> str:
        page = f", {self('pack.page', page=p['page'])}" if p.get("page") else ""
        return f"{p['yakgwan']} {p['article']}{page}"

    def tag(self, item: Mapping[str, Any]) -> str:
        """Marks what the LLM analysis wrote (the templates' items carry no mark)."""
        return self("pack.by_llm") if item.get("by") == "llm" else ""


DISCLAIMER = Words()("pack.disclaimer")
CHECKS_TITLE = Words()("pack.checks")
COMPARE_TITLE = Words()("pack.compare")


def check_lines(result: Mapping[str, Any], w: Words | None = None) -> list[str]:
    """Each reading check as one line: what it checks, how it came out, who judged and why,
    and the policy span it pointed to."""
    w = w or Words()
    out = []
    for c in result.get("checks") or []:
        by = f" — {c['by']}" if c.get("by") else ""
        cite = f" [{w('pack.policy')}: {w.cite(c['policy'])} “{c['policy']['quote'][:120]}”]" if c.get("policy") else ""
        said = f" [{w('pack.notice')}: “{c['notice'][:120]}”]" if c.get("notice") else ""
        out.append(f"{w.named('check.', c['check'])}: {w.named('check.status.', c['status'])}{by} ({c['note']}){said}{cite}")
    return out


def comparisons(result: Mapping[str, Any], w: Words | None = None) -> list[dict[str, str]]:
    """Each finding that has both sides, as the pack shows it: what it is, what moved, the
    notice's sentence and the policy's own words with their citation."""
    w = w or Words()
    out = []
    for f in result.get("findings") or []:
        if not (f.get("notice") and f.get("policy")):
            continue
        moved = w.named("pack.effect.", f["effect"])
        out.append({"title": f"{w.named('finding.', f['kind'])} ({moved}){w.tag(f)}", "text": f["text"], "notice": f["notice"],
                    "cite": w.cite(f["policy"]), "quote": f["policy"]["quote"], "diff": f.get("diff") or []})
    return out


def marked(diff: list[Mapping[str, str]]) -> str:
    """A quote's difference from the policy in plain text: [-only in the policy-] {+only in the notice+}."""
    wrap = {"same": "{}", "policy_only": "[-{}-]", "notice_only": "{{+{}+}}"}
    return "".join(wrap[d["op"]].format(d["text"]) for d in diff)


def marked_html(diff: list[Mapping[str, str]]) -> str:
    tag = {"same": "{}", "policy_only": "<del>{}</del>", "notice_only": "<ins>{}</ins>"}
    return "".join(tag[d["op"]].format(html.escape(d["text"])) for d in diff)


def _analysis_by(result: Mapping[str, Any], w: Words) -> str:
    by = result.get("analysis_by", "rules")
    return w("pack.by_rules") if by == "rules" else w("pack.by_model", model=by)


def _summary_rows(result: Mapping[str, Any], w: Words) -> list[tuple[str, str]]:
    d = result["denial"]
    dates = [(w.named("pack.date.", k.removesuffix("_date")), v) for k, v in (d.get("dates") or {}).items()]
    rows = [
        (w("pack.insurer"), d.get("insurer")),
        (w("pack.product"), d.get("product")),
        (w("pack.policy_no"), d.get("policy_no")),
        (w("pack.claim_no"), d.get("claim_no")),
        (w("pack.claim_items"), ", ".join(d.get("claim_items") or [])),
        (w("pack.amount"), w("pack.won", amount=f"{d['amount_won']:,}") if d.get("amount_won") else None),
        *dates,
        (w("pack.notice_file"), d.get("source")),
        (w("pack.analysis"), _analysis_by(result, w)),
    ]
    return [(k, str(v)) for k, v in rows if v]


def _laws(result: Mapping[str, Any], i: int) -> list[str]:
    reasons = result["denial"].get("reasons") or []
    return list(reasons[i].get("laws") or []) if i < len(reasons) else []


def to_markdown(result: Mapping[str, Any], lang: str = DEFAULT_LANG) -> str:
    w = Words(lang)
    sp = result["success_probability"]
    out = [f"# {w('pack.title')}", "", f"## {w('pack.summary')}", ""]
    out += [f"- **{k}**: {v}" for k, v in _summary_rows(result, w)]
    out += ["", f"## {w('pack.issues')}", ""]
    for i, issue in enumerate(result["issue_tree"], 1):
        out += [f"### {w('pack.reason', n=i)}", "", f"> {issue['reason']}", ""]
        if issue.get("cited"):
            out += [w("pack.cited", clauses="; ".join(issue["cited"])), ""]
        if laws := _laws(result, i - 1):
            out += [w("pack.laws", laws="; ".join(laws)), ""]
        out += [f"- [{w.named('issue.kind.', s['kind'])}] {s['question']}{w.tag(s)}" for s in issue["sub_issues"]]
        out.append("")
    out += [f"## {w('pack.evidence')}", ""]
    for item in result["evidence_pack"]:
        p = item["provenance"]
        out += [f"- **{item['claim']}**{w.tag(item)} — {w.cite(p)}", f"  > {p['quote']}", f"  <sub>{w('pack.source', doc=p.get('doc_name') or p['doc'])}</sub>"]
    out += ["", f"## {w('pack.gaps')}", "", f"| {w('pack.requirement')} | {w('pack.shown')} | {w('pack.to_close')} |", "|---|---|---|"]
    out += [f"| {_md_cell(g['requirement'])} | {_md_cell(g['shown'] + w.tag(g))} | {_md_cell(g['to_close'])} |" for g in result["gap_analysis"]]
    out += ["", f"## {w('pack.documents')}", ""] + [f"- [ ] {doc}" for doc in result["documents_to_collect"]]
    out += ["", f"## {w('pack.actions')}", ""] + [f"{i}. {a}" for i, a in enumerate(result["recommended_actions"], 1)]
    out += ["", f"## {w('pack.band')}", "", f"**{sp['band']}** ({w.named('band.', sp['band'])})", "", sp["rationale"]]
    if cmp := comparisons(result, w):
        out += ["", f"## {w('pack.compare')}", ""]
        for c in cmp:
            out += [f"- **{c['title']}** {c['text']}", f"  - {w('pack.notice')}: {c['notice']}", f"  - {w('pack.policy')} ({c['cite']}): {c['quote']}"]
            if c["diff"]:
                out.append(f"  - {w('pack.diff_legend')}: {_md_cell(marked(c['diff']))}")
    if checks := check_lines(result, w):
        out += ["", f"## {w('pack.checks')}", ""] + [f"- {line}" for line in checks]
    out += ["", "---", "", w("pack.disclaimer"), ""]
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


def to_html(result: Mapping[str, Any], lang: str = DEFAULT_LANG) -> str:
    w = Words(lang)
    e = lambda s: html.escape(str(s), quote=True)  # noqa: E731
    sp = result["success_probability"]
    parts = [f"<h1>{e(w('pack.title'))}</h1>", f"<h2>{e(w('pack.summary'))}</h2><table>"]
    parts += [f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in _summary_rows(result, w)]
    parts.append(f"</table><h2>{e(w('pack.issues'))}</h2>")
    for i, issue in enumerate(result["issue_tree"], 1):
        parts.append(f"<h3>{e(w('pack.reason', n=i))}</h3><blockquote>{e(issue['reason'])}</blockquote>")
        if issue.get("cited"):
            parts.append(f"<p>{e(w('pack.cited', clauses='; '.join(issue['cited'])))}</p>")
        if laws := _laws(result, i - 1):
            parts.append(f"<p>{e(w('pack.laws', laws='; '.join(laws)))}</p>")
        parts.append("<ul>" + "".join(f"<li>[{e(w.named('issue.kind.', s['kind']))}] {e(s['question'] + w.tag(s))}</li>" for s in issue["sub_issues"]) + "</ul>")
    parts.append(f"<h2>{e(w('pack.evidence'))}</h2>")
    for item in result["evidence_pack"]:
        p = item["provenance"]
        parts.append(f"<p><strong>{e(item['claim'])}</strong>{e(w.tag(item))} — {e(w.cite(p))}</p><blockquote>{e(p['quote'])}</blockquote>"
                     f"<p class=\"cite\">{e(w('pack.source', doc=p.get('doc_name') or p['doc']))}</p>")
    parts.append(f"<h2>{e(w('pack.gaps'))}</h2><table><tr><th>{e(w('pack.requirement'))}</th><th>{e(w('pack.shown'))}</th><th>{e(w('pack.to_close'))}</th></tr>")
    parts += [f"<tr><td>{e(g['requirement'])}</td><td>{e(g['shown'] + w.tag(g))}</td><td>{e(g['to_close'])}</td></tr>" for g in result["gap_analysis"]]
    parts.append(f"</table><h2>{e(w('pack.documents'))}</h2><ul>" + "".join(f"<li>☐ {e(doc)}</li>" for doc in result["documents_to_collect"]) + "</ul>")
    parts.append(f"<h2>{e(w('pack.actions'))}</h2><ol>" + "".join(f"<li>{e(a)}</li>" for a in result["recommended_actions"]) + "</ol>")
    parts.append(f"<h2>{e(w('pack.band'))}</h2><p class=\"band\">{e(sp['band'])} ({e(w.named('band.', sp['band']))})</p><p>{e(sp['rationale'])}</p>")
    if cmp := comparisons(result, w):
        parts.append(f"<h2>{e(w('pack.compare'))}</h2><table><tr><th>{e(w('pack.finding'))}</th><th>{e(w('pack.notice'))}</th><th>{e(w('pack.policy'))}</th></tr>")
        parts += [f"<tr><td><b>{e(c['title'])}</b><br>{e(c['text'])}</td><td>{e(c['notice'])}</td><td>{e(c['cite'])}<br><q>{e(c['quote'])}</q>"
                  + (f"<br><span class=\"diff\">{e(w('pack.diff'))}: {marked_html(c['diff'])}</span>" if c["diff"] else "") + "</td></tr>" for c in cmp]
        parts.append("</table>")
    if checks := check_lines(result, w):
        parts.append(f"<h2>{e(w('pack.checks'))}</h2><ul>" + "".join(f"<li>{e(line)}</li>" for line in checks) + "</ul>")
    parts.append(f"<p class=\"disclaimer\">{e(w('pack.disclaimer'))}</p>")
    return (f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{e(w('pack.title'))}</title>\n<style>{CSS}</style>\n</head>\n<body>\n" + "\n".join(parts) + "\n</body>\n</html>\n")


# characters the font lacks, drawn as the one it has that looks the same (the JSON keeps the
# verbatim text; "뇌․내장수술비" uses U+2024 ONE DOT LEADER)
LOOKALIKES = str.maketrans({"\u2024": "\u00b7", "\u2027": "\u00b7", "\u2219": "\u00b7", "\u00a0": " "})


def to_pdf(result: Mapping[str, Any], path: Path, lang: str = DEFAULT_LANG) -> int:
    """Write the pack as an A4 PDF with Noto Sans KR (from the ``pylopdf-fonts-ko`` package,
    embedded as the subset used). Returns how many characters the font lacks (drawn as □);
    0 for Korean text, clause symbols (①, 【】) and ASCII; a few dots it lacks are drawn as the
    middle dot that looks the same."""
    from importlib.resources import as_file, files

    with as_file(files("pylopdf_fonts_ko") / "NotoSansKR-Regular.otf") as font_path:
        w = Words(lang)
        pdf = PdfFlow(font_path, w("pack.title"))
        _pdf_notice_and_issues(pdf, result, w)
        _pdf_evidence_and_gaps(pdf, result, w)
        _pdf_actions_and_band(pdf, result, w)
        pdf.pdf.output(str(path))
    return pdf.missing


class PdfFlow:
    """An A4 page flow in the one embedded font, counting the characters the font lacks."""

    def __init__(self, font_path: Path, title: str) -> None:
        from fontTools.ttLib import TTFont
        from fpdf import FPDF

        self.cmap = set(TTFont(str(font_path), lazy=True).getBestCmap())
        self.missing = 0
        self.pdf = FPDF(format="A4")
        self.pdf.set_auto_page_break(True, margin=15)
        self.pdf.add_font("KR", fname=str(font_path))
        self.pdf.set_title(title)
        self.pdf.add_page()
        self.width = self.pdf.w - self.pdf.l_margin - self.pdf.r_margin

    def text(self, value: object) -> str:
        s = str(value).translate(LOOKALIKES).replace("\t", " ")  # the font has no tab
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


def _pdf_notice_and_issues(pdf: PdfFlow, result: Mapping[str, Any], w: Words) -> None:
    pdf.heading(w("pack.title"), 16)
    pdf.heading(w("pack.summary"))
    for k, v in _summary_rows(result, w):
        pdf.para(f"{k}: {v}")
    pdf.heading(w("pack.issues"))
    for i, issue in enumerate(result["issue_tree"], 1):
        pdf.para(w("pack.reason", n=i), 11)
        pdf.para(issue["reason"], indent=4, fill=True)
        if issue.get("cited"):
            pdf.para(w("pack.cited", clauses="; ".join(issue["cited"])), 9)
        if laws := _laws(result, i - 1):
            pdf.para(w("pack.laws", laws="; ".join(laws)), 9)
        for s in issue["sub_issues"]:
            pdf.para(f"• [{w.named('issue.kind.', s['kind'])}] {s['question']}{w.tag(s)}", indent=2)
        pdf.pdf.ln(1)


def _pdf_evidence_and_gaps(pdf: PdfFlow, result: Mapping[str, Any], w: Words) -> None:
    pdf.heading(w("pack.evidence"))
    for item in result["evidence_pack"]:
        p = item["provenance"]
        pdf.para(f"{item['claim']}{w.tag(item)} — {w.cite(p)}", 10)
        pdf.para(p["quote"], 9.5, indent=4, fill=True)
        pdf.para(w("pack.source", doc=p.get("doc_name") or p["doc"]), 8, indent=4)
        pdf.pdf.ln(1)
    pdf.heading(w("pack.gaps"))
    pdf.table([(w("pack.requirement"), w("pack.shown"), w("pack.to_close"))] + [(g["requirement"], g["shown"] + w.tag(g), g["to_close"]) for g in result["gap_analysis"]])


def _pdf_actions_and_band(pdf: PdfFlow, result: Mapping[str, Any], w: Words) -> None:
    sp = result["success_probability"]
    pdf.heading(w("pack.documents"))
    for doc in result["documents_to_collect"]:
        pdf.para(f"□ {doc}", indent=2)
    pdf.heading(w("pack.actions"))
    for i, a in enumerate(result["recommended_actions"], 1):
        pdf.para(f"{i}. {a}", indent=2)
    pdf.heading(w("pack.band"))
    pdf.para(f"{sp['band']} ({w.named('band.', sp['band'])})", 13)
    pdf.para(sp["rationale"])
    if cmp := comparisons(result, w):
        pdf.heading(w("pack.compare"))
        for c in cmp:
            pdf.para(c["title"], 10)
            pdf.para(c["text"], 9.5, indent=2)
            pdf.para(f"{w('pack.notice')}: {c['notice']}", 9.5, indent=4)
            pdf.para(f"{w('pack.policy')} ({c['cite']}): {c['quote']}", 9.5, indent=4, fill=True)
            if c["diff"]:
                pdf.para(f"{w('pack.diff_legend')}: {marked(c['diff'])}", 9.5, indent=4)
    if checks := check_lines(result, w):
        pdf.heading(w("pack.checks"))
        for line in checks:
            pdf.para(f"• {line}", 9.5, indent=2)
    pdf.pdf.ln(4)
    pdf.para(w("pack.disclaimer"), 8.5)
