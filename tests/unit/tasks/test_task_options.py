"""``tasks.common.TASK_OPTIONS`` is a ``TaskOptions``: every key one of Prefect's ``task()`` parameters."""

from __future__ import annotations

import inspect

import prefect

from assay.tasks.common import TASK_OPTIONS, TaskOptions


def test_the_options_are_exactly_the_typed_ones_and_all_are_parameters_of_prefects_task():
    assert set(TASK_OPTIONS) == set(TaskOptions.__annotations__)
    assert set(TaskOptions.__annotations__) <= set(inspect.signature(prefect.task).parameters)

