"""A file handle on a disk that has just filled up, for tests of writes that must fail cleanly."""

from __future__ import annotations

import errno
import os


class FullDiskHandle:
    """What ``os.fdopen`` gives back when the disk fills during the write: every write fails
    with ENOSPC, and leaving the ``with`` closes the descriptor."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        os.close(self.fd)

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
