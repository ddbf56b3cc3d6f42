"""``assay.atomic_files.atomic_write`` and the rule each of its four callers relies on."""

from __future__ import annotations

import errno
import itertools
import os
import stat
import threading

import pytest

from assay import atomic_files
from assay.atomic_files import atomic_write
from assay.judges.store import CallStore
from assay.lineage.snapshots import materialize
from assay.lineage.store import ArtifactStore
from assay.tasks.results import GuardedResultStorage
from tests.support.full_disk import FullDiskHandle


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode_of(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_replace_writes_the_bytes_over_an_existing_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "file.json"
    target.write_bytes(b"old")
    assert atomic_write(target, b"new bytes", mode=0o644) is True
    assert target.read_bytes() == b"new bytes"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("mode", [0o644, 0o600])
@pytest.mark.parametrize("write_once", [False, True])
def test_a_new_file_has_the_mode_asked_for(tmp_path, umask_022, mode, write_once):
    target = tmp_path / "file"
    atomic_write(target, b"x", mode=mode, write_once=write_once)
    assert mode_of(target) == mode


def test_replace_replaces_a_symlink_instead_of_writing_through_it(tmp_path):
    outside = tmp_path / "outside"
    outside.write_bytes(b"secret")
    target = tmp_path / "file"
    target.symlink_to(outside)
    atomic_write(target, b"mine", mode=0o600)
    assert not target.is_symlink() and target.read_bytes() == b"mine"
    assert outside.read_bytes() == b"secret"


@pytest.mark.parametrize("links", [True, False], ids=["hard links", "no hard links"])
def test_write_once_keeps_the_first_writers_bytes(tmp_path, monkeypatch, links):
    if not links:
        monkeypatch.setattr(os, "link", lambda *a, **k: (_ for _ in ()).throw(OSError(errno.EPERM, "no links")))
    target = tmp_path / "record.json"
    assert atomic_write(target, b"first", mode=0o644, write_once=True) is True
    assert atomic_write(target, b"second", mode=0o644, write_once=True) is False
    assert target.read_bytes() == b"first"
    assert leftovers(tmp_path) == []


def test_of_many_threads_writing_once_exactly_one_wins_and_its_bytes_stay(tmp_path):
    target = tmp_path / "record.json"
    won: list[bytes] = []
    start = threading.Barrier(8)

    def write(n: int) -> None:
        data = f"writer {n}".encode() * 1000
        start.wait()
        if atomic_write(target, data, mode=0o644, write_once=True):
            won.append(data)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(won) == 1 and target.read_bytes() == won[0]
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("write_once", [False, True])
def test_a_failed_write_leaves_the_target_as_it_was_and_no_temporary(tmp_path, monkeypatch, write_once):
    target = tmp_path / "file"
    if not write_once:
        target.write_bytes(b"old")
    monkeypatch.setattr(os, "fdopen", lambda fd, mode="r": FullDiskHandle(fd))
    with pytest.raises(OSError) as caught:
        atomic_write(target, b"new", mode=0o644, write_once=write_once)
    assert caught.value.errno == errno.ENOSPC
    assert (target.read_bytes() == b"old") if not write_once else not target.exists()
    assert list(tmp_path.iterdir()) == ([target] if not write_once else [])


def test_a_refused_rename_leaves_the_target_as_it_was_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "file"
    target.write_bytes(b"old")

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "refused")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(PermissionError):
        atomic_write(target, b"new", mode=0o644)
    assert target.read_bytes() == b"old" and list(tmp_path.iterdir()) == [target]


def test_a_name_left_by_a_dead_process_or_planted_as_a_link_is_skipped(tmp_path, monkeypatch):
    monkeypatch.setattr(atomic_files, "_temp_counter", itertools.count(7))
    outside = tmp_path / "outside"
    outside.write_bytes(b"secret")
    stem = f".file.{os.getpid()}.{threading.get_ident()}"
    (tmp_path / f"{stem}.7.tmp").write_bytes(b"left over")
    (tmp_path / f"{stem}.8.tmp").symlink_to(outside)
    atomic_write(tmp_path / "file", b"mine", mode=0o600)
    assert (tmp_path / "file").read_bytes() == b"mine"
    assert outside.read_bytes() == b"secret"
    assert (tmp_path / f"{stem}.7.tmp").read_bytes() == b"left over"  # another's file is not touched
    assert not (tmp_path / f"{stem}.9.tmp").exists()


# -- the four callers: each keeps its permissions and its rule ------------------------------


def test_artifact_store_files_are_shared_readable_and_replaced(tmp_path, umask_022):
    store = ArtifactStore(str(tmp_path / "store"))
    path = store.path("run", "report.md")
    store.write_bytes(path, b"one")
    store.write_bytes(path, b"two")
    assert open(path, "rb").read() == b"two" and mode_of(path) == 0o644


def test_snapshot_files_are_private_and_rewritten_from_the_pool(tmp_path, umask_022):
    store = ArtifactStore(str(tmp_path / "store"))
    snapshot = store.put_json({"files": {"cases": store.put(b'{"id": 1}\n')}})
    root = materialize(store, snapshot)
    (root / "cases.jsonl").write_bytes(b"edited")
    root = materialize(store, snapshot)
    assert (root / "cases.jsonl").read_bytes() == b'{"id": 1}\n' and mode_of(root / "cases.jsonl") == 0o600


def test_judge_call_records_are_shared_readable_and_written_once(tmp_path, umask_022):
    store = CallStore(tmp_path / "calls")
    key = "ab" * 32
    path = store.put(key, {"request": {"messages": []}, "response": {"text": "first"}})
    first = open(path, "rb").read()
    assert store.write(key, {"request": {"messages": []}, "response": {"text": "second"}}) == (path, None)
    assert open(path, "rb").read() == first and b"first" in first and mode_of(path) == 0o644


def test_prefect_result_records_and_their_digests_are_private_and_replaced(tmp_path, umask_022):
    storage = GuardedResultStorage(basepath=str(tmp_path / "results"))
    written = storage.write_path("key", b'{"one": 1}')
    storage.write_path("key", b'{"two": 2}')
    digests = list((tmp_path / "results" / ".digests").iterdir())
    assert open(written, "rb").read() == b'{"two": 2}' and mode_of(written) == 0o600
    assert len(digests) == 1 and mode_of(digests[0]) == 0o600
