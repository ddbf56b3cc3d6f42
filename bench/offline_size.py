"""The offline jury's size: Python lines of its core, language packs and suites' offline rules.

    python bench/offline_size.py            # totals
    python bench/offline_size.py --files    # per file, largest last

Counts two figures per file: physical lines (``wc -l``) and code lines (lines holding a token that
is not a comment, a docstring or blank). The jury's code is ``assay/judges/offline/`` (the core and
the language packs' adapters) and every suite's ``offline/`` package; its data files (YAML cue
tables, fitted forests) are not code and are not counted. Complexity: ``ruff check --isolated
--select C901`` with ``lint.mccabe.max-complexity`` (McCabe, as ruff computes it).
"""

from __future__ import annotations

import argparse
import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}


def jury_files(root: Path = ROOT) -> list[Path]:
    """Every Python file of the offline jury: its core and the suites' offline packages."""
    core = sorted((root / "assay" / "judges" / "offline").rglob("*.py"))
    suites = sorted((root / "assay" / "suites").glob("*/offline/**/*.py"))
    return core + suites


def docstring_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def line_counts(source: str) -> tuple[int, int]:
    """(code lines, physical lines) of one module's source."""
    docs = docstring_lines(ast.parse(source))
    code: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in SKIPPED:
            code.update(line for line in range(token.start[0], token.end[0] + 1) if line not in docs)
    return len(code), source.count("\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", action="store_true", help="one line per file")
    args = parser.parse_args()
    rows = [(*line_counts(path.read_text(encoding="utf-8")), path.relative_to(ROOT)) for path in jury_files()]
    if args.files:
        for code, physical, path in sorted(rows):
            print(f"{code:6d} {physical:6d}  {path}")
    print(f"offline jury: {len(rows)} files, {sum(r[0] for r in rows):,} code lines, "
          f"{sum(r[1] for r in rows):,} physical lines")


if __name__ == "__main__":
    main()
