"""Time formats of the reference server: record times, event times and their sort keys.

The app server writes record times as UTC with ``Z``; the SDK writes event times as naive
local ISO strings and the services compare them as strings. The few conversions between the
two live here, shared by the store, the lifecycle and the routes.
"""

from __future__ import annotations

from datetime import UTC, datetime

_KEY_FORMAT = "%Y-%m-%dT%H:%M:%S.%f"


def utc_text(moment: datetime) -> str:
    """``2026-08-20T09:15:03.123456Z``: how the app server writes record times."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.strftime(_KEY_FORMAT) + "Z"


def utc_from_clock(seconds: float) -> str:
    return utc_text(datetime.fromtimestamp(seconds, UTC))


def event_time_from_clock(seconds: float) -> str:
    """A naive, server-local ISO timestamp with microseconds, as the SDK writes event times."""
    return datetime.fromtimestamp(seconds).isoformat(timespec="microseconds")


def sort_key(value: str | datetime) -> str:
    """A fixed-width UTC string that sorts like the time it names.

    Record times arrive as ISO strings (``Z``, offsets or naive = UTC) or datetimes; naive
    query datetimes are taken as UTC too.
    """
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.strftime(_KEY_FORMAT)


def event_filter_time(value: datetime | None) -> str | None:
    """The string an event timestamp filter compares against.

    The real shared search compares ``value.isoformat()`` with the stored naive timestamp
    strings (facts §1a). A tz-aware value would carry an offset suffix that breaks that
    string comparison, so its tzinfo is dropped first (no conversion: the wall-clock digits
    are kept as given).
    """
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.replace(tzinfo=None)
    return value.isoformat()
