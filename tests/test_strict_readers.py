"""The strict readers of `meta.json`, `manifest.json` and a parted manifest's index.

Every valid document reads back equal (and writes the same bytes again); every corrupt one
(an unknown key, a wrong type, a missing key, a wrong format number) is refused with one
`InputError` line naming the file, as the pydantic models they replaced refused them.
"""

from __future__ import annotations

import copy
import json
from datetime import date
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from old_workspace import old_workspace
from store_packages import manifest as parted_manifest

from codegen.manifest import ClassInfo, CollectionInfo, DateRange, Manifest, OtherValue, RecordInfo
from factlog.errors import InputError
from users.manifest_parts import ManifestIndex, index_of, split
from users.store import VersionStore
from users.versions import Attempt, PublishMeta, VersionInfo

USER = "ann"
HASH = "ab" * 32

# -- meta.json ------------------------------------------------------------------------------

names = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=12)
texts = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
seconds = st.floats(min_value=0, max_value=1e9, allow_nan=False, allow_infinity=False) | st.integers(0, 10**6)
ids = st.integers(1, 10**12)
attempts = st.builds(Attempt, number=st.integers(1, 99), stage=st.sampled_from(["passed", "mypy", "safety", "x-y_z"]),
                     problems=st.lists(texts, max_size=3), usage=st.dictionaries(names, seconds, max_size=3),
                     seconds=seconds)
metas = st.builds(
    PublishMeta, log_position=st.integers(0, 10**9), input_hash=st.from_regex(r"\A[A-Za-z0-9:_-]{1,40}\Z"),
    producer=st.sampled_from(["compiler", "llm:qwen2.5-7b", "my_llm:org/model@2"]),
    timings=st.dictionaries(names, seconds, max_size=3), record_counts=st.dictionaries(names, st.integers(0, 99)),
    entities=st.dictionaries(names, st.lists(ids, max_size=3), max_size=3),
    retractions=st.dictionaries(ids, ids, max_size=3),
    renamed_fields=st.dictionaries(texts, st.dictionaries(texts, texts, max_size=2), max_size=2),
    log_hash=st.none() | st.just(HASH), quarantined=st.dictionaries(ids, st.text(min_size=1, max_size=20), max_size=3),
    attempts=st.lists(attempts, max_size=3), usage=st.dictionaries(names, seconds, max_size=3))
infos = st.builds(
    VersionInfo, user=st.just(USER), number=st.integers(1, 999_999), path=st.just(Path("/v")),
    created_at=st.just("2026-12-01T10:00:00.000001+00:00"), parent=st.none() | st.integers(1, 999_999),
    files_sha256=st.just(HASH), meta=metas, file_sha256=st.dictionaries(st.just("__init__.py"), st.just(HASH)),
    manifest_sha256=st.none() | st.just("cd" * 32))


def meta_text(info: VersionInfo) -> str:
    """`meta.json` as the store writes it."""
    return info.meta_bytes().decode("utf-8")


@settings(max_examples=200, deadline=None)
@given(infos)
def test_every_valid_meta_json_reads_back_equal(info: VersionInfo) -> None:
    text = meta_text(info)
    again = VersionInfo.from_meta_json(USER, info.path, json.loads(text))
    assert again == info
    assert meta_text(again) == text
    assert PublishMeta.from_json(json.loads(text)) == info.meta


def valid_meta() -> dict[str, Any]:
    info = VersionInfo(USER, 3, Path("/v"), "2026-12-01T10:00:00+00:00", 2, HASH, PublishMeta(
        7, "h", "compiler", timings={"mypy": 0.5}, record_counts={"trips": 1}, entities={"trip/a": [1]},
        retractions={2: 3}, renamed_fields={"trip": {"Cost": "cost"}}, log_hash=HASH, quarantined={4: "why"},
        attempts=[Attempt(1, "passed", ["x"], {"tokens": 3}, 0.25)], usage={"tokens": 3}),
        file_sha256={"__init__.py": HASH}, manifest_sha256=HASH)
    data: dict[str, Any] = json.loads(json.dumps(info.meta_json()))
    return data


