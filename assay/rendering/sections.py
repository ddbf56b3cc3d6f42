"""A report section: a title and its markdown body (suites build them, rendering lays them out)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ReportSection:
    title: str
    markdown: str
