"""Offline extraction: sentences, value recognisers, question/answer pairing, canonical
mapping, small talk, and coverage (nothing the user said about themselves is dropped)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from factlog.extract import RuleExtractor
from factlog.model import NewFact
from factlog.recognizers import recognize
from factlog.sentences import is_small_talk, split_sentences
from factlog.transcripts import Message, Session, read_transcript
from factlog.vocabulary import CANONICAL

BASE = datetime(2024, 11, 12, 9, 0)  # a Tuesday
BOOK_CASE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "book_eval_layer1" / "01_bank_account_setup.yaml"


def make_session(*turns: tuple[str, str], ts: datetime | None = BASE) -> Session:
    return Session("s1", ts, [Message(role, text, i) for i, (role, text) in enumerate(turns)], {})


def extract(*turns: tuple[str, str], user_only: bool = True) -> list[NewFact]:
    return RuleExtractor().extract(make_session(*turns), user_only=user_only)


# --- sentences -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I saw Dr. Lee on Main St. today. It was fine.", ["I saw Dr. Lee on Main St. today.", "It was fine."]),
        ("It cost $1.5 million, e.g. a lot. Rate is 2.75 now!", ["It cost $1.5 million, e.g. a lot.", "Rate is 2.75 now!"]),
        ("Mail j.doe@mail.example.com. Then call.", ["Mail j.doe@mail.example.com.", "Then call."]),
        ("The number is... let me check... 121000248.", ["The number is... let me check... 121000248."]),
        ("I'm Rebecca A. Sullivan. Is that ok? Yes.", ["I'm Rebecca A. Sullivan.", "Is that ok?", "Yes."]),
        ("Line one\nLine two", ["Line one", "Line two"]),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


@given(st.text(alphabet=st.sampled_from(list("ab .?!$1\n'DrS")), max_size=200))
@settings(max_examples=200, deadline=None)
def test_splitting_keeps_every_character(text: str) -> None:
    assert "".join(split_sentences(text)).replace(" ", "") == "".join(text.split())


def test_long_sentences_are_cut_to_fact_size() -> None:
    pieces = split_sentences("word " * 5000)
    assert len(pieces) > 1 and all(len(p) <= 4000 for p in pieces)


# --- recognisers -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("March 15th, 1985.", ["1985-03-15"]),
        ("born 15 March 1985", ["1985-03-15"]),
        ("on 2024-11-15 and 11/21/2024", ["2024-11-15", "2024-11-21"]),
        ("I fly out on December 5th and return on 12/9.", ["2024-12-05", "2024-12-09"]),
        ("It starts January 6.", ["2025-01-06"]),  # year-less: the nearest to the session
        ("Thursday the 21st works better", ["2024-11-21"]),
        ("next Thursday, November 21st", ["2024-11-21"]),  # the explicit date wins
        ("February 30th, 2025", []),
        ("Mine expires in 2033, March 3rd.", ["2033-03-03"]),  # the year first
        ("good until 2029, 1 February", ["2029-02-01"]),
        ("We fly March 3, 2025, June 5 back", ["2025-03-03", "2024-06-05"]),  # 2025 closes the first date
        ("in 2024, 12 people came", []),
    ],
)
def test_absolute_dates(text: str, dates: list[str]) -> None:
    assert recognize(text, BASE).dates == dates


@pytest.mark.parametrize(
    ("phrase", "delta_days"),
    [("tomorrow", 1), ("yesterday", -1), ("in two weeks", 14), ("in 3 days", 3), ("3 days ago", -3), ("next week", 7)],
)
def test_relative_dates_use_the_session_time(phrase: str, delta_days: int) -> None:
    expected = (BASE + timedelta(days=delta_days)).date().isoformat()
    assert recognize(f"I'll see you {phrase}.", BASE).dates == [expected]


def test_relative_weekday_is_an_upcoming_one() -> None:
    [found] = recognize("Let's meet next Thursday.", BASE).dates
    day = date.fromisoformat(found)
    assert day.weekday() == 3 and 0 < (day - BASE.date()).days <= 14


def test_coarse_relative_phrases_name_no_day() -> None:
    assert recognize("Last year it was more; five years ago too; next month maybe.", BASE).dates == []


def test_absurd_numbers_and_control_characters_are_harmless() -> None:
    values = recognize("$" + "9" * 400 + " and " + "9" * 400 + " widgets", BASE)
    assert values.amounts_usd == [] and values.counts == [] and values.identifiers == []
    [fact] = extract(("user", "My PIN\x1b is \ud800 secret."))
    assert fact.text == "My PIN  is   secret."


def test_relative_and_year_less_dates_need_a_session_time() -> None:
    assert recognize("tomorrow, or December 5th", None).dates == []
    assert recognize("March 15th, 1985", None).dates == ["1985-03-15"]


@pytest.mark.parametrize(
    ("text", "amounts"),
    [
        ("I make about $125,000 a year", [125000.0]),
        ("a budget of 2.5k", [2500.0]),
        ("it was 125 dollars", [125.0]),
        ("$1.2 million and $930.40/month", [1200000.0, 930.4]),
        ("65.5 cents a mile", [0.655]),
        ("2.5k miles", []),
    ],
)
def test_amounts(text: str, amounts: list[float]) -> None:
    assert recognize(text, BASE).amounts_usd == pytest.approx(amounts)


def test_percentages_counts_times() -> None:
    values = recognize("A 20% fee, 0.5 percent APY, three TVs and 24 sessions at 2:30 PM or 9 am", BASE)
    assert values.percentages == [20.0, 0.5]
    assert values.counts == [{"value": 3, "unit": "tvs"}, {"value": 24, "unit": "sessions"}]
    assert values.times == ["14:30", "09:00"]


def test_counts_skip_years_and_proper_nouns() -> None:
    assert recognize("I live at 1847 Maple Street and drive a 2019 Honda Accord", BASE).counts == []


def test_emails_and_phones() -> None:
    values = recognize("Mail mrobertson85@email.com or j.doe+x@mail.co.uk; call 503-555-8924, (503) 555-1234, 1-800-555-BANK or 1-800-VELOCITY", BASE)
    assert values.emails == ["mrobertson85@email.com", "j.doe+x@mail.co.uk"]
    assert values.phones == ["503-555-8924", "(503) 555-1234", "1-800-555-BANK", "1-800-VELOCITY"]
    assert values.identifiers == []


@pytest.mark.parametrize(
    "identifier",
    ["CLM-2024-894327", "4429853327", "PAC-778K4M", "D758392", "SGA-8847291-04", "5524-8897-2234-4001", "547-82-9163"],
)
def test_identifiers(identifier: str) -> None:
    values = recognize(f"The number is {identifier}.", BASE)
    assert values.identifiers == [identifier]
    assert values.phones == [] and values.amounts_usd == [] and values.counts == []


def test_labelled_numbers_and_non_identifiers() -> None:
    assert recognize("room 1912, seat 12C, flight PA 890", BASE).identifiers == ["1912", "12C", "PA 890"]
    assert recognize("within 24-48 hours, in 2010, the 15th, 512GB, 5GHz, 3x points, a 30-year loan", BASE).identifiers == []
    assert recognize("my 401k", BASE).amounts_usd == []


# --- surface forms: how people type and dictate ---------------------------------------

WEDNESDAY = datetime(2026, 4, 8, 9, 0)


@pytest.mark.parametrize(
    ("text", "amounts"),
    [
        ("twelve hundred and forty nine bucks", [1249.0]),
        ("a hundred and five dollars", [105.0]),
        ("it was two grand", [2000.0]),
        ("a grand, give or take", [1000.0]),
        ("5 hundred dollars", [500.0]),
        ("2 grand", [2000.0]),
        ("half a million dollars", [500000.0]),
        ("twenty-five dollars", [25.0]),
        ("two thousand five hundred dollars", [2500.0]),
        ("$1.2k", [1200.0]),
        ("1,250 bucks", [1250.0]),
        ("USD 300", [300.0]),
        ("300 dollars", [300.0]),
        ("TWELVE HUNDRED DOLLARS", [1200.0]),
    ],
)
def test_amounts_people_say(text: str, amounts: list[float]) -> None:
    assert recognize(text, BASE).amounts_usd == pytest.approx(amounts)


@pytest.mark.parametrize(
    ("text", "amounts"),
    [
        ("so I still owe like four hundred and fifty on the card", [450.0]),
        ("paid 450 for it", [450.0]),
        ("it costs 20 a month", [20.0]),
        ("I'll pay 50.", [50.0]),
        ("I owe 1,250 in rent", [1250.0]),
    ],
)
def test_amounts_after_a_money_verb(text: str, amounts: list[float]) -> None:
    assert recognize(text, BASE).amounts_usd == pytest.approx(amounts)


@pytest.mark.parametrize(
    "text",
    ["I paid 2 visits", "spent 3 days in Rome", "spent 2019 in Lisbon", "pay one on the 15th", "owe you one",
     "paid it on the 3rd", "paid the 2 kids", "pay twelve fifty"],
)
def test_money_verbs_before_numbers_that_are_not_money(text: str) -> None:
    assert recognize(text, BASE).amounts_usd == []


@pytest.mark.parametrize(
    "text",
    ["a 4K TV", "the 30K service", "2 kids", "room 405", "flight 212", "back in 2019", "two kids and three dogs",
     "twelve hundred from checking", "the grand canyon", "grand total", "a 5K run", "the 401k match", "4K resolution"],
)
def test_numbers_that_are_not_money(text: str) -> None:
    assert recognize(text, BASE).amounts_usd == []


@pytest.mark.parametrize(
    ("text", "other"),
    [
        ("£40", [{"value": 40.0, "currency": "GBP"}]),
        ("€1.200,50", [{"value": 1200.5, "currency": "EUR"}]),
        ("1.200,50 €", [{"value": 1200.5, "currency": "EUR"}]),
        ("49,90 EUR", [{"value": 49.9, "currency": "EUR"}]),
        ("€40", [{"value": 40.0, "currency": "EUR"}]),
    ],
)
def test_other_currencies_as_written(text: str, other: list[dict[str, object]]) -> None:
    values = recognize(text, BASE)
    assert values.amounts_other == other and values.amounts_usd == []


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("3/4", ["2026-03-04"]),  # slashes: US month/day
        ("03.04.2026", ["2026-04-03"]),  # dots: day.month.year
        ("outbound 14.05.2026, return 28.05.2026.", ["2026-05-14", "2026-05-28"]),
        ("4th of March", ["2026-03-04"]),
        ("March the fourth", ["2026-03-04"]),
        ("march the 4th", ["2026-03-04"]),
        ("the twenty eighth of february", ["2026-02-28"]),
        ("leaving the twenty-eighth of February 2027", ["2027-02-28"]),
        ("March third 2026", ["2026-03-03"]),
        ("the first of June", ["2026-06-01"]),
        ("the 3rd of march next year", ["2027-03-03"]),
        ("end of next month", ["2026-05-31"]),
        ("by the end of the month", ["2026-04-30"]),
        ("end of March", ["2027-03-31"]),  # the next March's end
        ("the end of the year", ["2026-12-31"]),
        ("Christmas Eve", ["2025-12-24"]),  # the nearest one, as for other dates without a year
        ("New Year's Eve", ["2025-12-31"]),
        ("a fortnight from now", ["2026-04-22"]),
        ("in a fortnight", ["2026-04-22"]),
        ("tomorrow morning", ["2026-04-09"]),
        ("tonight", ["2026-04-08"]),
    ],
)
def test_dates_people_say(text: str, dates: list[str]) -> None:
    assert recognize(text, WEDNESDAY).dates == dates


@pytest.mark.parametrize(
    "text",
    ["the first week of June", "Christmas shopping", "within 30 days of the statement", "version 3.10",
     "my first June in Paris was cold", "in a second", "1.200,50", "the 3rd"],
)
def test_phrases_that_name_no_day(text: str) -> None:
    assert recognize(text, WEDNESDAY).dates == []


@pytest.mark.parametrize(
    ("phrase", "day"),
    [
        ("this Friday", "2026-04-10"),  # the first Friday on or after today
        ("this coming Friday", "2026-04-10"),
        ("coming Friday", "2026-04-10"),
        ("next Friday", "2026-04-17"),  # Friday of next week
        ("next Monday", "2026-04-13"),
        ("next Wednesday", "2026-04-15"),
        ("this Wednesday", "2026-04-08"),  # today
        ("this coming Wednesday", "2026-04-15"),  # after today
        ("last Friday", "2026-04-03"),
        ("last Wednesday", "2026-04-01"),
    ],
)
def test_weekday_words_follow_one_rule(phrase: str, day: str) -> None:
    assert recognize(f"see you {phrase}", WEDNESDAY).dates == [day]


def test_next_weekday_on_a_sunday_is_next_weeks() -> None:
    sunday = datetime(2026, 4, 12, 9, 0)
    assert recognize("next Friday", sunday).dates == ["2026-04-17"]
    assert recognize("this Friday", sunday).dates == ["2026-04-17"]


def test_a_weekday_and_date_that_disagree_name_no_day() -> None:
    # Thursday 9 April 2026 agrees; "Friday the 9th" fits no nearby month: no day is better than a wrong one
    assert recognize("Thursday the 9th", WEDNESDAY).dates == ["2026-04-09"]
    assert recognize("Friday the 9th", WEDNESDAY).dates == []


@pytest.mark.parametrize(
    ("text", "times"),
    [
        ("2-4pm", ["14:00", "16:00"]),
        ("2 to 4 pm", ["14:00", "16:00"]),
        ("11-1pm", ["11:00", "13:00"]),
        ("10:30-11:15 am", ["10:30", "11:15"]),
        ("Tuesdays, 2:00-4:00 PM", ["14:00", "16:00"]),
        ("at noon", ["12:00"]),
        ("by midnight", ["00:00"]),
        ("rendez-vous at 19h", ["19:00"]),
        ("19h30", ["19:30"]),
        ("7:15", ["07:15"]),
    ],
)
def test_times_people_write(text: str, times: list[str]) -> None:
    assert recognize(text, BASE).times == times


@pytest.mark.parametrize("text", ["a 12h flight", "from 2 to 4", "7ish", "afternoon", "24h support", "9-5 job"])
def test_times_left_to_the_readers_or_none(text: str) -> None:
    assert recognize(text, BASE).times == []


@pytest.mark.parametrize(
    "text",
    [
        "my wife and my son are flying to Denver and then we drive to Aspen so I need a car",
        "I take lisinopril every morning, and my husband takes warfarin every evening after dinner "
        "so we keep the pills in separate boxes on the kitchen shelf by the window",
        "my wife talked to Dave today and uh she says the price went up its fifteen fifty now and she wants it "
        "to come out of savings",  # a dictated run-on stays whole: its clauses lean on each other
    ],
)
def test_sentences_are_not_cut_at_and(text: str) -> None:
    assert split_sentences(text) == [text]


def test_a_pasted_email_splits_by_line() -> None:
    email = "From: Hulu <no-reply@hulu.com>\nSubject: Your trial\n\nHi Sam,\nYour trial ends on 03/09/2026.\n--\nThe Hulu Team"
    assert split_sentences(email) == ["From: Hulu <no-reply@hulu.com>", "Subject: Your trial", "Hi Sam,",
                                      "Your trial ends on 03/09/2026.", "--", "The Hulu Team"]


# --- question / answer pairing and canonical fields -------------------------------------


def test_answer_to_a_question_is_one_fact_with_a_typed_value() -> None:
    facts = extract(
        ("assistant", "Thank you, Mr. Robertson. And could you please provide your date of birth?"),
        ("user", "March 15th, 1985."),
    )
    free = [f for f in facts if f.kind is None]
    assert [f.text for f in free] == ["Date of birth: March 15th, 1985."]
    fields = free[0].fields
    assert (fields["attribute"], fields["value"], fields["value_type"]) == ("date of birth", "1985-03-15", "date")
    assert fields["dates"] == ["1985-03-15"]
    [profile] = [f for f in facts if f.kind == "profile"]
    assert profile.fields == {"birth_date": "1985-03-15"} and profile.key == "profile"


@pytest.mark.parametrize(
    ("question", "answer", "kind", "field", "value"),
    [
        ("Passport expiration date?", "February 18th, 2025.", "passport", "expiry_date", "2025-02-18"),
        ("And your passport number?", "It's X1234567.", "passport", "number", "X1234567"),
        ("Do you have an email address for notifications?", "Yes, it's me@example.com", "profile", "email", "me@example.com"),
        ("What's the best phone number to reach you?", "My cell is 503-555-8924.", "profile", "phone", "503-555-8924"),
        ("May I have your full legal name?", "Sure, it's Michael James Robertson.", "profile", "full_name", "Michael James Robertson"),
    ],
)
def test_canonical_attributes(question: str, answer: str, kind: str, field: str, value: str) -> None:
    facts = extract(("assistant", question), ("user", answer))
    structured = [f for f in facts if f.kind is not None]
    assert [(f.kind, f.fields) for f in structured] == [(kind, {field: value})]
    assert field in CANONICAL[kind].fields
    assert structured[0].key == (kind if CANONICAL[kind].singular else None)
    assert len([f for f in facts if f.kind is None]) == 1


def test_statements_set_attributes_too() -> None:
    facts = extract(("user", "Oh, my email is mj@example.org. I work for Acme Robotics as an engineer."))
    kinds = {(f.kind, tuple(f.fields.items())) for f in facts if f.kind}
    assert ("profile", (("email", "mj@example.org"),)) in kinds
    assert ("profile", (("employer", "Acme Robotics"),)) in kinds
    email_fact = next(f for f in facts if f.kind is None and "email" in f.text)
    assert email_fact.fields["value_type"] == "email"


def test_someone_elses_attributes_are_not_the_users() -> None:
    facts = extract(("user", "His phone number is 916-555-3847."))
    assert [f.kind for f in facts] == [None]
    assert facts[0].fields["attribute"] == "his phone number"
    assert facts[0].fields["phones"] == ["916-555-3847"]


def test_question_without_attribute_joins_question_and_answer() -> None:
    facts = extract(("assistant", "Second question: What city were you born in?"), ("user", "Denver, Colorado."))
    assert [f.text for f in facts] == ["Second question: What city were you born in? Denver, Colorado."]
    assert facts[0].fields["question"] == "Second question: What city were you born in?"


def test_yes_to_a_real_question_is_kept_but_not_to_small_talk() -> None:
    kept = extract(("assistant", "Would you also like to enroll in mobile banking?"), ("user", "Yes, definitely."))
    assert [f.text for f in kept] == ["Would you also like to enroll in mobile banking? Yes, definitely."]
    assert extract(("assistant", "Is everything correct?"), ("user", "Yes, that all sounds right. Thank you so much")) == []


@pytest.mark.parametrize("text", ["Hi", "Thanks!", "Perfect.", "Yes, that all sounds right. Thank you so much", "Got it. Good to know."])
def test_small_talk_is_skipped(text: str) -> None:
    assert extract(("user", text)) == []
    assert all(is_small_talk(s) for s in split_sentences(text))


def test_pleasantry_with_content_is_kept() -> None:
    facts = extract(("user", "Thanks, I also have a dog named Max."))
    assert [f.text for f in facts] == ["Thanks, I also have a dog named Max."]


def test_provenance_cites_the_turn() -> None:
    facts = extract(("assistant", "Hello!"), ("user", "I'm vegetarian."))
    [fact] = facts
    assert fact.provenance.session_id == "s1"
    assert fact.provenance.message_index == 1
    assert fact.provenance.role == "user"
    assert fact.provenance.session_ts == BASE.isoformat()


def test_user_only_controls_assistant_facts() -> None:
    turns = (("user", "I need a flight."), ("assistant", "Your confirmation number is PAC-778K4M. Anything else?"))
    assert all(f.provenance.role == "user" for f in extract(*turns, user_only=True))
    facts = extract(*turns, user_only=False)
    [assistant] = [f for f in facts if f.provenance.role == "assistant"]
    assert assistant.fields["identifiers"] == ["PAC-778K4M"]
    assert assistant.fields["attribute"] == "confirmation number"


def _assert_nothing_dropped(session: Session, facts: list[NewFact]) -> None:
    cited = {f.provenance.message_index for f in facts}
    for message in session.messages:
        if message.role != "user":
            continue
        substantive = [s for s in split_sentences(message.content) if not is_small_talk(s)]
        if substantive:
            assert message.index in cited, f"turn {message.index} dropped: {message.content!r}"


def test_nothing_the_user_said_is_dropped_synthetic() -> None:
    session = make_session(
        ("user", "Hi there!"),
        ("assistant", "How can I help?"),
        ("user", "Perfect. My daughter Emma starts school on January 6."),
        ("assistant", "Will that work?"),
        ("user", "Yes. Also, I'm allergic to penicillin."),
        ("user", "What's the fee?"),
    )
    facts = RuleExtractor().extract(session, user_only=True)
    _assert_nothing_dropped(session, facts)
    emma = next(f for f in facts if "Emma" in f.text)
    assert emma.text == "My daughter Emma starts school on January 6."
    assert emma.fields["dates"] == ["2025-01-06"]


@pytest.mark.skipif(not BOOK_CASE.is_file(), reason=f"book evaluation data not found at {BOOK_CASE}")
def test_nothing_the_user_said_is_dropped_book_case() -> None:
    [session] = read_transcript(BOOK_CASE)
    facts = RuleExtractor().extract(session, user_only=True)
    _assert_nothing_dropped(session, facts)
    identifiers = {i for f in facts if isinstance(ids := f.fields.get("identifiers"), list) for i in ids}
    assert {"D758392", "8847293001", "121000248", "4429853327"} <= identifiers


@given(st.text(max_size=300))
@settings(max_examples=100, deadline=None)
def test_arbitrary_text_never_crashes(text: str) -> None:
    for fact in extract(("assistant", "What is your date of birth?"), ("user", text), ("assistant", text), user_only=False):
        assert fact.text.strip()
