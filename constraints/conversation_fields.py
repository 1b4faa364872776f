"""What conversations tell about a record beyond its facts: whom it is about, and whether a
trip is going ahead.

A record typed from conversation carries `subject` ("user", or whom it is about, e.g.
"daughter"); a trip carries `booking_status` ("booked", "planned" or "cancelled"). Records
without them (structured input, older workspaces) are the user's, and their trips go ahead.
"""

from __future__ import annotations

from constraints.records import fold, person_of
from constraints.views import DocumentRecord, PassportRecord, TripRecord

NOT_GOING = frozenset({"planned", "cancelled", "canceled"})  # booking states of a trip not (or no longer) taken


def is_users(record: TripRecord | DocumentRecord | PassportRecord) -> bool:
    """The record is about the user: no `subject`, or one naming the user."""
    return not person_of(record.subject)


def is_going(trip: TripRecord) -> bool:
    """The trip is going ahead: booked, or with no booking state given."""
    return fold(trip.booking_status) not in NOT_GOING
