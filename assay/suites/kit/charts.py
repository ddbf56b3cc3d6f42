"""Chart helpers for suites: bars of metric means and per-group horizontal bars, as PNG bytes.

Charts are deterministic (no timestamp in the PNG), so an identical rerun yields identical
bytes and the publish step stays cacheable.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from types import ModuleType
from typing import TYPE_CHECKING

from assay.rendering.tables import fmt

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

CHART_DPI = 110
BAR_COLOR = "#4C72B0"


def pyplot() -> ModuleType:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def png(fig: Figure) -> bytes:
    plt = pyplot()
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", dpi=CHART_DPI, metadata={"Software": None})
    plt.close(fig)
    return buffer.getvalue()


def bars(
    ax: Axes, values: Mapping[str, float], ylim: tuple[float, float], good: float, title: str,
    digits: int = 3, colors: list[str] | None = None, good_label: str | None = None,
) -> None:
    """Vertical bars with their values printed above and a dashed 'good' line."""
    names = list(values)
    ax.bar(names, [values[n] for n in names], color=colors or BAR_COLOR)
    ax.set_ylim(*ylim)
    ax.axhline(good, color="gray", linestyle="--", alpha=0.6, label=good_label or f"good ({good:g})")
    for i, name in enumerate(names):
        ax.text(i, values[name] + ylim[1] * 0.02, fmt(values[name], digits), ha="center", fontsize=8)
    ax.set_title(title)
    ax.tick_params(axis="x", rotation=20)
    ax.legend(loc="lower right")


def hbar_chart(values: Mapping[str, float], xlim: tuple[float, float], good: float, xlabel: str, title: str) -> bytes:
    """One horizontal bar per group, sorted by value (e.g. MRR by category)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(values) + 1.3))
    items = sorted(values.items(), key=lambda kv: kv[1])
    ax.barh([k for k, _ in items], [v for _, v in items], color=BAR_COLOR)
    ax.axvline(good, color="gray", linestyle="--", alpha=0.6)
    ax.set_xlim(*xlim)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    return png(fig)


def means_chart(means: Mapping[str, float | None], ylim: tuple[float, float], good: float, title: str) -> bytes | None:
    """One bar per metric mean (unscored means left out); None when nothing was scored."""
    shown = {name: value for name, value in means.items() if value is not None}
    if not shown:
        return None
    fig, ax = pyplot().subplots(figsize=(7, 4))
    bars(ax, shown, ylim, good, title, digits=2)
    return png(fig)


def group_chart(
    groups: Mapping[str, Mapping[str, float | None]], metric: str, xlim: tuple[float, float], good: float,
    xlabel: str, title: str,
) -> bytes | None:
    """One metric's mean per group (``Summary`` group tables such as ``by_scenario``), groups
    without a score left out; None when no group has one."""
    values = {group: value for group, means in groups.items() if (value := means.get(metric)) is not None}
    return hbar_chart(values, xlim, good, xlabel, title) if values else None


def drawn(charts: Mapping[str, bytes | None]) -> dict[str, bytes]:
    """The charts that were drawn, by name (a chart with nothing to show is None)."""
    return {name: image for name, image in charts.items() if image is not None}
