"""Time formats of the reference server: record times, event times and their sort keys.

The app server writes record times as UTC with ``Z``; the SDK writes event times as naive
local ISO strings and the services compare them as strings. The few conversions between the
two live here, shared by the store, the lifecycle and the routes.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

_KEY_FORMAT = "%Y-%m-%dT%H:%M:%S.%f"
_ZONE_STEP = timedelta(minutes=15)  # every time zone's offset is a whole number of these


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


def event_moment(value: object) -> datetime | None:
    """An event's ``timestamp`` as written (naive: the writer's wall clock), or None when it
    is not an ISO time."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


def zone_between(event: datetime, stated: str, slack: timedelta | None = None) -> timedelta | None:
    """How far ahead of UTC the clock was that wrote ``event`` (naive, its writer's wall
    clock), given ``stated``: a record's UTC time for about the same moment.

    The SDK writes event times in its own zone, which need not be this machine's (an agent
    server in a container runs in UTC); ``meta.json`` says when the conversation was created
    (the first events come moments later) and last saved (with the newest events, most of
    the time). The zone is the whole quarter-hours between the two; with ``slack``, None
    unless the two are that close to a whole number of them."""
    try:
        gap = event - datetime.fromisoformat(sort_key(stated))
    except (OverflowError, ValueError):
        return None
    zone = round(gap / _ZONE_STEP) * _ZONE_STEP
    if slack is not None and abs(gap - zone) > slack:
        return None
    return zone


def local_zone(event: datetime) -> timedelta:
    """This machine's zone at ``event``: what a folder's event times are read in when nothing
    says which zone wrote them (the CLI keeps no ``meta.json``)."""
    try:
        return event.astimezone().utcoffset() or timedelta(0)
    except (OverflowError, OSError, ValueError):  # a year the platform's clock cannot place
        return timedelta(0)


def record_time(event: datetime, offset: timedelta) -> str | None:
    """An event time (the writer's wall clock, ``offset`` ahead of UTC) as a record time."""
    try:
        text = utc_text(event - offset)
        sort_key(text)  # a year strftime writes short (before 1000) would not sort
    except (OverflowError, ValueError):
        return None
    return text
