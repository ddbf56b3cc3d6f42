"""Every shell example in the README can be pasted into a shell as it is: nothing outside
quotes that the shell would take as a redirection, a pipe, a background job or a subshell
(`--assert accuracy>=4` unquoted makes a file named `=4`; `<run-id>` reads a file `run-id`)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHELL_BLOCK = re.compile(r"^```(?:bash|sh|shell|console)\n(.*?)^```", re.M | re.S)
OPERATORS = set("<>|&;()")


def shell_lines(path: Path) -> list[str]:
    return [line for block in SHELL_BLOCK.findall(path.read_text(encoding="utf-8"))
            for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def unquoted_operators(line: str) -> list[str]:
    """The shell operators a shell would act on in ``line`` (quoted ones and comments are data)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    return [token for token in lexer if token and set(token) <= OPERATORS]


def test_the_checker_sees_what_a_shell_would_do():
    assert unquoted_operators("assay run rag_qa --assert accuracy>=4") == [">"]
    assert unquoted_operators("assay show <run-id>") == ["<", ">"]
    assert unquoted_operators("assay run rag_qa --assert 'accuracy>=4'  # exit 5 when <4") == []


@pytest.mark.parametrize("line", shell_lines(ROOT / "README.md"))
def test_every_readme_shell_example_is_safe_to_paste(line):
    assert not unquoted_operators(line), f"the shell would act on {unquoted_operators(line)} in: {line}"
