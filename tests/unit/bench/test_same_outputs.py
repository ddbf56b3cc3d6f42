"""bench/same_outputs.py --code-moved: artifacts compared with their 64-hex call keys masked,
so a moved judge version passes and a moved score does not."""

from __future__ import annotations

import hashlib
import json

import pyarrow as pa
import pyarrow.parquet as pq

from bench import same_outputs as so


def _masked(path, name: str) -> str:
    return hashlib.sha256(so.KEY.sub(b"<key>", so._comparable_bytes(path, name))).hexdigest()


def _row(key: str, value: float) -> dict:
    return {"case_id": "q1", "details": {"request_key": key, "feedback": "ok"}, "value": value}


def test_only_the_keys_are_masked_in_text_and_parquet_artifacts(tmp_path):
    key_a, key_b = "a" * 64, "0123456789abcdef" * 4
    digests = {}
    for label, key, value in (("a", key_a, 4.5), ("b", key_b, 4.5), ("moved", key_a, 4.25)):
        jsonl = tmp_path / f"{label}.jsonl"
        jsonl.write_text(json.dumps(_row(key, value)) + "\n", encoding="utf-8")
        table = tmp_path / f"{label}.parquet"
        pq.write_table(pa.Table.from_pylist([{"request_key": key, "value": value}]), table)
        digests[label] = (_masked(jsonl, "scores/all.jsonl"), _masked(table, "scores.parquet"))
    assert digests["a"] == digests["b"]  # another call key, the same scores
    assert digests["a"][0] != digests["moved"][0] and digests["a"][1] != digests["moved"][1]
    # a hex run that is not a whole 64-digit key stays compared
    assert so.KEY.sub(b"<key>", b"x" + b"a" * 65) == b"x" + b"a" * 65
