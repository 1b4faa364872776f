"""Constraints over a user's typed module, and the alerts they raise (see DESIGN.md)."""

from constraints.builtin import BUILTIN as BUILTIN
from constraints.model import Alert as Alert
from constraints.model import Constraint as Constraint
from constraints.model import ConstraintFailure as ConstraintFailure
from constraints.model import ConstraintSkip as ConstraintSkip
from constraints.model import Finding as Finding
from constraints.model import MissingInput as MissingInput
from constraints.model import constraint as constraint
from constraints.notices import FieldNotice as FieldNotice
from constraints.runner import AlertDiff as AlertDiff
from constraints.runner import RunResult as RunResult
from constraints.runner import diff_alerts as diff_alerts
from constraints.runner import evaluate_and_record as evaluate_and_record
from constraints.runner import run_constraints as run_constraints
from constraints.state import AlertState as AlertState
from constraints.user_loader import load_user_constraints as load_user_constraints
