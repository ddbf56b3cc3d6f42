"""Each pipeline step takes one frozen record (``assay.step_inputs``); the Prefect tasks keep flat
parameters, so the cache policy leaves locations and concurrency out by name
(``tasks.common.NOT_KEYED``) and never meets a record holding them."""

from __future__ import annotations

import dataclasses
import inspect

import pytest
from prefect import Task

from assay import step_inputs
from assay.tasks import steps
from assay.tasks.common import NOT_KEYED

RECORDS = [obj for _, obj in inspect.getmembers(step_inputs, inspect.isclass)
           if dataclasses.is_dataclass(obj) and obj.__module__ == step_inputs.__name__]
TASKS = [obj for _, obj in inspect.getmembers(steps) if isinstance(obj, Task)]


def test_there_are_records_and_tasks():
    assert len(RECORDS) >= 8 and len(TASKS) >= 9


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.__name__)
def test_every_step_record_is_frozen(record):
    assert record.__dataclass_params__.frozen


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_a_task_takes_flat_parameters_never_a_step_record(task):
    parameters = inspect.signature(task.fn).parameters
    names = {r.__name__ for r in RECORDS}
    assert not [p for p in parameters.values() if any(name in str(p.annotation) for name in names)]
    assert "store_url" in parameters  # a location, left out of the key by name
    assert set(parameters) - set(NOT_KEYED), "a task keyed on nothing would reuse any result"
