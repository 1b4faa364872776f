"""Every hand mutation (tests/mutation/hand_mutations.py) still names text that occurs exactly
once in its file: code moved under a mutation fails here, not months later in a mutation run."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "mutation"))

import hand_mutations  # noqa: E402


def test_every_hand_mutation_applies_to_the_code() -> None:
    hand_mutations.check_applicable(list(hand_mutations.MUTATIONS))  # SystemExit names the stale ones
