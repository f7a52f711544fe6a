"""What text of a chunk is indexed (lexically and densely): its verbatim text prefixed by the
provenance a searcher would type — document title, section path, 약관 name, 조 and its title —
and, when an ingest step wrote one, the chunk's retrieval text (headline + summary, a rewrite).

Quotes and citations always use ``Chunk.text``; this prefix only helps retrieval find it.
"""

from __future__ import annotations

from yakgwan.core.records import Chunk


def index_text(chunk: Chunk) -> str:
    head: list[str] = []
    if chunk.yakgwan:
        head.append(chunk.yakgwan)
    elif chunk.title:
        head.append(chunk.title)
    if chunk.article:
        art = f"{chunk.article}({chunk.article_title})" if chunk.article_title else chunk.article
        if art not in chunk.text[:80]:
            head.append(art)
    elif chunk.section and chunk.section != chunk.title:
        section = chunk.section
        if chunk.title and section.startswith(chunk.title + " > "):
            section = section[len(chunk.title) + 3 :]
        head.append(section)
    prefix = " | ".join(h for h in head if h and h not in chunk.text[:120])
    body = f"{chunk.retrieval_text}\n{chunk.text}" if chunk.retrieval_text else chunk.text
    return f"{prefix}\n{body}" if prefix else body
