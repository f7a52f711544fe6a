"""The layers of ``src/yakgwan`` and which may import which (docs/architecture.md), checked over
the source with ``ast``: every import counts, including those inside functions and under
``TYPE_CHECKING``, since a circle through a lazy import is still a circle."""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

SRC = Path(__file__).resolve().parents[3] / "src" / "yakgwan"

# lowest first; a package may import its own layer and those below, never one above
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"core", "messages"}),
    frozenset({"config", "text", "ingest", "embedders", "store", "retrieval", "rerank", "query", "llm", "websearch",
               "progress", "openai_http", "sqlite_kv"}),
    frozenset({"pipelines", "answer", "appeal", "eval"}),
    frozenset({"services"}),
    frozenset({"cli", "server"}),
)
CLIENTS_MAY_IMPORT = frozenset({"services", "core", "config", "messages"})
# ``yakgwan serve`` is the one command that starts the server
CLI_STARTS_SERVER = ("yakgwan.cli.serve", "yakgwan.server.run")
NO_PRINTING = ("eval", "services", "answer", "appeal")
BACKEND_NAMES = frozenset({"LocalStore", "LocalView", "MANIFEST"})
# packages whose sub-packages are separate units for the circle check: retrieval's pure scoring
# maths sits below the stores that save a BM25 index, its retrievers above them; ingest's
# chunkers also split the documents of the offline web-search folder, below the ingest run
SPLIT_PACKAGES = frozenset({"retrieval", "ingest"})


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


@lru_cache(maxsize=1)
def _modules() -> dict[str, tuple[Path, ast.Module]]:
    return {_module_name(p): (p, ast.parse(p.read_text("utf-8"), str(p))) for p in sorted(SRC.rglob("*.py"))}


def _resolve(name: str, modules: dict[str, object]) -> str | None:
    """The module ``name`` refers to (``pkg.mod.func`` → ``pkg.mod``), or None outside yakgwan."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


@lru_cache(maxsize=1)
def import_graph() -> dict[str, frozenset[str]]:
    """Module → the yakgwan modules it imports."""
    modules = _modules()
    graph: dict[str, set[str]] = defaultdict(set)
    for name, (path, tree) in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                targets = [f"{base}.{a.name}" for a in node.names] + [base]
            for t in targets:
                if t.startswith("yakgwan") and (r := _resolve(t, modules)) and r != name:
                    graph[name].add(r)
        graph.setdefault(name, set())
    return {k: frozenset(v) for k, v in graph.items()}


def strongly_connected(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """Tarjan's algorithm (iterative): the components of more than one node, i.e. the circles."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[v] = min(low[v], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def top_package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def layer_of(package: str) -> int:
    for i, members in enumerate(LAYERS):
        if package in members:
            return i
    raise AssertionError(f"package yakgwan.{package} is in no layer of tests/unit/project/test_architecture.py: add it (and to docs/architecture.md)")


def test_the_circle_finder_finds_circles() -> None:
    graph = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset({"a"}), "e": frozenset()}
    assert strongly_connected(graph) == [["a", "b", "c"]]
    assert strongly_connected({"a": frozenset({"b"}), "b": frozenset()}) == []


def test_no_import_circles_between_modules() -> None:
    circles = strongly_connected(import_graph())
    assert circles == [], "import circles: " + "; ".join(" ↔ ".join(c) for c in circles)


def unit_of(module: str) -> str:
    """The package a module belongs to for the circle check (``retrieval.scoring`` for
    ``yakgwan.retrieval.scoring.bm25``; ``text`` for ``yakgwan.text.registry``)."""
    parts = module.split(".")[1:]
    return ".".join(parts[:2]) if parts and parts[0] in SPLIT_PACKAGES and len(parts) > 2 else (parts[0] if parts else "")


def test_no_import_circles_between_packages() -> None:
    packages: dict[str, set[str]] = defaultdict(set)
    for module, targets in import_graph().items():
        for t in targets:
            if unit_of(t) != unit_of(module) and unit_of(module) and unit_of(t):
                packages[unit_of(module)].add(unit_of(t))
    circles = strongly_connected({k: frozenset(v) for k, v in packages.items()})
    assert circles == [], "package circles: " + "; ".join(" ↔ ".join(c) for c in circles)


def test_every_package_is_in_a_layer_and_imports_none_above_it() -> None:
    wrong = []
    for module, targets in import_graph().items():
        if not top_package(module):
            continue
        mine = layer_of(top_package(module))
        for t in targets:
            if top_package(t) and layer_of(top_package(t)) > mine and (module, t) != CLI_STARTS_SERVER:
                wrong.append(f"{module} imports {t}")
    assert wrong == [], "imports from a higher layer:\n" + "\n".join(sorted(wrong))


def test_cli_and_server_are_thin_clients_of_services() -> None:
    wrong = []
    for module, targets in import_graph().items():
        client = top_package(module)
        if client not in ("cli", "server"):
            continue
        for t in targets:
            if top_package(t) not in CLIENTS_MAY_IMPORT | {client, ""} and (module, t) != CLI_STARTS_SERVER:
                wrong.append(f"{module} imports {t}")
    assert wrong == [], "cli/ and server/ may import services/, core/ and config/ only:\n" + "\n".join(sorted(wrong))


def test_nothing_imports_the_cli() -> None:
    wrong = [f"{m} imports {t}" for m, targets in import_graph().items() if top_package(m) != "cli" for t in targets if top_package(t) == "cli"]
    assert wrong == []


def test_no_printing_or_argument_parsing_below_the_clients() -> None:
    wrong = []
    for name, (path, tree) in _modules().items():
        if top_package(name) not in NO_PRINTING:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                wrong.append(f"{path.relative_to(SRC)}:{node.lineno}: print()")
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
                if "argparse" in names:
                    wrong.append(f"{path.relative_to(SRC)}:{node.lineno}: imports argparse")
    assert wrong == [], "\n".join(wrong)


def test_no_module_outside_store_names_a_backend() -> None:
    wrong = []
    for name, (path, tree) in _modules().items():
        if top_package(name) == "store":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in BACKEND_NAMES or isinstance(node, ast.alias) and node.name in BACKEND_NAMES:
                wrong.append(f"{path.relative_to(SRC)}:{getattr(node, 'lineno', '?')}: {getattr(node, 'id', None) or node.name}")
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("yakgwan.store.") and node.module != "yakgwan.store.base":
                wrong.append(f"{path.relative_to(SRC)}:{node.lineno}: imports {node.module}")
    assert wrong == [], "open stores with yakgwan.store.open_store:\n" + "\n".join(wrong)
