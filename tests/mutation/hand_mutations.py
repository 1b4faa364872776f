"""Hand mutations the mutation tool cannot make, and a runner that shows the tests kill them.

mutmut mutates Python inside functions; it does not mutate SQL held in strings (the
triggers of the fact log) or module-level constants (limits, thresholds, allowlists).
Each mutation below replaces one exact piece of text in a copy of the repository, runs
the tests that guard that module in the copy, and expects them to fail.

    python tests/mutation/hand_mutations.py              # all mutations, with every test
    python tests/mutation/hand_mutations.py --before     # without the tests added to kill them
    python tests/mutation/hand_mutations.py --only T04 S01

A mutation whose text does not occur exactly once in its file stops the run before anything
is tested (code moved under it: retarget it). Exit status 0 when every mutation (but the
ones marked equivalent) is killed. Not a
pytest test on purpose: the default test run has no slow-test exclusion, and this takes
a few minutes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("factlog", "codegen", "users", "constraints", "runtime")
NEW_TESTS = ("tests/test_triggers.py", "tests/test_mutation_kills.py")  # added to kill these mutants

STORE_TESTS = ("tests/test_factlog_store.py", "tests/test_triggers.py", "tests/test_log_integrity.py",
               "tests/test_forget.py")
SAFETY_TESTS = ("tests/test_safety.py", "tests/test_cst_audit.py", "tests/test_mutation_kills.py")
QUERY_TESTS = ("tests/test_safe_eval.py", "tests/test_mutation_kills.py")
CONSTRAINT_TESTS = ("tests/test_constraints.py", "tests/test_mutation_kills.py")
HASH_TESTS = ("tests/test_factlog_store.py", "tests/test_triggers.py", "tests/test_log_integrity.py",
              "tests/test_mutation_kills.py")
DOOR_TESTS = ("tests/test_ingest_door.py", "tests/test_quarantine.py", "tests/test_mutation_kills.py")


@dataclass(frozen=True)
class HandMutation:
    id: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]
    what: str
    equivalent: str = ""  # why no test can tell it apart, when that is so


M = HandMutation
MIGRATIONS = "factlog/migrations.py"
RULES = "codegen/safety_rules.py"
POLICY = "runtime/query_policy.py"
BUILTIN = "constraints/builtin.py"
MEDICINES = "constraints/medicines.py"
HASHING = "factlog/hashing.py"
LIMITS = "factlog/limits.py"

MUTATIONS: tuple[HandMutation, ...] = (
    # --- SQLite triggers of m001 still in force (factlog/migrations.py) -----------------------
    M("T01", MIGRATIONS, "BEFORE UPDATE ON facts\n        BEGIN", "BEFORE UPDATE ON facts WHEN 0\n        BEGIN",
      STORE_TESTS, "no-update trigger never fires"),
    M("T02", MIGRATIONS, "BEFORE DELETE ON facts\n        WHEN NOT EXISTS (SELECT 1 FROM forgetting WHERE user = OLD.user)",
      "BEFORE DELETE ON facts\n        WHEN 0", STORE_TESTS, "no-delete trigger never fires"),
    M("T03", MIGRATIONS, "BEFORE DELETE ON facts\n        WHEN NOT EXISTS (SELECT 1 FROM forgetting WHERE user = OLD.user)",
      "BEFORE DELETE ON facts\n        WHEN NOT EXISTS (SELECT 1 FROM forgetting)",
      STORE_TESTS, "forgetting any user opens deletes for all users"),
    # m001's facts_sequence is dropped by m002: T04-T09 target its successor facts_sequence_hw.
    M("T04", MIGRATIONS, "WHEN NEW.id != COALESCE((SELECT last_id", "WHEN NEW.id < COALESCE((SELECT last_id",
      STORE_TESTS, "id sequence allows gaps"),
    M("T05", MIGRATIONS, "(SELECT last_id FROM id_high_water WHERE user = NEW.user), 0) + 1",
      "(SELECT MAX(last_id) FROM id_high_water), 0) + 1", STORE_TESTS, "id sequence shared by all users"),
    M("T06", MIGRATIONS, "WHEN NEW.id != COALESCE((SELECT last_id FROM id_high_water WHERE user = NEW.user), 0) + 1\n"
                         "          OR NEW.prev_hash", "WHEN NEW.prev_hash",
      STORE_TESTS, "id sequence not checked at all"),
    M("T07", MIGRATIONS, "OR NEW.prev_hash != COALESCE(\n               (SELECT hash FROM facts WHERE user = NEW.user ORDER",
      "OR 0 AND NEW.prev_hash != COALESCE(\n               (SELECT hash FROM facts WHERE user = NEW.user ORDER",
      STORE_TESTS, "hash chain (prev_hash) not checked"),
    M("T08", MIGRATIONS, "(SELECT hash FROM facts WHERE user = NEW.user ORDER BY id DESC LIMIT 1)",
      "(SELECT hash FROM facts ORDER BY id DESC LIMIT 1)", STORE_TESTS, "prev_hash may come from another user's log"),
    M("T09", MIGRATIONS, "ORDER BY id DESC LIMIT 1), '{GENESIS}')", "ORDER BY id DESC LIMIT 1), NEW.prev_hash)",
      STORE_TESTS, "a new user's first fact may chain from anything"),
    M("T10", MIGRATIONS, "WHEN NEW.retracts IS NOT NULL AND NOT EXISTS (", "WHEN 0 AND NOT EXISTS (",
      STORE_TESTS, "retraction-target trigger never fires"),
    M("T11", MIGRATIONS, "WHERE user = NEW.user AND id = NEW.retracts)", "WHERE id = NEW.retracts)",
      STORE_TESTS, "a retraction may name another user's fact"),
    M("T12", MIGRATIONS, "CHECK (id >= 1)", "CHECK (id >= 0)", STORE_TESTS, "id 0 allowed by the CHECK",
      equivalent="the sequence trigger already refuses id 0 (a first fact must have id 1)"),
    M("T13", MIGRATIONS, "WHERE user = NEW.user ORDER BY id DESC LIMIT 1)", "WHERE user = NEW.user ORDER BY id LIMIT 1)",
      STORE_TESTS, "prev_hash from the user's first fact instead of the last"),
    # --- integrity triggers of m002 (factlog/migrations.py) ----------------------------------
    M("I01", MIGRATIONS, "UPDATE id_high_water SET last_id = NEW.id WHERE user = NEW.user;",
      "UPDATE id_high_water SET last_id = NEW.id WHERE 0;", STORE_TESTS, "high-water mark not raised by an append"),
    M("I02", MIGRATIONS, "SELECT NEW.user, NEW.id\n                WHERE NOT EXISTS",
      "SELECT NEW.user, NEW.id\n                WHERE 0 AND NOT EXISTS", STORE_TESTS,
      "a new user's first fact sets no mark"),
    M("I03", MIGRATIONS, "WHEN EXISTS (SELECT 1 FROM forgetting WHERE user = NEW.user)", "WHEN 0",
      STORE_TESTS, "a user being forgotten may take new facts"),
    M("I04", MIGRATIONS, "WHEN NEW.last_id IS NOT (SELECT MAX(id) FROM facts WHERE user = NEW.user)\n"
                         "        BEGIN SELECT RAISE(ABORT, 'the id high-water mark is set only",
      "WHEN 0\n        BEGIN SELECT RAISE(ABORT, 'the id high-water mark is set only", STORE_TESTS,
      "a mark may be inserted at any value"),
    M("I05", MIGRATIONS, "WHEN NEW.user IS NOT OLD.user OR NEW.last_id <= OLD.last_id\n          OR",
      "WHEN NEW.user IS NOT OLD.user\n          OR", STORE_TESTS, "the mark may go down (to the newest stored id)"),
    M("I06", MIGRATIONS, "NEW.last_id <= OLD.last_id\n"
                         "          OR NEW.last_id IS NOT (SELECT MAX(id) FROM facts WHERE user = NEW.user)",
      "NEW.last_id <= OLD.last_id", STORE_TESTS, "the mark may be raised above the newest stored id"),
    M("I07", MIGRATIONS, "WHEN NEW.user IS NOT OLD.user OR NEW.last_id", "WHEN NEW.last_id", STORE_TESTS,
      "a mark may be moved to another user"),
    M("I08", MIGRATIONS, "BEFORE DELETE ON id_high_water\n        WHEN NOT EXISTS (SELECT 1 FROM forgetting WHERE user = OLD.user)",
      "BEFORE DELETE ON id_high_water\n        WHEN 0", STORE_TESTS, "a mark may be deleted"),
    M("I09", MIGRATIONS, "BEFORE DELETE ON id_high_water\n        WHEN NOT EXISTS (SELECT 1 FROM forgetting WHERE user = OLD.user)",
      "BEFORE DELETE ON id_high_water\n        WHEN NOT EXISTS (SELECT 1 FROM forgetting)", STORE_TESTS,
      "forgetting any user opens the deletion of every mark"),
    M("I10", MIGRATIONS, "            DELETE FROM facts WHERE user = NEW.user;\n", "", STORE_TESTS,
      "a forgetting row does not erase the facts"),
    M("I11", MIGRATIONS, "            DELETE FROM id_high_water WHERE user = NEW.user;\n", "", STORE_TESTS,
      "a forgetting row does not erase the mark"),
    M("I12", MIGRATIONS, "            DELETE FROM forgetting WHERE user = NEW.user;\n", "", STORE_TESTS,
      "forgetting is not self-erasing (the bypass row stays)"),
    M("I13", MIGRATIONS, "WHEN EXISTS (SELECT 1 FROM facts WHERE user = OLD.user)\n"
                         "          OR EXISTS (SELECT 1 FROM id_high_water WHERE user = OLD.user)",
      "WHEN 0", STORE_TESTS, "a forgetting row may be removed with the user half erased"),
    M("I14", MIGRATIONS, "WHEN EXISTS (SELECT 1 FROM facts WHERE user = OLD.user)\n          OR EXISTS",
      "WHEN EXISTS", STORE_TESTS, "all-or-nothing ignores facts left behind"),
    M("I15", MIGRATIONS, "\n          OR EXISTS (SELECT 1 FROM id_high_water WHERE user = OLD.user)\n"
                         "        BEGIN SELECT RAISE(ABORT, 'forget erases all",
      "\n        BEGIN SELECT RAISE(ABORT, 'forget erases all", STORE_TESTS, "all-or-nothing ignores a mark left behind"),
    M("I16", MIGRATIONS, "BEFORE UPDATE ON forgetting\n        BEGIN", "BEFORE UPDATE ON forgetting WHEN 0\n        BEGIN",
      STORE_TESTS, "forgetting rows may be updated"),
    M("I17", MIGRATIONS, "BEFORE UPDATE ON log_meta\n        BEGIN", "BEFORE UPDATE ON log_meta WHEN 0\n        BEGIN",
      HASH_TESTS, "log settings (keyed or not) may be updated"),
    M("I18", MIGRATIONS, "BEFORE DELETE ON log_meta\n        BEGIN", "BEFORE DELETE ON log_meta WHEN 0\n        BEGIN",
      HASH_TESTS, "log settings may be deleted (a keyed log stripped of its key record)"),
    M("I19", MIGRATIONS, "WHEN EXISTS (SELECT 1 FROM facts) OR EXISTS (SELECT 1 FROM id_high_water)", "WHEN 0",
      HASH_TESTS, "a log may be declared keyed after facts were written"),
    M("I20", MIGRATIONS, "WHEN EXISTS (SELECT 1 FROM facts) OR EXISTS (SELECT 1 FROM id_high_water)",
      "WHEN EXISTS (SELECT 1 FROM facts)", HASH_TESTS,
      "a log whose facts were all deleted may be declared keyed"),
    M("I21", MIGRATIONS, 'db.execute("INSERT INTO id_high_water (user, last_id) SELECT user, MAX(id) FROM facts GROUP BY user")',
      "pass", STORE_TESTS, "m002 gives the users of an existing log no mark"),
    M("I22", MIGRATIONS, 'db.execute("DELETE FROM forgetting")', "pass", STORE_TESTS,
      "m002 keeps a bypass row left behind in an old log"),
    # --- fact hashing and the keyed chain (factlog/hashing.py, factlog/chain_rules.py) -------
    M("H01", HASHING, "sort_keys=True", "sort_keys=False", HASH_TESTS, "keys hashed in insertion order"),
    M("H02", HASHING, 'separators=(",", ":")', 'separators=(", ", ": ")', HASH_TESTS,
      "canonical JSON with spaces"),
    M("H03", HASHING, "ensure_ascii=False", "ensure_ascii=True", HASH_TESTS, "non-ASCII escaped"),
    M("H04", HASHING, 'GENESIS = "0" * 64', 'GENESIS = "0" * 63 + "1"', HASH_TESTS, "another genesis"),
    M("H05", HASHING, "    if key is None:\n        return hashlib.sha256", "    if True:\n        return hashlib.sha256",
      HASH_TESTS, "HMAC key ignored: a keyed chain is a plain sha256 chain"),
    M("H06", HASHING, "hmac.new(key, data, hashlib.sha256)", "hmac.new(b'uac', data, hashlib.sha256)", HASH_TESTS,
      "HMAC under a fixed key instead of the chain key"),
    M("H07", HASHING, "hmac.new(key, _FINGERPRINT_LABEL", "hmac.new(b'', _FINGERPRINT_LABEL", HASH_TESTS,
      "the key fingerprint does not depend on the key"),
    M("H08", "factlog/chain_rules.py", 'object.__setattr__(fact, "hash", content_hash(fact.body(), key))',
      'object.__setattr__(fact, "hash", content_hash(fact.body()))', HASH_TESTS, "the store appends unkeyed hashes to a keyed log"),
    M("H09", "factlog/chain_rules.py", "    if content_hash(fact.body(), key) != fact.hash:\n        what",
      "    if content_hash(fact.body()) != fact.hash and key is None:\n        what", HASH_TESTS,
      "verify does not check keyed hashes"),
    # --- codegen safety limits (codegen/safety_rules.py, codegen/safety.py) -------------------
    M("S01", LIMITS, "MAX_STRING_CHARS = 256 * 1024", "MAX_STRING_CHARS = 256 * 1024 + 1", SAFETY_TESTS + DOOR_TESTS,
      "string limit one higher"),
    M("S02", RULES, "len(value) > self.limits.max_string", "len(value) >= self.limits.max_string", SAFETY_TESTS,
      "string limit > becomes >="),
    M("S03", LIMITS, "MAX_INT_DIGITS = 32", "MAX_INT_DIGITS = 33", SAFETY_TESTS + DOOR_TESTS, "integer digits 32 -> 33"),
    M("S04", RULES, "abs(value) >= 10 ** self.limits.max_int_digits", "abs(value) > 10 ** self.limits.max_int_digits",
      SAFETY_TESTS, "integer limit >= becomes >"),
    M("S05", LIMITS, "MAX_SOURCE_DEPTH = 24", "MAX_SOURCE_DEPTH = 25", SAFETY_TESTS + DOOR_TESTS, "nesting limit 24 -> 25"),
    M("S06", RULES, "        if depth > self.limits.max_depth:\n            self.flag(\"nesting\", node, f\"values",
      "        if depth > self.limits.max_depth + 1:\n            self.flag(\"nesting\", node, f\"values",
      SAFETY_TESTS, "value nesting one level looser"),
    M("S07", RULES, "        if depth > self.limits.max_depth:\n            self.flag(\"nesting\", node, f\"annotations",
      "        if depth > self.limits.max_depth + 1:\n            self.flag(\"nesting\", node, f\"annotations",
      SAFETY_TESTS, "annotation nesting one level looser"),
    M("S08", RULES, "                self.value(argument, depth + 1)", "                self.value(argument, depth)",
      SAFETY_TESTS, "call arguments do not count towards depth"),
    M("S09", LIMITS, "MAX_FILE_BYTES = 8 * 1024 * 1024", "MAX_FILE_BYTES = 8 * 1024 * 1024 + 1",
      SAFETY_TESTS, "file size limit one byte higher"),
    M("S10", RULES, 'size = len(source.encode("utf-8", "surrogatepass"))', "size = len(source)", SAFETY_TESTS,
      "file size in characters instead of bytes"),
    M("S11", LIMITS, "MAX_FILES = 10_000", "MAX_FILES = 10_001", SAFETY_TESTS, "file-count cap one higher"),
    M("S12", "codegen/safety.py", "if len(files) > limits.max_files:", "if len(files) > limits.max_files + 1:",
      SAFETY_TESTS, "file-count cap off by one"),
    M("S13", "codegen/safety.py", 'f"{_RULES_DIGEST}\\x00{self.limits!r}\\x00"', 'f"{_RULES_DIGEST}\\x00"',
      SAFETY_TESTS, "cache key ignores the limits"),
    M("S14", "codegen/safety.py", 'f"{_RULES_DIGEST}\\x00{self.limits!r}\\x00"', 'f"{self.limits!r}\\x00"',
      SAFETY_TESTS, "cache key ignores the rules"),
    # --- door limits (factlog/limits.py; check_fields and the compiler share them) ----------
    M("L01", LIMITS, "MAX_TEXT_BYTES = 64 * 1024", "MAX_TEXT_BYTES = 64 * 1024 + 1", DOOR_TESTS, "text limit one higher"),
    M("L02", LIMITS, "MAX_TEXT_BYTES = 64 * 1024", "MAX_TEXT_BYTES = 64 * 1024 - 1", DOOR_TESTS, "text limit one lower"),
    M("L03", LIMITS, "MAX_FIELD_NAME = 128", "MAX_FIELD_NAME = 129", DOOR_TESTS, "field-name limit one higher"),
    M("L04", LIMITS, "MAX_FIELD_NAME = 128", "MAX_FIELD_NAME = 127", DOOR_TESTS, "field-name limit one lower"),
    M("L05", LIMITS, "MAX_FIELDS = 256", "MAX_FIELDS = 257", DOOR_TESTS, "fields per fact one more"),
    M("L06", LIMITS, "MAX_FIELDS = 256", "MAX_FIELDS = 255", DOOR_TESTS, "fields per fact one fewer"),
    M("L07", LIMITS, "MAX_KEY = 256", "MAX_KEY = 257", DOOR_TESTS, "identity-key limit one higher"),
    M("L08", LIMITS, "MAX_KEY = 256", "MAX_KEY = 255", DOOR_TESTS, "identity-key limit one lower"),
    M("L09", LIMITS, "MAX_FACT_ID = 2**63 - 1", "MAX_FACT_ID = 2**63", DOOR_TESTS, "a fact id SQLite cannot hold"),
    M("L10", LIMITS, "MAX_FACT_ID = 2**63 - 1", "MAX_FACT_ID = 2**63 - 2", DOOR_TESTS, "largest fact id one lower"),
    M("L11", LIMITS, "MAX_JSON_DEPTH = 16", "MAX_JSON_DEPTH = 17", DOOR_TESTS, "field nesting one deeper"),
    M("L12", LIMITS, "MAX_JSON_DEPTH = 16", "MAX_JSON_DEPTH = 15", DOOR_TESTS, "field nesting one shallower"),
    M("L13", LIMITS, "MAX_FIELDS_CHARS = 512 * 1024", "MAX_FIELDS_CHARS = 512 * 1024 + 1", DOOR_TESTS,
      "fields JSON one character more"),
    M("L14", LIMITS, "MAX_FIELDS_CHARS = 512 * 1024", "MAX_FIELDS_CHARS = 512 * 1024 - 1", DOOR_TESTS,
      "fields JSON one character fewer"),
    M("L15", LIMITS, "MAX_STRING_CHARS = 256 * 1024", "MAX_STRING_CHARS = 256 * 1024 - 1", SAFETY_TESTS + DOOR_TESTS,
      "string limit one lower"),
    M("L16", LIMITS, "MAX_INT_DIGITS = 32", "MAX_INT_DIGITS = 31", SAFETY_TESTS + DOOR_TESTS, "integer digits 32 -> 31"),
    M("L17", LIMITS, "MAX_FILE_BYTES = 8 * 1024 * 1024", "MAX_FILE_BYTES = 8 * 1024 * 1024 - 1", SAFETY_TESTS,
      "file size limit one byte lower"),
    M("L18", LIMITS, "MAX_FILES = 10_000", "MAX_FILES = 9_999", SAFETY_TESTS, "file-count cap one lower"),
    M("L19", LIMITS, "MAX_SOURCE_DEPTH = 24", "MAX_SOURCE_DEPTH = 23", SAFETY_TESTS + DOOR_TESTS,
      "nesting limit 24 -> 23"),
    M("L20", LIMITS, "return abs(value) >= _INT_BOUND", "return abs(value) > _INT_BOUND", DOOR_TESTS,
      "int_too_long >= becomes > (10**32 passes the door)"),
    M("L21", LIMITS, 'return name.startswith("__") and', 'return name.startswith("___") and', DOOR_TESTS,
      "reserved_field_name loosened: `__secret` passes the door"),
    M("L22", LIMITS, 'name.isascii() and name.isidentifier()', 'name.isascii() and name.isidentifier() and len(name) > 8',
      DOOR_TESTS, "reserved_field_name loosened: short private names pass the door"),
    M("L23", LIMITS, ' and not name.endswith("__")', "", DOOR_TESTS,
      "reserved_field_name tightened: full dunders (`__class__`, which compile) refused"),
    # --- query policy (runtime/query_policy.py) ----------------------------------------------
    M("Q01", POLICY, "MAX_EXPRESSION_CHARS: Final = 2_000", "MAX_EXPRESSION_CHARS: Final = 2_001", QUERY_TESTS,
      "expression length limit one higher"),
    M("Q02", POLICY, "MAX_AST_NODES: Final = 600", "MAX_AST_NODES: Final = 601", QUERY_TESTS,
      "node limit one higher"),
    M("Q03", POLICY, "MAX_AST_DEPTH: Final = 40", "MAX_AST_DEPTH: Final = 41", QUERY_TESTS, "depth limit one higher"),
    M("Q04", POLICY, "MAX_SEQUENCE_ITEMS: Final = 1_000_000", "MAX_SEQUENCE_ITEMS: Final = 1_000_001",
      QUERY_TESTS, "sequence limit one higher"),
    M("Q05", POLICY, "MAX_STRING_CHARS: Final = 1_000_000", "MAX_STRING_CHARS: Final = 1_000_001", QUERY_TESTS,
      "string limit one higher"),
    M("Q06", POLICY, "MAX_INT_BITS: Final = 100_000", "MAX_INT_BITS: Final = 100_001", QUERY_TESTS,
      "integer bit limit one higher"),
    M("Q07", POLICY, "MAX_FORMAT_SPEC_CHARS: Final = 30", "MAX_FORMAT_SPEC_CHARS: Final = 31", QUERY_TESTS,
      "format spec length one higher"),
    M("Q08", POLICY, "MAX_FORMAT_SPEC_DIGITS: Final = 3", "MAX_FORMAT_SPEC_DIGITS: Final = 4", QUERY_TESTS,
      "format width 1000 allowed"),
    M("Q09", POLICY, '"lower", "upper",', '"lower", "upper", "format",', QUERY_TESTS, "str.format allowed"),
    M("Q10", POLICY, 'list: frozenset({"index", "count", "copy"})', 'list: frozenset({"index", "count", "copy", "append"})',
      QUERY_TESTS, "list.append allowed"),
    M("Q11", POLICY, '_DICT_READ = frozenset({"items", "keys", "values", "get", "copy"})',
      '_DICT_READ = frozenset({"items", "keys", "values", "get", "copy", "update"})', QUERY_TESTS, "dict.update allowed"),
    M("Q12", POLICY, '"fromisocalendar", "min", "max"}', '"fromisocalendar", "min", "max", "fromtimestamp"}',
      QUERY_TESTS, "date.fromtimestamp allowed"),
    M("Q13", POLICY, "ast.Expression, ast.Constant,", "ast.Expression, ast.NamedExpr, ast.Constant,", QUERY_TESTS,
      "walrus allowed"),
    M("Q14", POLICY, '"union", "intersection",', '"union", "intersection", "add",', QUERY_TESTS, "set.add allowed"),
    # --- built-in constraints (constraints/builtin.py) ---------------------------------------
    M("B01", BUILTIN, "PASSPORT_SPARE_DAYS = 180", "PASSPORT_SPARE_DAYS = 90", CONSTRAINT_TESTS, "passport margin 180 -> 90"),
    M("B02", BUILTIN, "(expiry - departure).days < PASSPORT_SPARE_DAYS", "(expiry - departure).days <= PASSPORT_SPARE_DAYS",
      CONSTRAINT_TESTS, "passport margin < becomes <="),
    M("B03", BUILTIN, "(expiry - departure).days < PASSPORT_SPARE_DAYS", "(expiry - back).days < PASSPORT_SPARE_DAYS",
      CONSTRAINT_TESTS, "passport margin from return instead of departure"),
    M("B04", BUILTIN, '((30, "critical")', '((29, "critical")', CONSTRAINT_TESTS, "critical cut-off 30 -> 29"),
    M("B05", BUILTIN, '(60, "warning")', '(59, "warning")', CONSTRAINT_TESTS, "warning cut-off 60 -> 59"),
    M("B06", BUILTIN, '(90, "info")', '(89, "info")', CONSTRAINT_TESTS, "info cut-off 90 -> 89"),
    M("B07", BUILTIN, "DUE_SOON_DAYS = 7", "DUE_SOON_DAYS = 6", CONSTRAINT_TESTS, "bills due window 7 -> 6"),
    M("B08", BUILTIN, "SERVICE_SOON_DAYS = 14", "SERVICE_SOON_DAYS = 13", CONSTRAINT_TESTS, "service window 14 -> 13"),
    M("B09", BUILTIN, "if back < today:", "if back <= today:", CONSTRAINT_TESTS, "a trip returning today is past"),
    M("B10", BUILTIN, "        if expiry < back:", "        if expiry <= back:", CONSTRAINT_TESTS,
      "expiry on the return day is critical"),
    M("B11", MEDICINES, "ended < today", "ended <= today", CONSTRAINT_TESTS,
      "a medication ending today no longer counts"),
    M("B12", BUILTIN, "if days <= limit:", "if days < limit:", CONSTRAINT_TESTS, "expiry thresholds exclusive"),
)


def copy_repo(target: Path, before: bool) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
    for name in PACKAGES + ("tests",):
        shutil.copytree(REPO / name, target / name, ignore=ignore)
    shutil.copy2(REPO / "pyproject.toml", target / "pyproject.toml")
    if before:
        for test in NEW_TESTS:
            (target / test).unlink()


def environment(root: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
    env.pop("UAC_CHAIN_KEY", None)
    return env


def run_tests(root: Path, tests: tuple[str, ...]) -> tuple[bool, str]:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", "not slow", *dict.fromkeys(tests)],
        cwd=root, env=environment(root), capture_output=True, text=True, timeout=900)
    lines = (result.stdout + result.stderr).strip().splitlines()
    return result.returncode == 0, (lines[-1] if lines else "")


def try_mutation(mutation: HandMutation, before: bool) -> tuple[HandMutation, bool, str]:
    tests = tuple(t for t in mutation.tests if not (before and t in NEW_TESTS))
    with tempfile.TemporaryDirectory(prefix="hand-mutant-") as tmp:
        root = Path(tmp)
        copy_repo(root, before)
        path = root / mutation.path
        text = path.read_text("utf-8")
        if text.count(mutation.old) != 1:  # checked up front too; a mutant never applied is never "killed"
            raise SystemExit(f"{mutation.id}: text found {text.count(mutation.old)} times in {mutation.path}")
        path.write_text(text.replace(mutation.old, mutation.new), "utf-8")
        passed, last = run_tests(root, tests)
    return mutation, passed, last


def check_applicable(chosen: list[HandMutation]) -> None:
    """Every mutation's text occurs exactly once in its file, or nothing runs: a mutation
    whose text moved away would otherwise pass as a survivor or, worse, as killed."""
    stale = [f"{m.id}: {m.path}: text found {(REPO / m.path).read_text('utf-8').count(m.old)} times: {m.old[:60]!r}"
             for m in chosen if (REPO / m.path).read_text("utf-8").count(m.old) != 1]
    if stale:
        sys.exit("mutations that do not apply to this code (update tests/mutation/hand_mutations.py):\n  "
                 + "\n  ".join(stale))


def check_baseline(before: bool) -> None:
    """The unmutated copy imports from itself and passes every test set used here."""
    with tempfile.TemporaryDirectory(prefix="hand-mutant-") as tmp:
        root = Path(tmp)
        copy_repo(root, before)
        where = subprocess.run([sys.executable, "-c", "import factlog, runtime; print(factlog.__file__)"],
                               cwd=root, env=environment(root), capture_output=True, text=True, check=True)
        if not Path(where.stdout.strip()).resolve().is_relative_to(root.resolve()):
            sys.exit(f"the copy imports the repository, not itself: {where.stdout.strip()}")
        tests = sorted({t for m in MUTATIONS for t in m.tests if not (before and t in NEW_TESTS)})
        passed, last = run_tests(root, tuple(tests))
        if not passed:
            sys.exit(f"the unmutated copy fails its tests: {last}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", action="store_true", help=f"run without {', '.join(NEW_TESTS)}")
    parser.add_argument("--only", nargs="*", default=(), help="mutation ids to run")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--skip-baseline", action="store_true")
    args = parser.parse_args()
    chosen = [m for m in MUTATIONS if not args.only or m.id in args.only]
    unknown = set(args.only) - {m.id for m in MUTATIONS}
    if unknown:
        sys.exit(f"no such mutation: {', '.join(sorted(unknown))}")
    check_applicable(chosen)
    if not args.skip_baseline:
        check_baseline(args.before)
    survivors = 0
    with ThreadPoolExecutor(args.jobs) as pool:
        for mutation, passed, last in pool.map(lambda m: try_mutation(m, args.before), chosen):
            if mutation.equivalent:
                verdict = "equivalent" if passed else "killed"
            else:
                verdict = "SURVIVED" if passed else "killed"
                survivors += passed
            note = f" ({mutation.equivalent})" if mutation.equivalent and passed else ""
            print(f"{mutation.id}  {verdict:10}  {mutation.path}: {mutation.what}{note}", flush=True)
    killed = sum(1 for m in chosen if not m.equivalent) - survivors
    print(f"\n{killed} killed, {survivors} survived, {sum(1 for m in chosen if m.equivalent)} equivalent "
          f"of {len(chosen)} hand mutations{' (before the new tests)' if args.before else ''}")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
