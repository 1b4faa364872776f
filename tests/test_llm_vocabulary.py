"""The model's reach (the llm producer, tests/scripted_llm.py): free-text facts may become
records of any kind of the canonical vocabulary, not only of classes structured facts
created; the class of such a kind is the compiler's, generated from the vocabulary (never
the model's text); a singular kind (passport) may come from chat while no structured
record exists, and a structured one always wins. Every such record goes through the same
validation; the free-text facts stay notes as well (coverage accounts for them there)."""

from __future__ import annotations

import re
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest
from scripted_llm import ScriptedLLM
from test_llm_producer import _prompt, _template, answer, facts_in

from codegen.llm.producer import LlmProducer
from codegen.vocabulary_class import vocabulary_class
from runtime.memory import Memory
from users.checkpoint import Published

USER = "chat"
NOW = datetime(2024, 12, 1, tzinfo=timezone.utc)
_WARM: dict[int, Path] = {}


@pytest.fixture
def home(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    """A copy of the llm producer's template with `chat` at v1 (one note, by the compiler):
    its copy carries that user's warm mypy cache (a cold one costs seconds)."""
    key = id(tmp_path_factory)
    if key not in _WARM:
        warm = Path(shutil.copytree(_template(tmp_path_factory), tmp_path_factory.mktemp("chat") / "home"))
        mem = Memory.open(warm)
        try:
            mem.add(USER, "Good morning.")
            assert isinstance(mem.checkpoint(USER), Published)
        finally:
            mem.close()
        _WARM[key] = warm
    return Path(shutil.copytree(_WARM[key], tmp_path / "home"))


def chat_model(prompt: str) -> dict[str, str]:
    """A model reading the chat: a passport expiry and a flight, each into its vocabulary kind."""
    files: dict[str, str] = {}
    for fact_id, text in facts_in(prompt).items():
        if "passport expires" in text and "- passport (Passport passport, one per user)" in prompt:
            files["passport_llm.py"] = ("from datetime import date\nfrom .passport import Passport\n\n"
                                        "passport: Passport | None = Passport(country='France', "
                                        f"expiry_date=date(2025, 3, 5), fact_ids=[{fact_id}])\n")
        match = re.search(r"flying to (\w+)", text)
        if match:
            files["trip_llm.py"] = ("from datetime import date\nfrom .trip import Trip\n\n_trips_llm: list[Trip] = [\n"
                                    f"    Trip(destination={match.group(1)!r}, country='Japan', is_international=True, "
                                    "departure_date=date(2025, 1, 20), return_date=date(2025, 2, 2), "
                                    f"fact_ids=[{fact_id}]),\n]\n")
    return files


def test_a_chat_only_user_gets_a_typed_trip_and_the_passport_alert_fires(
        home: Path, scripted_llm: ScriptedLLM) -> None:
    scripted_llm.respond = lambda request: answer(chat_model(_prompt(request)))
    mem = Memory.open(home)
    try:
        mem.add(USER, "My passport expires on March 5, 2025.")
        mem.add(USER, "I'm flying to Tokyo on January 20th, 2025, back on February 2nd.")
        report = mem.checkpoint_and_alert(USER, NOW, producer=LlmProducer())
        assert isinstance(report.result, Published), report.result
        prompt = _prompt(scripted_llm.chat_requests[0].json)
        assert "Kinds with no class yet" in prompt and "- trip (Trip trips)" in prompt
        assert "- passport (Passport passport, one per user)" in prompt and "destination" in prompt
        files = mem.versions.files(USER, report.result.version.number)
        assert files["trip.py"] == vocabulary_class(USER, "trip").source  # the compiler's class, from the vocabulary
        assert files["passport.py"] == vocabulary_class(USER, "passport").source
        assert "fact_ids=[3]" in files["trip_llm.py"] and "fact_ids=[2]" in files["passport_llm.py"]
        assert mem.query(USER, "[(t.destination, t.fact_ids) for t in trips]").value == [("Tokyo", [3])]
        assert str(mem.query(USER, "passport.expiry_date").value) == "2025-03-05"
        assert "passport expires" in files["notes_000.py"]  # the fact stays a note as well
        assert report.alerts is not None
        fired = [a for a in report.alerts.raised if a.constraint == "passport_valid_for_trips"]
        assert fired and "Tokyo" in fired[0].message, report.alerts

    finally:
        mem.close()


def test_a_class_for_an_unknown_kind_or_a_hostile_class_body_is_refused(
        home: Path, scripted_llm: ScriptedLLM, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    evil = f"import os\nos.system('touch {marker}')\n"

    def hostile(prompt: str) -> dict[str, str]:
        files = chat_model(prompt)
        files["trip.py"] = evil + "class Trip:\n    pass\n"  # a class for a kind it may only place records in
        files["spaceship.py"] = evil + "class Spaceship:\n    pass\n"
        files["spaceship_llm.py"] = evil + "from .spaceship import Spaceship\n_spaceships_llm = [Spaceship()]\n"
        return files

    scripted_llm.respond = lambda request: answer(hostile(_prompt(request)))
    mem = Memory.open(home)
    try:
        mem.add(USER, "I'm flying to Tokyo on January 20th, 2025.")
        result = mem.checkpoint(USER, LlmProducer())
        assert isinstance(result, Published), result
        files = mem.versions.files(USER, result.version.number)
        assert "spaceship.py" not in files and "spaceship_llm.py" not in files
        assert files["trip.py"] == vocabulary_class(USER, "trip").source and "os.system" not in "".join(files.values())
        assert result.version.meta.usage["files_ignored"] == 3
        assert not marker.exists()
    finally:
        mem.close()


def _chat(mem: Memory, scripted_llm: ScriptedLLM) -> None:
    """The chat-only user's first llm checkpoint (the passport and the trip from chat)."""
    scripted_llm.respond = lambda request: answer(chat_model(_prompt(request)))
    mem.add(USER, "My passport expires on March 5, 2025.")
    mem.add(USER, "I'm flying to Tokyo on January 20th, 2025, back on February 2nd.")
    assert isinstance(mem.checkpoint(USER, LlmProducer()), Published)


@pytest.mark.slow  # three llm checkpoints (~3 s on a loaded machine)
def test_records_of_vocabulary_kinds_are_carried_forward(home: Path, scripted_llm: ScriptedLLM) -> None:
    mem = Memory.open(home)
    try:
        _chat(mem, scripted_llm)
        # the next checkpoint carries both records forward without asking about them again
        mem.add(USER, "Hello again.")
        again = mem.checkpoint(USER, LlmProducer())
        assert isinstance(again, Published), again
        assert set(facts_in(_prompt(scripted_llm.chat_requests[-1].json))) == {4}
        assert again.version.meta.usage["records_carried"] == 2
        assert mem.query(USER, "(passport.expiry_date.year, [t.destination for t in trips])").value \
            == (2025, ["Tokyo"])

    finally:
        mem.close()


def test_a_structured_passport_always_wins_over_the_chat_one(home: Path, scripted_llm: ScriptedLLM) -> None:
    mem = Memory.open(home)
    try:
        _chat(mem, scripted_llm)
        # a structured passport always wins over the one the model read from chat
        sent = len(scripted_llm.chat_requests)
        mem.add(USER, kind="passport", fields={"number": "P1", "country": "France", "expiry_date": "2034-01-01"})
        mem.add(USER, "Another remark.")
        third = mem.checkpoint(USER, LlmProducer())
        assert isinstance(third, Published), third
        files = mem.versions.files(USER, third.version.number)
        assert "passport_llm.py" not in files and "P1" in files["passport.py"]
        [request] = scripted_llm.chat_requests[sent:]
        assert "- passport (Passport passport, one per user)" not in _prompt(request.json) and "passport: Passport | None = present" \
            in _prompt(request.json)
        assert mem.query(USER, "(passport.number, [t.destination for t in trips])").value == ("P1", ["Tokyo"])
    finally:
        mem.close()


def test_the_prompt_describes_the_fresh_compiled_package(home: Path, scripted_llm: ScriptedLLM) -> None:
    """The model sees the agent manifest of THIS checkpoint's compiled files (a class a
    structured fact just created, its size and date range), not the previous version's."""
    scripted_llm.respond = lambda request: answer({})
    mem = Memory.open(home)
    try:
        mem.add(USER, kind="vehicle", fields={"make": "Toyota", "plate": "AA-00-BB", "next_service_date": "2025-01-10"})
        mem.add(USER, "I should wash the car.")
        result = mem.checkpoint(USER, LlmProducer())
        assert isinstance(result, Published), result
        prompt = _prompt(scripted_llm.chat_requests[-1].json)
        assert "vehicles: list[Vehicle] (1) str?: make, model, plate, vin; int?: year; " \
               "date?: next_service_date 2025-01-10" in prompt
        assert "Name and module: vehicles vehicle." in prompt
        assert "- vehicle (" not in prompt and "- trip (Trip trips)" in prompt  # offered: kinds without a class
    finally:
        mem.close()


def test_a_singular_answer_of_another_shape_is_not_taken() -> None:
    from codegen.llm.overlay import read_singular, vocabulary_collections

    offered = vocabulary_collections(USER, {"__init__.py": "notes: list[Note] = []\n"})
    passport = offered["passport"]
    good = "from .passport import Passport\n\npassport: Passport | None = Passport(number='X', fact_ids=[4])\n"
    assert read_singular(good, passport) is not None
    for bad in ("from .passport import Passport\n\npassport: list[Passport] = [Passport(fact_ids=[4])]\n",
                good + "passport = None\n", good.replace("fact_ids=[4]", "fact_ids=[]"),
                good.replace("passport:", "other:")):
        assert read_singular(bad, passport) is None, bad


def test_a_refused_chat_passport_goes_back_to_the_model_never_quarantines_the_fact(
        home: Path, scripted_llm: ScriptedLLM, tmp_path: Path) -> None:
    """Safety's problems in the model's singular records module are the model's to mend: the
    compiler never leaves the cited fact out because of them."""
    marker = tmp_path / "pwned"
    answers: list[str] = []

    def model(prompt: str) -> dict[str, str]:
        answers.append(prompt)
        number = f"open({str(marker)!r}, 'w').name" if len(answers) == 1 else "'X1'"
        return {"passport_llm.py": "from .passport import Passport\n\npassport: Passport | None = "
                                   f"Passport(number={number}, fact_ids=[2])\n"}

    scripted_llm.respond = lambda request: answer(model(_prompt(request)))
    mem = Memory.open(home)
    try:
        mem.add(USER, "My passport number is X1.")
        result = mem.checkpoint(USER, LlmProducer(max_repairs=1))
        assert isinstance(result, Published), result
        assert [a.stage for a in result.version.meta.attempts] == ["safety", "passed"]
        assert "The validator refused" in answers[1] and "passport_llm.py" in answers[1]
        assert not result.version.meta.quarantined
        files = mem.versions.files(USER, result.version.number)
        assert "passport number is X1" in files["notes_000.py"] and "'X1'" in files["passport_llm.py"]
        assert not marker.exists()
    finally:
        mem.close()



NIGHTS = ("\n    @property\n    def nights(self) -> int | None:\n        return (self.return_date - self.departure_date).days "
          "if self.return_date is not None and self.departure_date is not None else None\n")


def test_a_vocabulary_class_is_offered_for_properties_once_it_holds_records(
        home: Path, scripted_llm: ScriptedLLM) -> None:
    """The class module of a kind the chat created is the generated one at first; the next
    checkpoint shows it to the model once, like a compiled class: a rewrite that keeps every
    field is taken (its `@property` runs in queries) and kept without asking again; one that
    changes a field is refused and the generated class stays."""
    generated = vocabulary_class(USER, "trip").source
    prompts: list[str] = []

    def model(prompt: str) -> dict[str, str]:
        prompts.append(prompt)
        files = chat_model(prompt)
        if "\n### trip.py\n" in prompt:
            files["trip.py"] = generated.rstrip("\n") + "\n" + NIGHTS
        return files

    mem = Memory.open(home)
    try:
        _chat(mem, scripted_llm)
        scripted_llm.respond = lambda request: answer(model(_prompt(request)))
        mem.add(USER, "Hello again.")
        second = mem.checkpoint(USER, LlmProducer())
        assert isinstance(second, Published), second
        assert "\n### trip.py\n" in prompts[-1] and "\n### passport.py\n" in prompts[-1]
        files = mem.versions.files(USER, second.version.number)
        assert "def nights" in files["trip.py"] and files["passport.py"] != vocabulary_class(USER, "passport").source
        assert mem.query(USER, "[t.nights for t in trips]").value == [13]
        mem.add(USER, "One more remark.")
        third = mem.checkpoint(USER, LlmProducer())
        assert isinstance(third, Published), third
        assert "\n### trip.py\n" not in prompts[-1]  # kept, not asked again
        assert mem.versions.files(USER, third.version.number)["trip.py"] == files["trip.py"]
    finally:
        mem.close()


def test_a_vocabulary_class_rewrite_that_changes_a_field_is_refused(home: Path, scripted_llm: ScriptedLLM) -> None:
    generated = vocabulary_class(USER, "trip").source

    def model(prompt: str) -> dict[str, str]:
        files = chat_model(prompt)
        if "\n### trip.py\n" in prompt:
            files["trip.py"] = generated.replace("    purpose: str | None = None\n", "    purpose: int = 0\n")
        return files

    mem = Memory.open(home)
    try:
        _chat(mem, scripted_llm)
        scripted_llm.respond = lambda request: answer(model(_prompt(request)))
        mem.add(USER, "Hello again.")
        second = mem.checkpoint(USER, LlmProducer())
        assert isinstance(second, Published), second
        assert second.version.meta.usage["class_modules_refused"] == 1
        assert mem.versions.files(USER, second.version.number)["trip.py"] == generated
    finally:
        mem.close()
