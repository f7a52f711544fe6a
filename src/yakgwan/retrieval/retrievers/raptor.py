"""RAPTOR: a tree of LLM summaries over the index, searched beside the chunks.

Build (once per index, LLM and prompt; cached under ``<cache>/raptor/``): the chunks' dense vectors
are clustered by k-means into groups of about ``CLUSTER_SIZE``; the LLM summarises each group;
the summaries are embedded and clustered again, level by level, until at most ``TOP_NODES``
remain or ``MAX_LEVELS`` is reached. Every summary node keeps its children, down to the chunks.

Retrieve: the question's dense vector is compared with every summary node; the best
``NODES_SEARCHED`` nodes each expand to their leaf chunks (ordered by the chunk's own similarity
to the question), and that list is fused by RRF with the first stage's (weighted double). A hit
is always a real chunk, so citations stay verbatim; summaries only steer.

What it costs is reported by :class:`RaptorTree` (``build_seconds``, LLM calls, nodes, bytes).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from yakgwan.messages import msg
from yakgwan.llm import LLM
from yakgwan.llm.prompts.raptor import CHILD_CHARS, summary_messages
from yakgwan.llm.types import GenParams
from yakgwan.progress import Bar, ProgressSink
from yakgwan.core.protocols import Embedder, Retriever, k_below_one_finds_nothing
from yakgwan.core.records import Chunk, Hit, sha256_hex
from yakgwan.retrieval.hit_lists import fuse_hit_lists

CLUSTER_SIZE = 6
TOP_NODES = 3
MAX_LEVELS = 3
NODES_SEARCHED = 3
DIRECT_WEIGHT = 2.0  # of the first stage's list in the fusion with the nodes' chunks
SUMMARY_TOKENS = 128
KMEANS_ITERATIONS = 20
PROMPT_VERSION = "raptor-v1"


def kmeans(x: np.ndarray, k: int, iterations: int = KMEANS_ITERATIONS) -> np.ndarray:
    """Cluster labels for the rows of ``x`` (unit vectors; cosine), deterministic: farthest-point
    seeding from row 0, then Lloyd iterations; an emptied cluster keeps its previous centre."""
    n = x.shape[0]
    k = max(1, min(k, n))
    centres = [0]
    dist = 1.0 - x @ x[0]
    for _ in range(1, k):
        nxt = int(np.argmax(dist))
        centres.append(nxt)
        dist = np.minimum(dist, 1.0 - x @ x[nxt])
    c = x[centres].copy()
    labels = np.zeros(n, dtype=int)
    for _ in range(iterations):
        new = np.argmax(x @ c.T, axis=1)
        if np.array_equal(new, labels) and _ > 0:
            break
        labels = new
        for j in range(k):
            members = x[labels == j]
            if len(members):
                m = members.mean(axis=0)
                c[j] = m / max(float(np.linalg.norm(m)), 1e-12)
    return labels


@dataclass
class Node:
    node_id: str
    level: int
    text: str
    children: list[str]  # chunk ids (level 1) or node ids


@dataclass
class RaptorTree:
    nodes: list[Node]
    vectors: np.ndarray  # one row per node
    leaves: dict[str, list[str]]  # node id -> its chunk ids
    build_seconds: float = 0.0
    llm_calls: int = 0
    size_bytes: int = 0
    fingerprint: str = ""


def tree_fingerprint(chunks: Sequence[Chunk], llm: LLM, embedder_id: str) -> str:
    ids = "\n".join(sorted(c.chunk_id for c in chunks))
    return sha256_hex(f"{PROMPT_VERSION}\x00{llm.name}\x00{embedder_id}\x00{CLUSTER_SIZE}\x00{MAX_LEVELS}\x00{SUMMARY_TOKENS}\x00{ids}")[:16]


def build_tree(chunks: Sequence[Chunk], vectors: np.ndarray, llm: LLM, embedder: Embedder, quiet: bool = True, sink: ProgressSink | None = None) -> RaptorTree:
    """Summarise clusters level by level (see the module docstring), a progress bar per level."""
    t0 = time.perf_counter()
    calls0 = llm.stats.calls
    nodes: list[Node] = []
    leaves: dict[str, list[str]] = {}
    level_ids = [c.chunk_id for c in chunks]
    level_texts = [c.text for c in chunks]
    level_vecs = vectors
    all_vecs: list[np.ndarray] = []
    for level in range(1, MAX_LEVELS + 1):
        if len(level_ids) <= TOP_NODES:
            break
        labels = kmeans(level_vecs, math.ceil(len(level_ids) / CLUSTER_SIZE))
        groups = [np.flatnonzero(labels == j) for j in sorted(set(labels.tolist()))]
        bar = Bar(msg("stage.raptor", level=level), len(groups), quiet, unit="cluster", sink=sink)
        texts, ids = [], []
        for j, g in enumerate(groups):
            summary = llm.complete(summary_messages([level_texts[i] for i in g]), params=GenParams(max_tokens=SUMMARY_TOKENS), step="raptor_summary").strip()
            node = Node(f"L{level}N{j}", level, summary or " ".join(level_texts[g[0]].split())[:CHILD_CHARS], [level_ids[i] for i in g])
            leaves[node.node_id] = [c for child in node.children for c in leaves.get(child, [child])]
            nodes.append(node)
            texts.append(node.text)
            ids.append(node.node_id)
            bar.update(1)
        bar.close()
        vecs = embedder.embed(texts, "passage")
        all_vecs.append(vecs)
        level_ids, level_texts, level_vecs = ids, texts, vecs
    matrix = np.concatenate(all_vecs) if all_vecs else np.zeros((0, vectors.shape[1] if vectors.ndim == 2 else 0), dtype=np.float32)
    return RaptorTree(nodes, matrix, leaves, time.perf_counter() - t0, llm.stats.calls - calls0)


def save_tree(tree: RaptorTree, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    meta = {"nodes": [n.__dict__ for n in tree.nodes], "leaves": tree.leaves, "build_seconds": tree.build_seconds, "llm_calls": tree.llm_calls}
    tmp = folder / f"{tree.fingerprint}.json.tmp"
    tmp.write_text(json.dumps(meta, ensure_ascii=False), "utf-8")
    np.save(folder / f"{tree.fingerprint}.npy", tree.vectors.astype(np.float32))
    tmp.replace(folder / f"{tree.fingerprint}.json")
    tree.size_bytes = (folder / f"{tree.fingerprint}.json").stat().st_size + (folder / f"{tree.fingerprint}.npy").stat().st_size


def load_tree(folder: Path, fingerprint: str) -> RaptorTree | None:
    meta_path, vec_path = folder / f"{fingerprint}.json", folder / f"{fingerprint}.npy"
    if not (meta_path.is_file() and vec_path.is_file()):
        return None
    meta = json.loads(meta_path.read_text("utf-8"))
    tree = RaptorTree([Node(**n) for n in meta["nodes"]], np.load(vec_path), meta["leaves"], meta["build_seconds"], meta["llm_calls"], fingerprint=fingerprint)
    tree.size_bytes = meta_path.stat().st_size + vec_path.stat().st_size
    return tree


@dataclass
class RaptorRetriever:
    name: str
    first: Retriever
    tree: RaptorTree
    embedder: Embedder
    chunks: dict[str, Chunk]
    chunk_vectors: dict[str, np.ndarray] = field(default_factory=dict)

    def built(self) -> dict:
        """What the summary tree cost when it was built (its LLM calls and seconds, kept with it
        when it comes from the cache) and what it takes on disk (0 when no cache folder holds it)."""
        t = self.tree
        levels = max((n.level for n in t.nodes), default=0)
        return {"structure": f"RAPTOR tree ({len(t.nodes)} summaries, {levels} level(s))", "nodes": len(t.nodes), "llm_calls": t.llm_calls,
                "seconds": round(t.build_seconds, 1), "bytes": t.size_bytes, "mb": round(t.size_bytes / 2**20, 2)}

    @k_below_one_finds_nothing
    def retrieve(self, query: str, k: int) -> list[Hit]:
        direct = self.first.retrieve(query, max(k, 20))
        if not self.tree.nodes:
            return direct[:k]
        q = self.embedder.embed([query], "query")[0]
        best = np.argsort(-(self.tree.vectors @ q), kind="stable")[:NODES_SEARCHED]
        expanded: list[str] = []
        for i in best:
            ids = [c for c in self.tree.leaves[self.tree.nodes[int(i)].node_id] if c in self.chunks and c not in expanded]
            ids.sort(key=lambda c: -float(self.chunk_vectors[c] @ q) if c in self.chunk_vectors else 0.0)
            expanded += ids
        from_nodes = [Hit(self.chunks[c], 0.0, r, "raptor_nodes") for r, c in enumerate(expanded, 1)]
        return fuse_hit_lists(self.name, [direct, from_nodes], [DIRECT_WEIGHT, 1.0], k, {"raptor_nodes": float(len(best))})
