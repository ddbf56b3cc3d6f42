"""One atomic file write: a reader sees the old file or the whole new one, never half of one.

The bytes go to a fresh temporary file beside the target (created exclusively and never
through a link: ``O_EXCL | O_NOFOLLOW``), which then becomes the target in one step: renamed
over it, or, for a write-once record, hard-linked to it so that the first writer wins. On any
failure the temporary file is removed and the target is left as it was.

Every local write in assay that must not be seen half-done goes through ``atomic_write``: the
artifact store (``lineage/store.py``), snapshot directories (``lineage/snapshots.py``), the judge
call store (``judges/store.py``, write-once) and Prefect's result records (``tasks/results.py``).
None of them flushes to the disk (``fsync``): a crash of the machine may lose a write, never
show half of one; every reader checks a hash before trusting what it reads.
"""

from __future__ import annotations

import itertools
import os
import threading

# Temporary names come from the process, the thread and a counter: unique while a process
# lives, and far cheaper than random names (mkstemp) at thousands of judge records a run.
_temp_counter = itertools.count()


def atomic_write(target: str | os.PathLike[str], data: bytes, *, mode: int, write_once: bool = False) -> bool:
    """Put ``data`` at ``target`` atomically; True when these bytes are now the target's.

    ``mode``: the permission bits of the new file (the process's umask applies): 0o644 for
    files others may read, 0o600 for private ones.
    ``write_once``: an existing target is kept (first writer wins) and False returned;
    otherwise the target's name is replaced, so a symlink there is replaced, never written
    through. The target's folder must exist.
    """
    target = os.fspath(target)
    tmp, fd = _fresh_temporary(target, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if write_once:
            return _link_if_absent(tmp, target)
        os.replace(tmp, target)
        return True
    finally:  # a full disk or a refused rename must not leave half a file behind
        if os.path.lexists(tmp):
            os.unlink(tmp)


def _fresh_temporary(target: str, mode: int) -> tuple[str, int]:
    folder, name = os.path.split(target)
    while True:  # a name left by a dead process (same pid and thread) is skipped, never reused
        tmp = os.path.join(folder, f".{name}.{os.getpid()}.{threading.get_ident()}.{next(_temp_counter)}.tmp")
        try:
            return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        except FileExistsError:
            continue


def _link_if_absent(tmp: str, target: str) -> bool:
    try:
        os.link(tmp, target)  # atomic create-if-absent
    except FileExistsError:
        return False
    except OSError:  # no hard links on this filesystem: check, then rename (a narrow race)
        if os.path.exists(target):
            return False
        os.replace(tmp, target)
    return True
