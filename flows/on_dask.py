"""Deployment entrypoint: the evaluation flow on a Dask task runner.

A Prefect worker starts a deployment's flow with the task runner of its entrypoint, so a
scheduled run that should score on Dask points its deployment here. ``ASSAY_DASK_RUNNER`` (read
when the worker imports this module) picks the cluster: ``dask`` (the default) starts a local
2-worker cluster, ``dask=tcp://scheduler:8786`` joins an existing one.
"""

from __future__ import annotations

import os

from assay.flows.evaluate import evaluate
from assay.flows.runners import task_runner_for

RUNNER = os.environ.get("ASSAY_DASK_RUNNER", "dask")
if not RUNNER.startswith("dask"):
    raise ValueError(f"ASSAY_DASK_RUNNER={RUNNER!r}: this entrypoint runs on Dask; use dask or dask=ADDRESS")

# The same flow name as the thread entrypoint: deployments of both are "assay-evaluate/NAME".
evaluate_on_dask = evaluate.with_options(task_runner=task_runner_for(RUNNER))
