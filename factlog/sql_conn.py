"""What the log's bookkeeping (`factlog.sources`, `factlog.field_types`) asks of a database
connection: `execute` with `?` parameters, returning rows to fetch or iterate, and
`executemany`. A `sqlite3.Connection` is one; `factlog.pg_dialect.PgConnection` makes a
PostgreSQL connection one (the same statements, translated)."""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Protocol


class Rows(Protocol):
    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class SqlConnection(Protocol):
    def execute(self, sql: str, parameters: Any = ..., /) -> Rows: ...

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> object: ...
