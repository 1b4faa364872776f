"""The workspace written by the code of December 2026 (tests/fixtures/workspace_2026_12.tar.gz),
unpacked once per test process into a temporary folder. Tests that change it copy it first."""

from __future__ import annotations

import atexit
import shutil
import tarfile
import tempfile
from functools import cache
from pathlib import Path

ARCHIVE = Path(__file__).parent / "fixtures" / "workspace_2026_12.tar.gz"


@cache
def old_workspace() -> Path:
    root = Path(tempfile.mkdtemp(prefix="uac-old-workspace-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    with tarfile.open(ARCHIVE) as tar:
        tar.extractall(root, filter="data")
    return root / "workspace_2026_12"