# A wrong value for each key (of its type or its bounds), and for each key inside an attempt.
WRONG_META: dict[str, list[Any]] = {
    "version": [0, True, "x", None, 1.5], "created_at": [3, None], "parent": [0, True, "v0", []],
    "files_sha256": [None, 3], "file_sha256": [{"a": 3}, [], None], "manifest_sha256": ["xyz", 3, HASH.upper()],
    "log_position": [-1, True, "7", 7.0, None], "input_hash": ["a b", "", 3], "producer": ["gpt 4", "Compiler", 3],
    "timings": [{"mypy": -1}, {"mypy": True}, {"": 1}, {"mypy": "1"}, []],
    "record_counts": [{"trips": -2}, {"trips": 1.5}, []], "entities": [{"t": ["1"]}, {"t": [0]}, {"t": 1}],
    "retractions": [{"3": True}, {"0": 1}, {"x": 1}, {"3": "4"}], "renamed_fields": [{"a": {"b": 1}}, {"a": "b"}],
    "log_hash": ["not a hash", 3], "quarantined": [{"0": "x"}, {"1": ""}, {"1": "x" * 1001}, {"1": 3}],
    "attempts": [{}, [1], [{"number": 0, "stage": "passed"}], [{"number": 1, "stage": "Passed!"}],
                 [{"number": 1, "stage": "mypy", "problems": ["x" * 5000]}],
                 [{"number": 1, "stage": "mypy", "problems": ["x"] * 52}],
                 [{"number": 1, "stage": "passed", "usage": {"t": float("inf")}}],
                 [{"number": 1, "stage": "passed", "seconds": True}], [{"number": 1}],
                 [{"number": 1, "stage": "passed", "surprise": 1}],
                 [{"number": 1, "stage": "passed"}] * 101],
    "usage": [{"prompt_tokens": float("inf")}, {"seconds": True}, {"x" * 201: 1}],
    "format": [0, -1, True, "2", 3, None],
}
REQUIRED_META = ("version", "created_at", "parent", "files_sha256", "log_position", "input_hash", "producer")


def meta_cases() -> Iterator[tuple[str, dict[str, Any]]]:
    base = valid_meta()
    for key, values in WRONG_META.items():
        for value in values:
            yield f"{key}={value!r:.30}", {**base, key: value}
    for key in REQUIRED_META:
        yield f"no {key}", {k: v for k, v in base.items() if k != key}
    yield "unknown key", {**base, "surprise": 1}
    yield "not an object", [base]  # type: ignore[misc]


@pytest.mark.parametrize("data", [case for _, case in meta_cases()], ids=[name for name, _ in meta_cases()])
def test_every_corrupt_meta_json_is_one_input_error_line(data: dict[str, Any], tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        VersionInfo.from_meta_json(USER, tmp_path / "v000003", data)
    message = str(caught.value)
    assert "\n" not in message and str(tmp_path / "v000003" / "meta.json") in message, message


def test_the_valid_meta_and_its_older_formats_read() -> None:
    base = valid_meta()
    assert VersionInfo.from_meta_json(USER, Path("/v"), base).meta.attempts[0].usage == {"tokens": 3.0}
    old = {k: v for k, v in base.items() if k not in ("format", "attempts", "usage", "log_hash", "manifest_sha256",
                                                      "file_sha256")}
    info = VersionInfo.from_meta_json(USER, Path("/v"), {**old, "version": "v000003", "parent": "2"})
    assert (info.number, info.parent, info.meta.format, info.meta.log_hash) == (3, 2, 2, None)


@pytest.mark.parametrize("bad", [{"quarantined": {0: "x"}}, {"log_position": True}, {"timings": {"a": float("nan")}},
                                 {"attempts": [{"number": 1, "stage": "Passed"}]}, {"producer": "a b"}])
def test_publish_meta_checks_what_it_is_given(bad: dict[str, Any]) -> None:
    with pytest.raises(InputError) as caught:
        PublishMeta(**{"log_position": 1, "input_hash": "h", "producer": "compiler", **bad})
    assert "\n" not in str(caught.value)


def test_attempts_and_metadata_keep_floats_as_floats() -> None:
    attempt = Attempt(number=1, stage="passed", usage={"tokens": 3}, seconds=2)
    assert attempt.usage == {"tokens": 3.0} and type(attempt.seconds) is float
    assert attempt.to_json() == {"number": 1, "stage": "passed", "problems": [], "usage": {"tokens": 3.0},
                                 "seconds": 2.0}
    with pytest.raises(InputError):
        Attempt(number=0, stage="passed")
    assert PublishMeta(1, "h", "compiler", timings={"mypy": 1}).timings == {"mypy": 1.0}


def test_the_old_workspace_metadata_round_trips() -> None:
    found = sorted((old_workspace() / "users").glob("*/v*/meta.json"))
    assert found
    for path in found:
        data = json.loads(path.read_text())
        info = VersionInfo.from_meta_json(path.parent.parent.name, path.parent, data)
        again = VersionInfo.from_meta_json(info.user, info.path, json.loads(meta_text(info)))
        assert again == info


# -- manifest.json --------------------------------------------------------------------------

json_scalars = st.none() | st.booleans() | st.integers(-10**6, 10**6) | texts | \
    st.floats(allow_nan=False, allow_infinity=False)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(texts, inner, max_size=3), max_leaves=6)
