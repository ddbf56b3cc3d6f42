"""The ``assay`` console command. ``assay run`` goes to the resident worker when one runs this
code (``assay/worker_client.py``), decided before anything but the standard library is
imported; every other command, and a run the worker cannot take, runs in this process."""

from __future__ import annotations

import sys

from assay.worker_client import hand_over


def main() -> None:
    status = hand_over(sys.argv[1:])
    if status is not None:
        sys.exit(status)
    from assay.cli import main as run_here

    run_here()
