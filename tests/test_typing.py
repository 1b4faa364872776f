"""mypy --strict over our own packages, as part of the test command."""

from __future__ import annotations

from conftest import REPO
from mypy import api


def test_our_packages_pass_mypy_strict() -> None:
    stdout, stderr, status = api.run(["--config-file", str(REPO / "pyproject.toml"),
                                      "--cache-dir", str(REPO / ".mypy_cache")])
    assert status == 0, stdout + stderr
