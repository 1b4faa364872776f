"""How the built-in constraints word counts, dates, amounts and people in their messages."""

from __future__ import annotations

from constraints.records import person_of


def days_words(n: int) -> str:
    """'1 day', '5 days' (the absolute value: the caller says before or after)."""
    return "1 day" if abs(n) == 1 else f"{abs(n)} days"


def in_days(n: int) -> str:
    """'today', 'in 5 days', '5 days ago'."""
    if n == 0:
        return "today"
    return f"in {days_words(n)}" if n > 0 else f"{days_words(n)} ago"


def money(amount: float | None) -> str:
    return "unknown amount" if amount is None else f"${amount:,.2f}"


def whose(person: str | None) -> str:
    """'your' for the user, "Mia's" for anyone else."""
    return "your" if person is None or not person_of(person) else f"{person}'s"
