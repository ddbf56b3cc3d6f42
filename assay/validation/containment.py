"""Datasets are contained: every file a run reads lies inside the dataset directory.

A symlink (``kb/x.md -> /etc/passwd``) or a path that resolves outside the directory would
copy a foreign file into the store and, in live replay, send it to a generator. Such entries
are refused at ingest and reported by the validation gate, naming the path; ``--allow-symlinks``
opts in (and is recorded in the run spec).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def refused_paths(root: Path) -> list[dict[str, str]]:
    """Entries under ``root`` that are symlinks or resolve outside it, with why (sorted)."""
    root = Path(root)
    real_root = root.resolve()
    refused = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in [*dirnames, *filenames]:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                refused.append({"path": rel, "why": f"is a symlink (to {os.readlink(path)})"})
            elif not path.resolve().is_relative_to(real_root):
                refused.append({"path": rel, "why": "resolves outside the dataset directory"})
    return sorted(refused, key=lambda r: r["path"])


def contained_copy(root: Path, target: Path) -> Path:
    """Copy the regular files of ``root`` into ``target``, never following a symlink."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        dirnames[:] = [d for d in dirnames if not (here / d).is_symlink()]
        for name in filenames:
            source = here / name
            if source.is_symlink() or not source.is_file():
                continue
            dest = target / source.relative_to(root)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest, follow_symlinks=False)
    return target
