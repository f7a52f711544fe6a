"""Evaluation sets the workbench offers: the bundled sample, each set in ``YAKGWAN_DATASETS``
(a BEIR folder, or a seed folder with ``knowledge_base/`` and one or more ``tests*.jsonl``), and
each clause-level set of ``YAKGWAN_CLAUSE_SETS`` (a policy and the questions scored by the
clauses that govern them, which live apart: ``policy_qa/`` beside ``policies/``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from yakgwan.services.evaluate import EvalSet, load_beir, load_evalset, load_seed
from yakgwan.messages import msg
from yakgwan.server.problems import Problem

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "workbench"


@dataclass(frozen=True)
class DatasetRef:
    name: str
    format: str  # "seed" | "beir" | "clauses"
    folder: Path  # the BEIR folder, the seed folder, or the policy (a folder or a PDF) of a clause-level set
    tests: Path | None = None

    def load(self) -> EvalSet:
        if self.format == "beir":
            return load_beir(self.folder)
        if self.format == "clauses":
            return load_evalset(self.folder, self.tests, None)
        return load_seed(self.folder / "knowledge_base", self.tests)  # type: ignore[arg-type]


def discover(datasets_dir: Path | None, clause_sets: tuple[tuple[str, Path, Path], ...] = ()) -> dict[str, DatasetRef]:
    found = {"sample": DatasetRef("sample", "seed", SAMPLE, SAMPLE / "tests.jsonl")}
    for name, corpus, questions in clause_sets:
        found[name] = DatasetRef(name, "clauses", corpus, questions)
    if datasets_dir is None or not datasets_dir.is_dir():
        return found
    for sub in sorted(p for p in datasets_dir.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if (sub / "corpus.jsonl").is_file() and (sub / "queries.jsonl").is_file():
            found.setdefault(sub.name, DatasetRef(sub.name, "beir", sub))
        elif (sub / "knowledge_base").is_dir():
            for tests in sorted(sub.glob("tests*.jsonl")):
                name = sub.name if tests.stem == "tests" else f"{sub.name}/{tests.stem.removeprefix('tests_')}"
                found.setdefault(name, DatasetRef(name, "seed", sub, tests))
    return found


def get(datasets: dict[str, DatasetRef], name: str) -> DatasetRef:
    if name not in datasets:
        raise Problem(404, msg("error.no_dataset", name=repr(name), available=", ".join(sorted(datasets))), "unknown-dataset")
    return datasets[name]
