"""``python -m assay.cli`` takes the ``assay`` command's way in: ``assay run`` goes to the
resident worker (``assay/worker_client.py``), decided before the CLI's own imports.

``assay/cli.py`` imports this module first. When ``assay.cli`` is the program being run
(``python -m assay.cli``), the hand-over is decided here, with the standard library only, as
``assay.entry`` decides it for the ``assay`` console command, and not after typer and pydantic
are imported (~0.3 s); the process then ends with the run's exit status. A command the worker
does not take goes on loading the CLI and runs in this process (``hand_over`` decides once a
process, so ``main`` does not ask again). Imported any other way, this does nothing.
"""

from __future__ import annotations

import sys


def _hand_over_first() -> None:
    from assay.worker_client import hand_over

    status = hand_over(sys.argv[1:])
    if status is not None:
        sys.exit(status)


if getattr(getattr(sys.modules.get("__main__"), "__spec__", None), "name", None) == "assay.cli":
    _hand_over_first()
