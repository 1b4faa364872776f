"""The bookkeeping statements of the SQLite log, run on PostgreSQL.

`factlog.sources` and `factlog.field_types` own their rules and their SQL (written for SQLite);
the PostgreSQL store runs the same statements through `PgConnection`, which translates them:
`?` parameters become `%s`, the column `user` is `user_id` (the PostgreSQL schema never uses
the reserved word), `IS ?` (SQLite's null-safe equality) is `IS NOT DISTINCT FROM`, and
`INSERT OR REPLACE` becomes an upsert on the table's primary key.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterable

from psycopg import Connection, Cursor

from factlog.sql_conn import Rows

# The primary key of every table a translated `INSERT OR REPLACE` may name.
PRIMARY_KEYS = {
    "field_types": ("user_id", "kind", "field"),
    "field_value_types": ("user_id", "kind", "field", "type"),
    "field_types_position": ("user_id",),
    "fact_sources": ("user_id", "source"),
}
_REPLACE = re.compile(r"^\s*INSERT OR REPLACE INTO (\w+) \(([^)]*)\)(.*)$", re.S)


@lru_cache(maxsize=256)
def translate(sql: str) -> str:
    """The PostgreSQL form of one SQLite statement of the bookkeeping modules."""
    if "%" in sql:
        raise ValueError("a bookkeeping statement may not contain '%'")
    text = re.sub(r"\buser\b", "user_id", sql)
    text = re.sub(r"\bIS \?", "IS NOT DISTINCT FROM ?", text)
    replace = _REPLACE.match(text)
    if replace:
        table, columns, rest = replace.groups()
        keys = PRIMARY_KEYS[table]
        names = [c.strip() for c in columns.split(",")]
        updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in names if c not in keys)
        text = f"INSERT INTO {table} ({columns}){rest} ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {updates}"
    return text.replace("?", "%s")


class PgConnection:
    """A psycopg connection speaking the bookkeeping's SQLite statements (`SqlConnection`)."""

    def __init__(self, conn: Connection[Any]) -> None:
        self.conn = conn

    def execute(self, sql: str, parameters: Any = (), /) -> Rows:
        cursor: Cursor[Any] = self.conn.execute(translate(sql), parameters)
        return cursor

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> object:
        rows = list(parameters)
        if rows:
            self.conn.cursor().executemany(translate(sql), rows)
        return None
