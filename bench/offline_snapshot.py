"""Fingerprint every offline verdict on every labelled row, to show a refactor changed nothing.

    python bench/offline_snapshot.py --write /tmp/before.json          # on the old tree
    python bench/offline_snapshot.py --check /tmp/before.json          # on the new tree
    python bench/offline_snapshot.py --check /tmp/before.json --prompt memory_usefulness
    python bench/offline_snapshot.py --write /tmp/scores.json --scores   # scores only, not the feedback

Reads every ``*.jsonl`` row with a ``prompt_id`` under ``bench/heldout/`` and ``datasets/``, runs
the three offline judges (with and without the fitted stage) and keeps one hash per row and
judge. Only row ids and hashes are written or printed, never a row's text or score: the blind
sets can be fingerprinted without being read. ``--scores`` hashes only what a verdict scores
(numbers and labels), not its feedback: a change to the feedback's wording or language is no
change there. Both sides of a check must be written with the same options.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from assay.judges.offline import OFFLINE_JUDGES  # noqa: E402

FOLDERS = (ROOT / "bench" / "heldout", ROOT / "datasets")


def labelled_rows(prompt: str | None) -> list[tuple[str, str, dict]]:
    """(key, prompt id, input) of every labelled row, keyed by file and row id or line."""
    rows = []
    for folder in FOLDERS:
        for path in sorted(folder.rglob("*.jsonl")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if not isinstance(row, dict) or "prompt_id" not in row or "input" not in row:
                    continue
                if prompt and row["prompt_id"] != prompt:
                    continue
                key = f"{path.relative_to(ROOT)}#{row.get('id', number)}"
                rows.append((key, row["prompt_id"], row["input"]))
    return rows


def scored(value: object) -> object:
    """What a verdict scores: numbers, flags and upper-case labels ("PERFECT"), in nested cases
    too; free text (feedback, reasons, quoted claims) left out, lists of it counted."""
    if isinstance(value, dict):
        kept = {k: scored(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if not isinstance(v, Omitted)}
    if isinstance(value, list):
        return [scored(v) for v in value] if all(isinstance(v, dict) for v in value) else len(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str) and value.replace("_", "").isupper() and value.isascii():
        return value
    return Omitted()


class Omitted:
    """A free-text value ``scored`` leaves out."""


def fingerprints(prompt: str | None, scores_only: bool = False) -> dict[str, str]:
    judges = [cls(fitted=fitted) for cls in OFFLINE_JUDGES for fitted in (True, False)]
    out = {}
    for key, prompt_id, item in labelled_rows(prompt):
        verdicts = []
        for judge in judges:
            result = judge.judge_sync(prompt_id, item, case_id="-")
            verdict = result.verdict if result.verdict is not None else {"error": result.error}
            verdicts.append(scored(verdict) if scores_only else verdict)
        out[key] = hashlib.sha256(json.dumps(verdicts, ensure_ascii=False, sort_keys=True).encode()).hexdigest()[:16]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", type=Path)
    group.add_argument("--check", type=Path)
    parser.add_argument("--prompt", help="only rows of this prompt id")
    parser.add_argument("--scores", action="store_true", help="hash only what the verdicts score, not their feedback")
    args = parser.parse_args()
    now = fingerprints(args.prompt, args.scores)
    if args.write:
        args.write.write_text(json.dumps(now, indent=0, sort_keys=True))
        print(f"{len(now)} rows fingerprinted -> {args.write}")
        return 0
    before = json.loads(args.check.read_text())
    changed = sorted(k for k in now if k in before and before[k] != now[k])
    missing = sorted(k for k in now if k not in before)
    by_set = Counter(k.rsplit("/", 1)[0] for k in changed)
    print(f"{len(now)} rows, {len(changed)} changed, {len(missing)} not in the snapshot")
    for folder, count in sorted(by_set.items()):
        print(f"  {folder}: {count} changed")
    for key in changed[:200]:
        print(f"  changed: {key}")
    return 1 if changed else 0


if __name__ == "__main__":
    raise SystemExit(main())
