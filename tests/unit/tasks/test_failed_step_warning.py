"""assay.tasks.results.FailedStepWarningFilter: Prefect's warning that a failed step's exception does
not serialize (assay-json refuses it on purpose) is dropped; the same warning about a step's
result, which would be a bug, is kept, as is everything else."""

from __future__ import annotations

import logging

from assay.lineage.trace import RunIntegrityError
from assay.tasks.results import FailedStepWarningFilter


def _record(message: str) -> logging.LogRecord:
    return logging.LogRecord("prefect.task_runs", logging.WARNING, __file__, 1, message, None, None)


def test_only_the_failed_steps_exception_warning_is_dropped():
    flt = FailedStepWarningFilter()
    advice = ". You can try a different serializer (e.g. result_serializer=\"json\") or disabling persistence"
    # an exception class is loaded wherever it was raised, and only loaded classes are known
    for kind in (RunIntegrityError.__name__, "ValueError", "KeyError", "assay.lineage.trace.RunIntegrityError"):
        assert not flt.filter(_record(
            f"Failed to write result: Failed to serialize object of type '{kind}' with serializer 'assay-json'{advice}"
        )), kind
    # a result that is not an exception and does not serialize is a bug worth seeing
    assert flt.filter(_record(f"Failed to write result: Failed to serialize object of type 'DataFrame' with serializer 'assay-json'{advice}"))
    # another serializer, or any other message, is none of this filter's business
    assert flt.filter(_record("Failed to serialize object of type 'ValueError' with serializer 'pickle'"))
    assert flt.filter(_record("Task run 'compare-408' - Finished in state Failed('RunIntegrityError: …')"))
