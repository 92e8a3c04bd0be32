"""The v1 contract is frozen: ``buf breaking`` against the committed baseline image
(proto/buf.v1.binpb) passes for the protos as they are, and fails for a breaking change.

Why a test besides ``make lint``: it proves the check bites.  A change that only adds
(fields, messages, RPCs, enum values) passes; removing or renumbering anything fails.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PROTO = ROOT / "proto"
BUF = Path(sys.executable).parent / "buf"

pytestmark = pytest.mark.skipif(not BUF.exists(), reason="buf (buf-bin) is not installed")


def _breaking(proto_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BUF), "breaking", "--against", str(PROTO / "buf.v1.binpb")],
        cwd=proto_dir,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_protos_are_compatible_with_the_v1_baseline() -> None:
    result = _breaking(PROTO)
    assert result.returncode == 0, result.stdout + result.stderr


def test_an_additive_change_passes(tmp_path: Path) -> None:
    copy = tmp_path / "proto"
    shutil.copytree(PROTO, copy)
    match = copy / "frontier/v1/match.proto"
    match.write_text(match.read_text() + "\n// Added.\nmessage SomethingNew {\n  int32 n = 1;\n}\n")
    result = _breaking(copy)
    assert result.returncode == 0, result.stdout + result.stderr


def test_removing_a_field_fails(tmp_path: Path) -> None:
    copy = tmp_path / "proto"
    shutil.copytree(PROTO, copy)
    match = copy / "frontier/v1/match.proto"
    text = match.read_text()
    field = "  string lineup = 2;\n"
    assert field in text
    match.write_text(text.replace(field, "", 1))
    result = _breaking(copy)
    assert result.returncode != 0
    assert "lineup" in result.stdout + result.stderr
