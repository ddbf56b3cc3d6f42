"""Cutting cases into partitions: whole groups, dataset order, about ``size`` cases each."""

import pytest

from assay.partitions import is_partitioned, partition_cases


def ids(parts):
    return [[case for case, _ in part] for part in parts]


def group(item):
    return item[1]


def test_partitions_keep_order_and_size():
    cases = [(f"c{i}", f"c{i}") for i in range(10)]
    assert ids(partition_cases(cases, group, 4)) == [["c0", "c1", "c2", "c3"], ["c4", "c5", "c6", "c7"], ["c8", "c9"]]


def test_a_group_is_never_split_and_a_large_group_is_a_partition_of_its_own():
    cases = [("a1", "a"), ("a2", "a"), ("b1", "b"), ("b2", "b"), ("b3", "b"), ("b4", "b"), ("b5", "b"), ("c1", "c")]
    assert ids(partition_cases(cases, group, 3)) == [["a1", "a2"], ["b1", "b2", "b3", "b4", "b5"], ["c1"]]


def test_interleaved_groups_gather_at_their_first_case():
    cases = [("p1-t1", "p1"), ("p2-t1", "p2"), ("p1-t2", "p1"), ("p3-t1", "p3")]
    assert ids(partition_cases(cases, group, 3)) == [["p1-t1", "p1-t2", "p2-t1"], ["p3-t1"]]


def test_no_cases_no_partitions_and_a_bad_size_is_refused():
    assert partition_cases([], group, 5) == []
    with pytest.raises(ValueError, match="at least 1"):
        partition_cases([("a", "a")], group, 0)


def test_only_a_dataset_larger_than_one_partition_is_partitioned():
    assert not is_partitioned(2000, 2000) and is_partitioned(2001, 2000)
