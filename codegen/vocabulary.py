"""The canonical vocabulary now lives in the fact log (`factlog.vocabulary`); re-exported here."""

from factlog.vocabulary import *  # noqa: F403
from factlog.vocabulary import __all__  # noqa: F401
