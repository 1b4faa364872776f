"""Prices in another currency: a payment, subscription or bill said in pounds or euros keeps
`amount_gbp` / `amount_eur` (never converted; USD stays `amount_usd`), so sums work per currency."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typed_sessions import extracted
from uac_home import clone_home

from factlog.model import JsonValue
from runtime.memory import Memory

PRICED = ("payment", "subscription", "bill")


def priced(text: str) -> list[dict[str, JsonValue]]:
    return [fields for _, _, fields in extracted(PRICED, ("user", text))]


@pytest.mark.parametrize(("text", "field", "amount"), [
    ("Pay the plumber £380 from my Barclays current account on Friday.", "amount_gbp", 380.0),
    ("My Netflix is €12.99 a month.", "amount_eur", 12.99),
    ("My Spotify is £11.99 a month.", "amount_gbp", 11.99),
    ("The electric bill is £84, due the 15th.", "amount_gbp", 84.0),
])
def test_a_price_in_pounds_or_euros_keeps_its_amount(text: str, field: str, amount: float) -> None:
    [fields] = priced(text)
    assert fields[field] == amount and not {"amount_usd", "amount_eur", "amount_gbp"} - {field} & set(fields)


@pytest.mark.parametrize("text", [
    "Pay Tom $200 and the plumber £380.",  # a USD amount beside it: whose is which is not said
    "Pay the plumber £380 or €420, whichever he wants.",  # two prices: neither is the payment's
    "Pay the plumber on Friday from checking.",  # no price at all
])
def test_no_other_currency_amount_when_the_sentence_leaves_it_open(text: str) -> None:
    assert all(not {"amount_eur", "amount_gbp"} & set(fields) for fields in priced(text))


def test_a_usd_price_stays_amount_usd() -> None:
    [fields] = priced("My Hulu is $17.99 a month.")
    assert fields["amount_usd"] == 17.99 and not {"amount_eur", "amount_gbp"} & set(fields)


@pytest.fixture
def mem(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Memory:
    return Memory.open(clone_home(tmp_path_factory, tmp_path / "home"))  # a warm mypy cache


def test_subscriptions_in_pounds_sum_in_the_compiled_module(mem: Memory, tmp_path: Path) -> None:
    chat = {"sessions": [{"session_id": "s1", "timestamp": "2026-03-02T10:00:00", "messages": [
        {"role": "user", "content": "My Spotify is £11.99 a month."},
        {"role": "user", "content": "Netflix is £10.99 a month too."},
        {"role": "user", "content": "And Disney+ is $13.99 a month."}]}]}
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(chat), encoding="utf-8")
    mem.ingest_transcript("uk", path)
    mem.checkpoint("uk")
    result = mem.query("uk", "round(sum(s.amount_gbp for s in subscriptions if s.amount_gbp is not None), 2)")
    assert result.value == 22.98
    assert mem.query("uk", "sum(s.amount_usd for s in subscriptions if s.amount_usd is not None)").value == 13.99