records = st.builds(RecordInfo, record_class=names, fact_ids=st.lists(ids, max_size=3),
                    entity=st.none() | names, values=st.dictionaries(names, json_values, max_size=3))


@st.composite
def collections(draw: st.DrawFn) -> CollectionInfo:
    found = draw(st.lists(records, max_size=4))
    cut = draw(st.sampled_from([[], [len(found)], [0, len(found)]]))
    return CollectionInfo(singular=draw(st.booleans()), record_class=draw(st.none() | names), size=len(found),
                          records=found, parts=cut)


manifests = st.builds(
    Manifest, names=st.lists(names, max_size=4),
    classes=st.dictionaries(names, st.builds(ClassInfo, fields=st.lists(st.tuples(names, texts), max_size=3),
                                             public=st.booleans()), max_size=3),
    collections=st.dictionaries(names, collections(), max_size=3),
    others=st.dictionaries(names, st.builds(OtherValue, type=names, size=st.none() | st.integers(0, 99),
                                            value=json_values), max_size=3),
    date_ranges=st.dictionaries(names, st.dictionaries(names, st.builds(DateRange, min=texts, max=texts),
                                                       max_size=2), max_size=2),
    quarantined=st.dictionaries(ids, st.text(min_size=1, max_size=10), max_size=3))


@settings(max_examples=200, deadline=None)
@given(manifests)
def test_every_valid_manifest_reads_back_equal(manifest: Manifest) -> None:
    text = manifest.dump()
    again = Manifest.parse(text, source="manifest.json")
    assert again == manifest and again.dump() == text
    assert Manifest.parse(manifest.dump(indent=2), source="manifest.json") == manifest


def valid_manifest() -> dict[str, Any]:
    manifest = Manifest(
        names=["Trip", "trips", "passport", "count"],
        classes={"Trip": ClassInfo([("city", "str"), ("day", "date | None")], True)},
        collections={"trips": CollectionInfo(False, "Trip", 2, [RecordInfo("Trip", [1], "trip/a", {"city": "Oslo"}),
                                                               RecordInfo("Trip", [2, 3], None, {"day": "2026-01-02"})],
                                             [1, 1]),
                     "passport": CollectionInfo(True, None, 0, [])},
        others={"count": OtherValue("int", None, 3), "xs": OtherValue("list", 2, None)},
        date_ranges={"trips": {"day": DateRange("2026-01-02", "2026-01-02")}},
        quarantined={5: "too long"})
    data: dict[str, Any] = json.loads(manifest.dump())
    return data


