"""`uv pip install ARGS` into a virtual environment, from where pip on this machine would install.

    python3 .ci/uv_install.py VENV_PYTHON UV ARGS...   (exit status: uv's)

uv reads no pip configuration, so a machine's pip settings are handed over: find-links (local
wheels, such as a CPU-only torch), index URLs, machine-wide constraint files and the CA bundle.
Settings come from `pip config list` (files and PIP_* variables, the variables winning); a
file:// or path location that does not exist is left out, as pip ignores it with a warning.
Standard library only: it runs before anything is installed. Used by `.ci/install-venv`.
"""

from __future__ import annotations

import ast
import os
import shlex
import subprocess
import sys
from pathlib import Path

# pip setting -> uv flag (each takes whitespace-separated values in pip's configuration)
FLAGS = {
    "find-links": "--find-links",
    "index-url": "--index-url",
    "extra-index-url": "--extra-index-url",
    "constraint": "--constraint",
}


def pip_settings(python: str) -> dict[str, str]:
    """pip's effective settings: `global.` entries from its files, overridden by `:env:.` ones."""
    listed = subprocess.run([python, "-m", "pip", "config", "list"], capture_output=True, text=True, check=True).stdout
    files: dict[str, str] = {}
    env: dict[str, str] = {}
    for line in listed.splitlines():
        key, _, raw = line.partition("=")
        section, _, name = key.partition(".")
        value = ast.literal_eval(raw) if raw[:1] in "'\"" else raw
        if section == ":env:":
            env[name] = value
        elif section in ("global", "install"):
            files[name] = value
    return {**files, **env}


def exists(location: str) -> bool:
    if location.startswith("file://"):
        return Path(location[len("file://"):]).exists()
    if "://" in location:
        return True  # a remote index: uv reaches it as pip would
    return Path(location).exists()


def uv_flags(settings: dict[str, str]) -> list[str]:
    flags: list[str] = []
    for name, flag in FLAGS.items():
        for location in settings.get(name, "").split():
            if exists(location):
                flags += [flag, location]
    return flags


def main() -> int:
    python, uv, *args = sys.argv[1:]
    settings = pip_settings(python)
    env = dict(os.environ)
    cert = settings.get("cert")
    if cert and os.path.exists(cert):
        env["SSL_CERT_FILE"] = cert  # a proxy's CA that pip trusts
    # pip picks the best match across every index; uv's default stops at the first index naming a package
    # No --compile-bytecode: compiling all 2.2 GB of dependencies costs ~87 CPU s, most of it for modules
    # nothing imports (sympy, transformers' model zoo...). `make test` lets interpreters write the bytecode
    # of what they do import (~27 CPU s, once), even where PYTHONDONTWRITEBYTECODE is set.
    command = [uv, "pip", "install", "--quiet", "--python", python,
               "--index-strategy", "unsafe-best-match", *uv_flags(settings), *args]
    print("+ " + " ".join(shlex.quote(c) for c in command), file=sys.stderr)
    return subprocess.run(command, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
