"""A step's cache key: its content inputs, its task's source and the code version, never where
things live or how many calls are in flight (``tasks.common.CONTENT_CACHE``)."""

from __future__ import annotations

from assay.tasks import common
from assay.tasks.common import CONTENT_CACHE


def key(**inputs: object) -> str | None:
    return CONTENT_CACHE.compute_key(task_ctx=None, inputs=inputs, flow_parameters={})


INPUTS = {"store_url": "/runs", "suite": "rag_qa", "snapshot": "ab" * 32, "concurrency": 4}


def test_the_same_inputs_and_code_give_the_same_key():
    assert key(**INPUTS) is not None and key(**INPUTS) == key(**INPUTS)


def test_a_changed_code_version_changes_the_key(monkeypatch):
    before = key(**INPUTS)
    monkeypatch.setattr(common, "code_version", lambda: "another version of the code")
    assert key(**INPUTS) != before


def test_the_code_version_is_no_input_and_locations_and_concurrency_are_not_keyed():
    assert key(**INPUTS) == key(**{**INPUTS, "store_url": "s3://elsewhere", "concurrency": 16})
    assert key(**INPUTS) != key(**{**INPUTS, "snapshot": "cd" * 32})
