"""Which two files make an ELMo model: its options (JSON) and its weights (HDF5).

Pure (no Django, no torch): the registration checks and the backend both call ``elmo_files``.
A model is registered as

- a folder holding one ``.hdf5`` weights file (or one whose name says ``weights``) and its options: ``options.json``, or the one
  ``.json`` file there, or ``NAME_options.json`` beside ``NAME_weights.hdf5`` (the published names);
- the weights file itself, its options found beside it the same way;
- either of those with the option ``options_file``: the options file's absolute path (two paths).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

WEIGHTS_SUFFIX = ".hdf5"


class ElmoFilesError(ValueError):
    """The source does not name one weights file and one options file."""


@dataclass(frozen=True)
class ElmoFiles:
    options: Path
    weights: Path


def elmo_files(source: str, options_file: str | None = None) -> ElmoFiles:
    """The options and weights files of an ELMo source; ElmoFilesError saying what is missing or ambiguous."""
    path = Path(source)
    if path.is_dir():
        candidates = sorted(p for p in path.iterdir() if p.suffix.lower() == WEIGHTS_SUFFIX and p.is_file())
        if len(candidates) > 1:
            candidates = [p for p in candidates if "weights" in p.stem] or candidates
        if len(candidates) != 1:
            found = ", ".join(p.name for p in candidates) or "none"
            raise ElmoFilesError(
                f"{path} must hold one {WEIGHTS_SUFFIX} weights file, or one named *weights* (found: {found}): "
                "give the weights file itself as the source"
            )
        weights = candidates[0]
    elif path.is_file():
        weights = path
    else:
        raise ElmoFilesError(f"no ELMo weights at {path}")
    if options_file:
        options = Path(options_file)
        if not options.is_absolute():
            raise ElmoFilesError(f"options_file must be an absolute path, not {options_file!r}")
        if not options.is_file():
            raise ElmoFilesError(f"no options file at {options}")
        return ElmoFiles(options=options, weights=weights)
    return ElmoFiles(options=_options_beside(weights), weights=weights)


def _options_beside(weights: Path) -> Path:
    folder = weights.parent
    named = [folder / "options.json"]
    if "weights" in weights.stem:
        named.insert(0, folder / (weights.stem.replace("weights", "options") + ".json"))
    for candidate in named:
        if candidate.is_file():
            return candidate
    jsons = sorted(p for p in folder.glob("*.json") if p.is_file())
    if len(jsons) == 1:
        return jsons[0]
    raise ElmoFilesError(
        f"which options file goes with {weights.name}? Put options.json (or {named[0].name}) beside it, "
        'or give its path as the option {"options_file": "/absolute/path/options.json"}'
    )
