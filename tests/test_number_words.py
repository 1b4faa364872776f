"""factlog.number_words: one reader of numbers said in words; a price said as two pairs of
digits has two readings, and the reader that asks picks one."""

from __future__ import annotations

import pytest

from factlog.number_words import pair_price, pair_value, value_of


@pytest.mark.parametrize(("phrase", "value"), [
    ("twelve hundred and forty nine", 1249), ("a hundred and five", 105), ("sixty five", 65),
    ("two thousand five hundred", 2500), ("half a million", 500_000)
])
def test_cardinals(phrase: str, value: float) -> None:
    assert value_of(phrase) == value


@pytest.mark.parametrize(("phrase", "hundreds", "price"), [
    ("fifteen fifty", 1550, 15.5), ("thirteen ninety-nine", 1399, 13.99), ("thirteen ninety nine", 1399, 13.99),
    ("twelve oh five", 1205, None),  # "oh": a time or hundreds, never cents
    ("one fifty", 150, None),  # $1.50 or $150: no price reading
    ("sixty five", None, None), ("twelve hundred", None, None),  # no pair at all
])
def test_pairs_read_as_hundreds_or_as_a_price(phrase: str, hundreds: float | None, price: float | None) -> None:
    assert pair_value(phrase) == hundreds and pair_price(phrase) == price
