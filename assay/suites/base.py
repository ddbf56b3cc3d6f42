"""Compatibility: the suite interface now lives in ``assay.suites.kit``."""

from assay.suites.kit import (  # noqa: F401
    AggregateResult,
    LoadedDataset,
    MetricContext,
    MetricFamily,
    ProgressFn,
    ReportSection,
    Suite,
)
