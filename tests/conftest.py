"""Shared fixtures: where ../shared lives, and a skip with a clear message when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SHARED_DATA = SHARED / "data"


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"needs {path} (the read-only ../shared folder beside the repository); absent here")
    return path


@pytest.fixture(scope="session")
def shared_data() -> Path:
    return _need(SHARED_DATA)


@pytest.fixture(scope="session")
def kb_policy_pdf() -> Path:
    return _need(SHARED_DATA / "policies" / "kb_smart_driver" / "kb_smart_driver_terms.pdf")


@pytest.fixture(scope="session")
def skytravel_dir() -> Path:
    return _need(SHARED_DATA / "skytravel")


@pytest.fixture(scope="session")
def autorag_dir() -> Path:
    return _need(SHARED_DATA / "autorag_ko")
