"""`.ci/uv_install.py`: uv is handed the locations pip on this machine would install from."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("uv_install", ROOT / ".ci" / "uv_install.py")
assert _spec and _spec.loader
uv_install = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(uv_install)


def test_pip_settings_from_a_config_file_are_overridden_by_pip_variables(tmp_path, monkeypatch):
    wheels, other = tmp_path / "wheels", tmp_path / "other"
    wheels.mkdir()
    other.mkdir()
    config = tmp_path / "pip.conf"
    config.write_text(f"[global]\nfind-links = {other}\nextra-index-url = https://mirror.example/simple\n")
    for name in ("PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CONSTRAINT", "PIP_CERT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PIP_CONFIG_FILE", str(config))
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))

    settings = uv_install.pip_settings(sys.executable)

    assert settings["find-links"] == str(wheels)
    assert settings["extra-index-url"] == "https://mirror.example/simple"


def test_locations_that_do_not_exist_are_left_out_as_pip_ignores_them(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    settings = {
        "find-links": f"{wheels} {tmp_path / 'missing'}",
        "extra-index-url": f"file://{tmp_path / 'no-index'} https://mirror.example/simple",
        "constraint": str(tmp_path / "no-such.txt"),
    }

    assert uv_install.uv_flags(settings) == [
        "--find-links", str(wheels), "--extra-index-url", "https://mirror.example/simple",
    ]
