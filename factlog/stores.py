"""Opening a fact store from where it lives: the one place that names an implementation.

    open_store(home / "facts.db")          the embedded SQLite log (a path, or `sqlite:///abs/path`)
    open_store("postgresql://u@host/db")   the PostgreSQL log (`postgres://` too; needs psycopg)

Everything above the fact log receives a `factlog.store.FactStore` and never names the
class behind it; a server database is added here, under its own URL scheme.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from factlog.errors import InputError
from factlog.pg import SCHEMES as POSTGRES_SCHEMES
from factlog.sqlite import SqliteFactStore
from factlog.store import FactStore

SQLITE_SCHEME = "sqlite"
STORE_SCHEMES = (SQLITE_SCHEME, *POSTGRES_SCHEMES)  # what `open_store` opens


def store_scheme(location: str | Path) -> str:
    """`sqlite` for a path or a `sqlite://` URL; otherwise the URL's scheme (lower case)."""
    if isinstance(location, Path) or "://" not in location:
        return SQLITE_SCHEME
    return location.split("://", 1)[0].lower()


def open_store(location: str | Path, *, chain_key: bytes | None = None, read_only: bool = False) -> FactStore:
    """The store at `location`: a file path (SQLite), `sqlite:///path`, or a PostgreSQL URL
    (`postgresql://user@host:port/database`); any other scheme is refused with one clear line,
    as is a server that cannot be reached (`factlog.pg.Unavailable`, the password redacted)."""
    scheme = store_scheme(location)
    if scheme == SQLITE_SCHEME:
        return SqliteFactStore(_sqlite_path(location), chain_key=chain_key, read_only=read_only)
    if scheme in POSTGRES_SCHEMES:
        try:
            from factlog.postgres import PostgresFactStore
        except ImportError:
            raise InputError("a PostgreSQL store needs psycopg: pip install 'user-as-code[postgres]'") from None

        return PostgresFactStore(str(location), chain_key=chain_key, read_only=read_only)
    raise InputError(f"unknown fact store {scheme}://...: this version can open a SQLite file "
                     "(a path or sqlite:///path) or a PostgreSQL database (postgresql://...)")


def _sqlite_path(location: str | Path) -> Path:
    if isinstance(location, Path) or "://" not in location:
        return Path(location)
    parts = urlsplit(location)
    if parts.netloc not in ("", "localhost") or not parts.path:
        raise InputError(f"a SQLite store URL names a local file: sqlite:///path, not {location}")
    return Path(unquote(parts.path))
