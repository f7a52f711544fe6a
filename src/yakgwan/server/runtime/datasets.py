"""Evaluation sets the workbench offers: the bundled sample, and each set in ``YAKGWAN_DATASETS``
(a BEIR folder, or a seed folder with ``knowledge_base/`` and one or more ``tests*.jsonl``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from yakgwan.services.evaluate import EvalSet, load_beir, load_seed
from yakgwan.messages import msg
from yakgwan.server.problems import Problem

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "workbench"


@dataclass(frozen=True)
class DatasetRef:
    name: str
    format: str  # "seed" | "beir"
    folder: Path
    tests: Path | None = None

    def load(self) -> EvalSet:
        return load_beir(self.folder) if self.format == "beir" else load_seed(self.folder / "knowledge_base", self.tests)  # type: ignore[arg-type]


def discover(datasets_dir: Path | None) -> dict[str, DatasetRef]:
    found = {"sample": DatasetRef("sample", "seed", SAMPLE, SAMPLE / "tests.jsonl")}
    if datasets_dir is None or not datasets_dir.is_dir():
        return found
    for sub in sorted(p for p in datasets_dir.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if (sub / "corpus.jsonl").is_file() and (sub / "queries.jsonl").is_file():
            found[sub.name] = DatasetRef(sub.name, "beir", sub)
        elif (sub / "knowledge_base").is_dir():
            for tests in sorted(sub.glob("tests*.jsonl")):
                name = sub.name if tests.stem == "tests" else f"{sub.name}/{tests.stem.removeprefix('tests_')}"
                found[name] = DatasetRef(name, "seed", sub, tests)
    return found


def get(datasets: dict[str, DatasetRef], name: str) -> DatasetRef:
    if name not in datasets:
        raise Problem(404, msg("error.no_dataset", name=repr(name), available=", ".join(sorted(datasets))), "unknown-dataset")
    return datasets[name]
