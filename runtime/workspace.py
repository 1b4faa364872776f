"""Where a installation keeps its files, and the one place that opens them.

    <home>/facts.db          the fact log (source of truth)
    <home>/users/<user>/     versioned modules, alert state (derived; rebuildable)
    <home>/index.db          recall index (derived; rebuildable)
    <home>/constraints/*.py  the user's own constraint modules
    <home>/cache/            validation and mypy caches (derived)
    <home>/chain.key         optional chain key (mode 0600; or UAC_CHAIN_KEY / UAC_CHAIN_KEY_FILE)

`home` comes from `--home`, else `UAC_HOME`, else `~/.uac`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from factlog.chainkey import load_chain_key
from factlog.sqlite import SqliteFactStore


def default_home() -> Path:
    env = os.environ.get("UAC_HOME")
    return Path(env).expanduser() if env else Path.home() / ".uac"


@dataclass(frozen=True)
class Workspace:
    home: Path

    @staticmethod
    def at(home: Path | str | None = None) -> Workspace:
        path = Path(home).expanduser() if home is not None else default_home()
        path.mkdir(parents=True, exist_ok=True)
        return Workspace(path.resolve())

    @property
    def facts_db(self) -> Path:
        return self.home / "facts.db"

    @property
    def users_dir(self) -> Path:
        return self.home / "users"

    @property
    def index_db(self) -> Path:
        return self.home / "index.db"

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    def open_facts(self) -> SqliteFactStore:
        return SqliteFactStore(self.facts_db, chain_key=load_chain_key(self.home))
