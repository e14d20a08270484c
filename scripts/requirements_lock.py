"""The hashed lock files in requirements/lock/: make them (``update``) and check them (``check``).

    python scripts/requirements_lock.py update [PIP-COMPILE ARGS...]   # what `make lock` runs (needs PyPI)
    python scripts/requirements_lock.py check                          # offline; a step of scripts/test.sh

requirements/{base,ml,dev}.txt pin the top-level packages; pip-compile (pip-tools) turns each into
requirements/lock/NAME.txt with every package, its exact version and the sha256 of its files.
Each set is compiled under the lock of the set it includes, so a package has one version in
every lock. ``update`` writes the sha256 of the top-level lines on a lock's first line, and
``check`` compares it, so editing requirements/*.txt without running `make lock` fails the tests.

torch is the CPU build (2.13.0+cpu, from this machine's pip find-links /opt/wheels or the PyTorch
CPU index); PyPI's plain torch pulls several GB of CUDA (nvidia-*) packages, which no lock may hold.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
# Each set with the set it includes (-r), lowest first: the order `update` compiles them in.
SETS = {"base": None, "ml": "base", "dev": "ml"}
STAMP = "# top-level sha256: "
CUDA_PREFIXES = ("nvidia-", "cuda-", "triton")  # what PyPI's CUDA torch pulls in


def top_level_lines(path: Path) -> list[str]:
    """The requirement lines of a requirements file, following -r includes, without comments."""
    lines = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(("-r ", "--requirement ")):
            lines += top_level_lines(path.parent / line.split(maxsplit=1)[1])
        else:
            lines.append(line)
    return lines


def top_level_sha256(root: Path, name: str) -> str:
    """What the stamp records: the top-level lines only, so a comment edit needs no new lock."""
    lines = top_level_lines(root / "requirements" / f"{name}.txt")
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def lock_path(root: Path, name: str) -> Path:
    return root / "requirements" / "lock" / f"{name}.txt"


def read_lock(path: Path) -> tuple[str | None, dict[str, tuple[str, list[str]]]]:
    """(stamp, {canonical name: (version spec, [hashes])}) of a lock file."""
    text = path.read_text(encoding="utf-8")
    first = text.split("\n", 1)[0]
    stamp = first[len(STAMP) :].split()[0] if first.startswith(STAMP) else None
    entries: dict[str, tuple[str, list[str]]] = {}
    logical = re.sub(r"\\\n", " ", text)  # join the backslash-continued lines of each entry
    for line in logical.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "-")):  # comments ("# via ...") and pip options
            continue
        hashes = re.findall(r"--hash=(\S+)", line)
        requirement = Requirement(re.sub(r"\s--hash=\S+", "", line).strip())
        entries[canonicalize_name(requirement.name)] = (str(requirement.specifier), hashes)
    return stamp, entries


def pinned_version(spec: str) -> str | None:
    return spec[2:] if spec.startswith("==") and "," not in spec else None


def problems(root: Path = ROOT) -> list[str]:
    """Everything that makes the locks under ``root`` stale or unsafe, as sentences; [] when fine."""
    found: list[str] = []
    versions: dict[str, dict[str, str]] = {}
    environment = default_environment()
    for name in SETS:
        lock, top = lock_path(root, name), root / "requirements" / f"{name}.txt"
        where = lock.relative_to(root)
        if not lock.is_file():
            found.append(f"{where} is missing: run `make lock`")
            continue
        stamp, entries = read_lock(lock)
        if stamp != top_level_sha256(root, name):
            found.append(f"{top.relative_to(root)} (or a file it includes) changed since {where} was made")
        for line in top_level_lines(top):
            if line.startswith("-"):
                continue
            wanted = Requirement(line)
            if wanted.marker is not None and not wanted.marker.evaluate(environment):
                continue
            key = canonicalize_name(wanted.name)
            if key not in entries:
                found.append(f"{where}: {wanted.name} is not locked ({line})")
                continue
            locked = pinned_version(entries[key][0])
            if locked and not wanted.specifier.contains(locked, prereleases=True):
                found.append(f"{where}: {wanted.name} is locked at {locked}, the requirements ask {wanted.specifier}")
        for key, (spec, hashes) in entries.items():
            version = pinned_version(spec)
            if version is None:
                found.append(f"{where}: {key} is not pinned with == ({spec or 'no version'})")
                continue
            versions.setdefault(key, {})[name] = version
            if not hashes:
                found.append(f"{where}: {key}=={version} has no --hash")
            if key == "torch" and not version.endswith("+cpu"):
                found.append(f"{where}: torch {version} is not the CPU build (+cpu): it pulls GBs of CUDA")
            if key.startswith(CUDA_PREFIXES):
                found.append(f"{where}: {key} is a CUDA package; the workbench locks the CPU build of torch")
    for key, by_set in sorted(versions.items()):
        if len(set(by_set.values())) > 1:
            found.append(f"{key} has different versions in the locks: {by_set}")
    if found:
        found.append("refresh the locks with `make lock` (docs/deployment.md: Reproducible installs)")
    return found


def stamp(root: Path, name: str) -> None:
    """Write the top-level sha256 on the lock's first line (replacing an older stamp)."""
    path = lock_path(root, name)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    if lines and lines[0].startswith(STAMP):
        lines = lines[1:]
    header = f"{STAMP}{top_level_sha256(root, name)} (requirements/{name}.txt and what it includes)\n"
    path.write_text(header + "".join(lines), encoding="utf-8")


def update(extra_args: list[str], root: Path = ROOT) -> None:
    """pip-compile every set, lowest first, each under the lock of the set it includes; then stamp it."""
    lock_path(root, "base").parent.mkdir(exist_ok=True)
    for name, includes in SETS.items():
        command = [
            str(Path(sys.executable).parent / "pip-compile"),
            "--quiet",
            "--generate-hashes",
            "--allow-unsafe",  # pins pip and setuptools too: hash checking refuses an unpinned package
            "--strip-extras",
            "--no-emit-index-url",  # no machine's index or wheel folder in a committed file
            "--no-emit-find-links",
            *(["--constraint", f"requirements/lock/{includes}.txt"] if includes else []),
            *extra_args,
            f"--output-file=requirements/lock/{name}.txt",
            f"requirements/{name}.txt",
        ]
        print(f"lock: requirements/lock/{name}.txt", flush=True)
        # The header then says how to remake the file: `make lock`, not this long command.
        env = {**os.environ, "CUSTOM_COMPILE_COMMAND": "make lock"}
        if subprocess.run(command, cwd=root, env=env).returncode != 0:
            raise SystemExit(f"lock: pip-compile failed for requirements/{name}.txt (see above)")
        stamp(root, name)


def main(argv: list[str]) -> int:
    if argv[:1] == ["update"]:
        update(argv[1:])
        argv = ["check"]
    if argv != ["check"]:
        print(__doc__, file=sys.stderr)
        return 2
    found = problems()
    for line in found:
        print(f"lock: {line}", file=sys.stderr)
    if not found:
        print("lock: requirements/lock/{base,ml,dev}.txt match requirements/*.txt, all hashed, torch CPU only")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
