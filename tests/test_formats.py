"""The base of every persisted format: versioned, strict about keys, one-line errors."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from factlog.errors import InputError
from factlog.formats import Format


class Example(Format):
    FORMAT: ClassVar[int] = 2
    count: int
    names: list[str] = []

    @classmethod
    def upgrade(cls, data: dict[str, Any], found: int) -> dict[str, Any]:
        if found == 1:
            data = {k: v for k, v in data.items() if k != "total"} | {"count": data["total"]}
        return data


def test_round_trip_writes_the_format_version() -> None:
    doc = Example(count=3, names=["a"])
    assert doc.format == 2
    assert Example.parse(doc.dump(), source="x.json") == doc
    assert '"format": 2' in doc.dump()


def test_a_document_without_format_is_format_1_and_is_upgraded() -> None:
    assert Example.parse('{"total": 4}', source="old.json").count == 4


def test_a_newer_format_is_refused_in_one_line() -> None:
    with pytest.raises(InputError, match="old.json: format 3 was written by a newer release"):
        Example.parse('{"format": 3, "count": 1}', source="old.json")


@pytest.mark.parametrize("text, problem", [
    ('{"format": 2, "count": 1, "extra": 1}', "extra: Extra inputs are not permitted"),
    ('{"format": 2, "count": "many"}', "count: Input should be a valid integer"),
    ('{"format": 2}', "count: Field required"),
    ('[1]', "expected a JSON object"),
    ('{"format": true, "count": 1}', "is not a format version"),
    ('{"count": ', "not valid JSON"),
    ('[' * 100000, "not valid JSON"),
])
def test_bad_documents_are_one_input_error(text: str, problem: str) -> None:
    with pytest.raises(InputError) as caught:
        Example.parse(text, source="f.json")
    assert problem in str(caught.value)
    assert "\n" not in str(caught.value)
