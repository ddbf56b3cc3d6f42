"""pipeline.SharedInputs: metric families that run side by side parse their cases and
generations once, and nothing is held after the last of them ends."""

from __future__ import annotations

import threading
import time

import pytest

from assay.pipeline import SharedInputs


def test_families_side_by_side_parse_once_and_nothing_is_kept_after():
    shared, parses, seen = SharedInputs(), [], []
    inside = threading.Barrier(3)

    def parse():
        parses.append(1)
        time.sleep(0.05)  # a slow parse: the other families arrive while it runs
        return object()

    def family():
        with shared.use(("store", "rag_qa", "snap", "gens", ()), parse) as value:
            seen.append(value)
            inside.wait(timeout=5)  # all three hold it at once

    threads = [threading.Thread(target=family) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(parses) == 1 and len({id(v) for v in seen}) == 1
    assert shared._entries == {}
    with shared.use(("store", "rag_qa", "snap", "gens", ()), parse):
        pass
    assert len(parses) == 2  # a later step parses again: nothing was held


def test_other_inputs_are_parsed_apart_and_a_failed_parse_is_not_kept():
    shared = SharedInputs()
    with shared.use(("a",), lambda: "A") as a, shared.use(("b",), lambda: "B") as b:
        assert (a, b) == ("A", "B")

    def broken():
        raise ValueError("row 3: not JSON")

    with pytest.raises(ValueError, match="row 3"), shared.use(("c",), broken):
        pass
    assert shared._entries == {}
    with shared.use(("c",), lambda: "C") as c:
        assert c == "C"
