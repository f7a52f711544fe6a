"""No import circle inside or between the text, websearch, chunking and loaders packages (read
with ``ast``, imports inside functions included). The project-wide layer check lives elsewhere."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import yakgwan

pytestmark = pytest.mark.unit

SRC = Path(yakgwan.__file__).parent.parent
PACKAGES = ("text", "websearch", "chunking", "loaders")


def _modules() -> dict[str, Path]:
    mods = {}
    for pkg in PACKAGES:
        for path in (SRC / "yakgwan" / pkg).rglob("*.py"):
            parts = path.relative_to(SRC).with_suffix("").parts
            mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return mods


def _imports(name: str, path: Path, mods: dict[str, Path]) -> set[str]:
    """The modules of ``mods`` that ``name`` imports (``from a import b`` counts ``a.b`` if it is a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                head = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(head + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        found |= {t for t in targets if t in mods and t != name}
    return found


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` (as a path that returns to its start), or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 finished

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt, path + [nxt])):
                return found
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start, [start])):
            return found
    return None


def test_cycle_finder_finds_a_circle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_circle_in_text_websearch_chunking_loaders() -> None:
    mods = _modules()
    assert "yakgwan.text.registry" in mods and "yakgwan.websearch.registry" in mods
    graph = {name: _imports(name, path, mods) for name, path in mods.items()}
    assert _cycle(graph) is None
