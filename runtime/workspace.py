"""Where a installation keeps its files, and the one place that opens them.

    <home>/facts.db          the fact log (source of truth)
    <home>/users/<user>/     versioned modules, alert state (derived; rebuildable)
    <home>/index.db          recall index (derived; rebuildable)
    <home>/constraints/*.py  the user's own constraint modules
    <home>/cache/            validation and mypy caches (derived)
    <home>/cache/bytecode/   compiled code of imported versions, per user (derived)
    <home>/chain.key         optional chain key (mode 0600; or UAC_CHAIN_KEY / UAC_CHAIN_KEY_FILE)
    <home>/settings.json     optional settings: default producer, watch policy, LLM (runtime.settings)

`home` comes from `--home`, else `UAC_HOME`, else `~/.uac`. The fact log may live elsewhere:
`--store URL`, else `UAC_STORE` (`postgresql://user@host/db`, or a SQLite path); everything
else (versions, index, caches, settings, the chain key) stays in the home.

A workspace opened read-only is never created or written: its log is opened with SQLite's
`mode=ro`, and a home that does not exist yet reads as an empty log.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from factlog.chainkey import load_chain_key
from factlog.errors import InputError
from factlog.store import FactStore
from factlog.stores import STORE_SCHEMES, open_store, store_scheme

SETTINGS_FILE = "settings.json"  # in the home; read by runtime.settings


def default_home() -> Path:
    env = os.environ.get("UAC_HOME")
    return Path(env).expanduser() if env else Path.home() / ".uac"


def check_home(path: Path) -> None:
    """Refuse a home that is a file, or lies below a file (one clear line, nothing created)."""
    if path.exists():
        if not path.is_dir():
            raise InputError(f"workspace {path} is not a folder")
        return
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise InputError(f"workspace {path} cannot be created: {parent} is not a folder")
            return


def is_writable(home: Path) -> bool:
    """Whether this process may write the workspace (its folder and, if present, its log)."""
    db = home / "facts.db"
    return os.access(home, os.W_OK) and (not db.exists() or os.access(db, os.W_OK))


def store_location(store: str | None) -> str | None:
    """The fact log's location given (`--store`), else `UAC_STORE`; None: the home's facts.db."""
    if store is None:
        store = os.environ.get("UAC_STORE") or None
    if store is not None and not store.strip():
        raise InputError("the fact store (--store) is empty: give a URL such as postgresql://user@host/db")
    if store is not None and store_scheme(store) not in STORE_SCHEMES:
        raise InputError(f"unknown fact store {store_scheme(store)}://...: use postgresql://user@host/db "
                         "or a SQLite file")
    return store


@dataclass(frozen=True)
class Workspace:
    home: Path
    read_only: bool = False
    store: str | None = None  # where the fact log lives when not in the home (`--store`, UAC_STORE)

    @staticmethod
    def at(home: Path | str | None = None, *, read_only: bool = False, store: str | None = None) -> Workspace:
        """The workspace at `home`. Writable (the default): created if missing; refused with a
        clear message when it cannot be written. Read-only: never created nor written.
        `store`: the fact log's location (`store_location`)."""
        store = store_location(store)
        if home is not None and not str(home).strip():
            raise InputError("the workspace folder (--home) is empty: give a folder")
        path = Path(home).expanduser() if home is not None else default_home()
        check_home(path)
        if read_only:
            return Workspace(path.resolve(), read_only=True, store=store)
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"workspace {path} cannot be created: {exc.strerror}") from None
        if not is_writable(path):
            raise InputError(f"workspace {path} is read-only: this command writes to it")
        return Workspace(path.resolve(), store=store)

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

    @property
    def code_dir(self) -> Path | None:
        """Where imported versions keep their compiled code. A read-only workspace uses it
        only if a writable command already made the cache folder (it never creates one)."""
        if self.read_only and not self.cache_dir.is_dir():
            return None
        return self.cache_dir / "bytecode"

    def check_export_target(self, path: Path) -> None:
        """An export goes to a new or existing regular file, in an existing folder, outside the
        workspace (the export replaces the file atomically: it must not replace a device)."""
        target = path.expanduser()
        if target.is_dir():
            raise InputError(f"cannot export to {path}: it is a folder; name a file")
        if target.exists() and not target.is_file():  # a device or a pipe would be replaced by a file
            raise InputError(f"cannot export to {path}: it is not a regular file")
        if not target.parent.is_dir():
            raise InputError(f"cannot export to {path}: folder {target.parent} does not exist")
        resolved = target.parent.resolve() / target.name
        home = self.home.resolve()
        if resolved == home or home in resolved.parents:
            raise InputError(f"cannot export to {path}: it is inside the workspace {self.home}")

    @property
    def facts_location(self) -> str | Path:
        """Where the fact log is: the store given, else the home's facts.db."""
        return self.store if self.store is not None else self.facts_db

    def open_facts(self) -> FactStore:
        return open_store(self.facts_location, chain_key=load_chain_key(self.home), read_only=self.read_only)
