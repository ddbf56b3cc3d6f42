"""Splitting a run's cases into partitions: bounded work per task, reruns per partition.

A run with more cases than one partition holds scores them partition by partition: each
partition is one artifact (its typed cases and their generations), and its content hash keys
its metric tasks, so a rerun after editing one case recomputes only that case's partition.
Cases a metric reads together (a patient's turns, a session's queries) share a group and a
group is never split; partitions keep the dataset's order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

DEFAULT_PARTITION_SIZE = 2000  # cases per partition: a few seconds of offline work, a few MB

CaseT = TypeVar("CaseT")


def partition_cases(cases: Sequence[CaseT], group_of: Callable[[CaseT], str], size: int) -> list[list[CaseT]]:
    """Consecutive partitions of about ``size`` cases each, whole groups only.

    Groups are taken in the order of their first case; a partition closes once it has
    ``size`` cases or more, so a group larger than ``size`` is a partition of its own.
    """
    if size < 1:
        raise ValueError(f"partition size must be at least 1, got {size}")
    groups: dict[str, list[CaseT]] = {}
    for case in cases:
        groups.setdefault(group_of(case), []).append(case)
    partitions: list[list[CaseT]] = []
    current: list[CaseT] = []
    for members in groups.values():
        if current and len(current) + len(members) > size:
            partitions.append(current)
            current = []
        current.extend(members)
    if current:
        partitions.append(current)
    return partitions


def is_partitioned(n_cases: int, size: int) -> bool:
    """More cases than one partition holds: small datasets run exactly as one batch."""
    return n_cases > size