def at(data: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        data = data[part]
    return data


# (path of an object, key): a wrong value there. Paths into `values` and `others.*.value`
# are free JSON, so they are not here.
WRONG_MANIFEST: list[tuple[tuple[Any, ...], str, Any]] = [
    ((), "names", "Trip"), ((), "names", [1]), ((), "classes", []), ((), "quarantined", {"x": "why"}),
    ((), "quarantined", {"5": 3}), ((), "others", {"a": 1}), ((), "date_ranges", {"trips": []}),
    (("classes", "Trip"), "fields", [["city"]]), (("classes", "Trip"), "fields", [["city", 3]]),
    (("classes", "Trip"), "fields", "city"), (("classes", "Trip"), "public", 1),
    (("collections", "trips"), "singular", "no"), (("collections", "trips"), "record_class", 3),
    (("collections", "trips"), "size", "2"), (("collections", "trips"), "size", True),
    (("collections", "trips"), "records", {}), (("collections", "trips"), "parts", [1.5]),
    (("collections", "trips", "records", 0), "fact_ids", ["1"]), (("collections", "trips", "records", 0), "fact_ids", [True]),
    (("collections", "trips", "records", 0), "entity", 3), (("collections", "trips", "records", 0), "record_class", None),
    (("collections", "trips", "records", 0), "values", []), (("collections", "trips", "records", 1), "values", None),
    (("others", "count"), "type", None), (("others", "count"), "size", "2"),
    (("date_ranges", "trips", "day"), "min", None),
]
MANIFEST_OBJECTS: list[tuple[Any, ...]] = [
    (), ("classes", "Trip"), ("collections", "trips"), ("collections", "trips", "records", 0),
    ("others", "count"), ("date_ranges", "trips", "day")]
REQUIRED_MANIFEST: list[tuple[tuple[Any, ...], str]] = [
    (("classes", "Trip"), "fields"), (("collections", "trips"), "singular"), (("collections", "trips"), "record_class"),
    (("collections", "trips"), "size"), (("collections", "trips"), "records"),
    (("collections", "trips", "records", 0), "record_class"), (("collections", "trips", "records", 0), "fact_ids"),
    (("collections", "trips", "records", 0), "entity"), (("collections", "trips", "records", 0), "values"),
    (("others", "count"), "type"), (("date_ranges", "trips", "day"), "min"), (("date_ranges", "trips", "day"), "max")]


def manifest_cases() -> Iterator[tuple[str, Any]]:
    base = valid_manifest()
    for path, key, value in WRONG_MANIFEST:
        data = copy.deepcopy(base)
        at(data, path)[key] = value
        yield f"{'.'.join(map(str, path))}.{key}={value!r:.20}", data
    for path in MANIFEST_OBJECTS:
        data = copy.deepcopy(base)
        at(data, path)["surprise"] = 1
        yield f"unknown key in {'.'.join(map(str, path))}", data
    for path, key in REQUIRED_MANIFEST:
        data = copy.deepcopy(base)
        del at(data, path)[key]
        yield f"no {'.'.join(map(str, path))}.{key}", data
    for number in (0, -1, True, "2", 3, None):
        yield f"format={number!r}", {**base, "format": number}
    yield "not an object", []


@pytest.mark.parametrize("data", [case for _, case in manifest_cases()], ids=[name for name, _ in manifest_cases()])
def test_every_corrupt_manifest_is_one_input_error_line(data: Any) -> None:
    with pytest.raises(InputError) as caught:
        Manifest.load(data, source="v000003/manifest.json")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("v000003/manifest.json: "), message


def test_the_valid_manifest_and_format_1_read() -> None:
    base = valid_manifest()
    manifest = Manifest.load(base, source="m")
    assert manifest.collections["trips"].parts == [1, 1] and manifest.quarantined == {5: "too long"}
    assert manifest.classes["Trip"].fields == [("city", "str"), ("day", "date | None")]
    assert manifest.typed_values(manifest.collections["trips"].records[1]) == {"day": date(2026, 1, 2)}
    old = copy.deepcopy(base)
    del old["format"]
    for collection in old["collections"].values():
        del collection["parts"]
    legacy = Manifest.load(old, source="m")
    assert legacy.format == 2 and legacy.collections["trips"].parts == [] and legacy.runs("trips") == \
        [manifest.collections["trips"].records]


def test_the_old_workspace_manifests_read_back_equal() -> None:
    """Its versions have no `manifest.json` (written before manifests): the manifest built
    by importing each one dumps and reads back equal."""
    store = VersionStore(old_workspace() / "users")
    versions = [info for user in store.users() for info in store.history(user)]
    assert versions
    for info in versions:
        manifest = store.manifest_of(info)
        assert manifest.collections and Manifest.parse(manifest.dump(), source="again") == manifest


# -- the index of a manifest stored in parts ------------------------------------------------

def valid_index() -> dict[str, Any]:
    index_bytes, _ = split(parted_manifest(3))
    data: dict[str, Any] = json.loads(index_bytes)
    return data


def index_cases() -> Iterator[tuple[str, Any]]:
    base = valid_index()
    sha = base["parts"]["trips"][0]
    yield "unknown key", {**base, "surprise": 1}
    yield "no parts", {k: v for k, v in base.items() if k != "parts"}
    yield "no manifest", {k: v for k, v in base.items() if k != "manifest"}
    yield "no collection", {**base, "parts": {}}
    yield "not a hash", {**base, "parts": {"trips": [sha.upper()]}}
    yield "hash not a string", {**base, "parts": {"trips": [3]}}
    yield "parts a list", {**base, "parts": [sha]}
    yield "manifest a list", {**base, "manifest": []}
    yield "format 3", {**base, "format": 3}
    yield "format true", {**base, "format": True}


def test_the_index_of_a_parted_manifest_reads() -> None:
    base = valid_index()
    index = ManifestIndex.load(base, source="m")
    assert list(index.parts) == ["trips"] and len(index.parts["trips"]) == 3
    assert index_of(json.dumps(base).encode(), "m") == index
    assert base["format"] == 2 and ManifestIndex.load({**base, "format": 1}, source="m") == index  # tree files


@pytest.mark.parametrize("data", [case for _, case in index_cases()], ids=[name for name, _ in index_cases()])
def test_every_corrupt_index_is_one_input_error_line(data: Any) -> None:
    with pytest.raises(InputError) as caught:
        ManifestIndex.load(data, source="v000003/manifest.json")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("v000003/manifest.json: "), message
