"""The one relation vocabulary (`factlog.relations`) and the places that ask it: the readers'
`subject`, the constraints' `person_of` and the label matcher (`runtime.eval_labels`)."""

from __future__ import annotations

import pytest

from constraints.records import person_of
from factlog.relations import family_word, plural_word, same_subject, subject_word
from runtime.eval_labels import Label, TypedFact, matches, matches_entity


@pytest.mark.parametrize("word, family", [
    ("mom", "mother"), ("Mum's", "mother"), ("Mam", "mother"), ("ma", "mother"), ("mommy", "mother"),
    ("dad", "father"), ("Da", "father"), ("papa", "father"), ("pa", "father"), ("Daddy’s", "father"),
    ("hubby", "husband"), ("husband", "husband"), ("wifey", "wife"), ("partner", "partner"),
    ("kid", "child"), ("son", "son"), ("daughter", "daughter"), ("sis", "sister"), ("bro", "brother"),
    ("grandma", "grandmother"), ("Nan", "grandmother"), ("granny", "grandmother"), ("gran", "grandmother"),
    ("grandad", "grandfather"), ("gramps", "grandfather"), ("auntie", "aunt"),
    ("step-mom", "stepmother"), ("stepmum", "stepmother"), ("step-son", "stepson"), ("stepdad", "stepfather"),
    ("Mother-in-law", "mother-in-law"), ("brother in law", "brother-in-law"), ("mother-in-law's", "mother-in-law"),
])
def test_family_words_have_one_canonical_form(word: str, family: str) -> None:
    assert family_word(word) == family


@pytest.mark.parametrize("word", ["boss", "colleague", "friend", "Maya", "doctor", "mommy-blogger", "madam", ""])
def test_other_words_name_no_relative(word: str) -> None:
    assert family_word(word) is None


def test_plurals() -> None:
    assert (plural_word("kids"), plural_word("boys"), plural_word("parents"), plural_word("cars")) == \
        ("child", "son", "", None)


@pytest.mark.parametrize("got, want", [
    ("mom", "mother"), ("Mother", "mom"), ("user", "me"), (None, "user"), ("myself", "user"),
    ("Mr Osei", "Osei"), ("Mr. Osei", "mr osei"), ("Jonas", "jonas"), ("Ramesh Iyer", "Ramesh"),
    ("hubby", "husband"), ("kids", "child"),
])
def test_same_subject(got: str | None, want: str) -> None:
    assert same_subject(got, want) and same_subject(want, got)


@pytest.mark.parametrize("got, want", [
    ("mother", "user"), ("daughter", "son"), ("Mr Osei", "Mrs Adeyemi"), ("Jonas", "user"),
    ("father", "Seamus"), ("sister", "sister-in-law"), ("wife", "Dana"),
])
def test_different_subjects(got: str, want: str) -> None:
    assert not same_subject(got, want) and not same_subject(want, got)


def test_subject_word() -> None:
    assert [subject_word(v) for v in ("Mum", "ME", None, "Mr Osei", "Gary")] == \
        ["mother", "user", "user", "osei", "gary"]


def test_constraints_read_one_person_in_either_word() -> None:
    assert person_of("mom") == person_of("Mother") == "mother"
    assert person_of("me") == person_of(None) == ""
    assert person_of("Gary") == "gary"
    assert person_of("Mr Osei") == person_of("osei") == "osei" != person_of("Mrs Abena Osei")


def _fact(subject: str | None, **fields: object) -> TypedFact:
    values = dict(fields, **({} if subject is None else {"subject": subject}))
    return TypedFact("s1", "document", values, "k")  # type: ignore[arg-type]


def test_the_matcher_compares_whose_fact_it_is() -> None:
    label = Label("s1", "document", {"kind": "passport", "expiry_date": "2026-06-03"}, "mother")
    assert matches(_fact("mom", kind="passport", expiry_date="2026-06-03"), label)
    assert matches_entity(_fact("mother", kind="passport", expiry_date="2026-06-03"), label)
    # the same passport taken as the user's is a miss, strictly and as an entity
    assert not matches(_fact("user", kind="passport", expiry_date="2026-06-03"), label)
    assert not matches_entity(_fact(None, kind="passport", expiry_date="2026-06-03"), label)
    # a label without a subject (older callers) compares no owner
    assert matches(_fact("wife", kind="passport", expiry_date="2026-06-03"),
                   Label("s1", "document", {"kind": "passport", "expiry_date": "2026-06-03"}))


def test_family_words_in_fields_agree_through_the_vocabulary() -> None:
    label = Label("s1", "document", {"kind": "passport", "holder": "mother"}, "mother")
    assert matches(_fact("mother", kind="passport", holder="Mom"), label)
    assert not matches(_fact("mother", kind="passport", holder="father"), label)
    relative = Label("s1", "relative", {"name": "Lily", "relationship": "sister"}, "user")
    fact = TypedFact("s1", "relative", {"name": "Lily", "relationship": "sis", "subject": "user"}, "relative/lily")
    assert matches(fact, relative) and matches_entity(fact, relative)


def test_a_relatives_medicines_and_allergies_are_one_persons() -> None:
    from constraints.records import family_of, taker_of

    family = family_of([("Seamus", "father"), ("Ruby", "daughter"), ("Ben", "son"), ("Leo", "son")])
    assert taker_of("Seamus", "father") == taker_of("father", "father") == taker_of("Da", "Da") == "father"
    assert taker_of("Ruby", "Ruby", family) == taker_of("Ruby", "daughter", family) == "daughter"
    assert taker_of("Ruby", "Ruby") == "ruby"  # without the relatives, a name is a name
    assert taker_of("Ben", "son", family) == "ben" != taker_of("Leo", "son", family)  # two sons
    assert taker_of("Mr Osei", "Mr Osei") == "osei" != taker_of("Mrs Abena Osei", "Mrs Abena Osei")
    assert taker_of(None, "user") == taker_of("me", None) == ""
    assert taker_of("Lily", None) == "lily"
