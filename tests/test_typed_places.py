"""Typed extraction's places come from the bundled country table: every place it knows has
the table's country, the aliases name places the table knows, and names that are also common
words count in free text only capitalised."""

from __future__ import annotations

from factlog.reference.countries import country_named, country_of_place
from factlog.typed.places import ADJECTIVES, ALIASES, any_place, country_of, find_place, place_name


def test_the_table_answers_for_cities_it_lists_beyond_the_old_map() -> None:
    assert country_of("Dubrovnik") == "Croatia" and country_of("Kathmandu") == "Nepal"
    assert find_place("we're flying to Hong Kong in May") == ("Hong Kong", "Hong Kong")
    assert find_place("off to Buenos Aires for a week") == ("Buenos Aires", "Argentina")
    assert country_of("Prague") == country_of_place("Prague").name  # type: ignore[union-attr]


def test_words_of_multi_word_names_are_not_places() -> None:
    for word in ("de", "Hong", "Kong", "Buenos", "Aires", "Costa"):
        assert country_of(word) is None


def test_aliases_name_places_the_table_knows() -> None:
    for alias, place in ALIASES.items():
        found = country_of_place(place)
        assert found is not None and country_of(alias) == found.name
    assert place_name("vegas") == "Vegas" and country_of("Hawaii") == "United States"


def test_adjectives_name_the_tables_countries() -> None:
    for adjective, country in ADJECTIVES.items():
        assert adjective == "schengen" or getattr(country_named(country), "name", None) == country


def test_common_words_count_only_capitalised() -> None:
    assert any_place("booked the flight, we will split the cost") is None
    assert any_place("booked a flight to Split") == ("Split", "Croatia")
