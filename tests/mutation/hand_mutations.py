"""Hand mutations the mutation tool cannot make, and a runner that shows the tests kill them.

mutmut mutates Python inside functions; it does not mutate SQL held in strings (the
triggers of the fact log) or module-level constants (limits, thresholds, allowlists).
Each mutation below replaces one exact piece of text in a copy of the repository, runs
the tests that guard that module in the copy, and expects them to fail.

    python tests/mutation/hand_mutations.py              # all mutations, with every test
    python tests/mutation/hand_mutations.py --before     # without the tests added to kill them
    python tests/mutation/hand_mutations.py --only T04 S01

Exit status 0 when every mutation (but the ones marked equivalent) is killed. Not a
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

STORE_TESTS = ("tests/test_factlog_store.py", "tests/test_triggers.py")
SAFETY_TESTS = ("tests/test_safety.py", "tests/test_cst_audit.py", "tests/test_mutation_kills.py")
QUERY_TESTS = ("tests/test_safe_eval.py", "tests/test_mutation_kills.py")
CONSTRAINT_TESTS = ("tests/test_constraints.py", "tests/test_mutation_kills.py")
HASH_TESTS = ("tests/test_factlog_store.py", "tests/test_triggers.py", "tests/test_mutation_kills.py")


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

MUTATIONS: tuple[HandMutation, ...] = (
    # --- SQLite triggers (factlog/migrations.py) ---------------------------------------------
    M("T01", MIGRATIONS, "BEFORE UPDATE ON facts\n        BEGIN", "BEFORE UPDATE ON facts WHEN 0\n        BEGIN",
      STORE_TESTS, "no-update trigger never fires"),
    M("T02", MIGRATIONS, "WHEN NOT EXISTS (SELECT 1 FROM forgetting WHERE user = OLD.user)", "WHEN 0",
      STORE_TESTS, "no-delete trigger never fires"),
    M("T03", MIGRATIONS, "FROM forgetting WHERE user = OLD.user)", "FROM forgetting)",
      STORE_TESTS, "forgetting any user opens deletes for all users"),
    M("T04", MIGRATIONS, "WHEN NEW.id != COALESCE(", "WHEN NEW.id < COALESCE(",
      STORE_TESTS, "id sequence allows gaps"),
    M("T05", MIGRATIONS, "(SELECT MAX(id) FROM facts WHERE user = NEW.user)", "(SELECT MAX(id) FROM facts)",
      STORE_TESTS, "id sequence shared by all users"),
    M("T06", MIGRATIONS, "WHEN NEW.id != COALESCE((SELECT MAX(id) FROM facts WHERE user = NEW.user), 0) + 1\n"
                         "          OR NEW.prev_hash", "WHEN NEW.prev_hash",
      STORE_TESTS, "id sequence not checked at all"),
    M("T07", MIGRATIONS, "OR NEW.prev_hash != COALESCE(", "OR 0 AND NEW.prev_hash != COALESCE(",
      STORE_TESTS, "hash chain (prev_hash) not checked"),
    M("T08", MIGRATIONS, "(SELECT hash FROM facts WHERE user = NEW.user AND id = NEW.id - 1)",
      "(SELECT hash FROM facts WHERE id = NEW.id - 1)", STORE_TESTS, "prev_hash may come from another user's log"),
    M("T09", MIGRATIONS, "'{GENESIS}')", "NEW.prev_hash)", STORE_TESTS, "a new user's first fact may chain from anything"),
    M("T10", MIGRATIONS, "WHEN NEW.retracts IS NOT NULL AND NOT EXISTS (", "WHEN 0 AND NOT EXISTS (",
      STORE_TESTS, "retraction-target trigger never fires"),
    M("T11", MIGRATIONS, "WHERE user = NEW.user AND id = NEW.retracts)", "WHERE id = NEW.retracts)",
      STORE_TESTS, "a retraction may name another user's fact"),
    M("T12", MIGRATIONS, "CHECK (id >= 1)", "CHECK (id >= 0)", STORE_TESTS, "id 0 allowed by the CHECK",
      equivalent="the sequence trigger already refuses id 0 (a first fact must have id 1)"),
    # --- fact hashing (factlog/hashing.py) ---------------------------------------------------
    M("H01", "factlog/hashing.py", "sort_keys=True", "sort_keys=False", HASH_TESTS, "keys hashed in insertion order"),
    M("H02", "factlog/hashing.py", 'separators=(",", ":")', 'separators=(", ", ": ")', HASH_TESTS,
      "canonical JSON with spaces"),
    M("H03", "factlog/hashing.py", "ensure_ascii=False", "ensure_ascii=True", HASH_TESTS, "non-ASCII escaped"),
    M("H04", "factlog/hashing.py", 'GENESIS = "0" * 64', 'GENESIS = "0" * 63 + "1"', HASH_TESTS, "another genesis"),
    # --- codegen safety limits (codegen/safety_rules.py, codegen/safety.py) -------------------
    M("S01", RULES, "max_string: int = 256 * 1024", "max_string: int = 256 * 1024 + 1", SAFETY_TESTS,
      "string limit one higher"),
    M("S02", RULES, "len(value) > self.limits.max_string", "len(value) >= self.limits.max_string", SAFETY_TESTS,
      "string limit > becomes >="),
    M("S03", RULES, "max_int_digits: int = 32", "max_int_digits: int = 33", SAFETY_TESTS, "integer digits 32 -> 33"),
    M("S04", RULES, "abs(value) >= 10 ** self.limits.max_int_digits", "abs(value) > 10 ** self.limits.max_int_digits",
      SAFETY_TESTS, "integer limit >= becomes >"),
    M("S05", RULES, "max_depth: int = 24", "max_depth: int = 25", SAFETY_TESTS, "nesting limit 24 -> 25"),
    M("S06", RULES, "        if depth > self.limits.max_depth:\n            self.flag(\"nesting\", node, f\"values",
      "        if depth > self.limits.max_depth + 1:\n            self.flag(\"nesting\", node, f\"values",
      SAFETY_TESTS, "value nesting one level looser"),
    M("S07", RULES, "        if depth > self.limits.max_depth:\n            self.flag(\"nesting\", node, f\"annotations",
      "        if depth > self.limits.max_depth + 1:\n            self.flag(\"nesting\", node, f\"annotations",
      SAFETY_TESTS, "annotation nesting one level looser"),
    M("S08", RULES, "                self.value(argument, depth + 1)", "                self.value(argument, depth)",
      SAFETY_TESTS, "call arguments do not count towards depth"),
    M("S09", RULES, "max_file_bytes: int = 8 * 1024 * 1024", "max_file_bytes: int = 8 * 1024 * 1024 + 1",
      SAFETY_TESTS, "file size limit one byte higher"),
    M("S10", RULES, 'size = len(source.encode("utf-8", "surrogatepass"))', "size = len(source)", SAFETY_TESTS,
      "file size in characters instead of bytes"),
    M("S11", RULES, "max_files: int = 10_000", "max_files: int = 10_001", SAFETY_TESTS, "file-count cap one higher"),
    M("S12", "codegen/safety.py", "if len(files) > limits.max_files:", "if len(files) > limits.max_files + 1:",
      SAFETY_TESTS, "file-count cap off by one"),
    M("S13", "codegen/safety.py", 'f"{_RULES_DIGEST}\\x00{self.limits!r}\\x00"', 'f"{_RULES_DIGEST}\\x00"',
      SAFETY_TESTS, "cache key ignores the limits"),
    M("S14", "codegen/safety.py", 'f"{_RULES_DIGEST}\\x00{self.limits!r}\\x00"', 'f"{self.limits!r}\\x00"',
      SAFETY_TESTS, "cache key ignores the rules"),
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
    M("B09", BUILTIN, "if back < today or", "if back <= today or", CONSTRAINT_TESTS, "a trip returning today is past"),
    M("B10", BUILTIN, "        if expiry < back:", "        if expiry <= back:", CONSTRAINT_TESTS,
      "expiry on the return day is critical"),
    M("B11", BUILTIN, "ended < now.date()", "ended <= now.date()", CONSTRAINT_TESTS,
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
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", "not slow", *tests],
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
        if text.count(mutation.old) != 1:
            return mutation, True, f"NOT APPLIED: text found {text.count(mutation.old)} times"
        path.write_text(text.replace(mutation.old, mutation.new), "utf-8")
        passed, last = run_tests(root, tests)
    return mutation, passed, last


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
