"""Event search: the public shared search and the authenticated app-server search.

Both page in ``(timestamp, seq)`` order (the real service sorts by the timestamp string;
``seq``, the log position, breaks ties) with keyset page ids, and answer with the stored
event JSON spliced into the page body: no per-item parsing on the way out. A page holds
at most ``limit`` events and ``PAGE_BYTES`` of them (its first event whatever it weighs):
a hundred outputs of megabytes come a few to a page, the page id saying where the next
starts (a client follows it whatever the page's length).

Differences kept from the real services (facts §1a, §1b):
- shared search drops non-viewable kinds (ConversationStateUpdateEvent); ``/count`` there
  does not, so it counts what search would never return;
- unknown conversations give an empty page, not 404 (the real shared search would answer
  a non-UUID ``conversation_id`` with a 500; here it is just unknown).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from tui.models import EventSortOrder

from .deps import get_store
from .page_ids import encode_page_id
from .params import EventKind, Limit, normalize_hex_id
from .responses import json_array, json_text, keyset_after, page_body, too_many
from .store import Store
from .store.base import PAGE_BYTES
from .times import event_filter_time

MAX_BATCH = 100
_TOKEN = "ev"


class EventFilters:
    """``kind__eq``, ``timestamp__gte`` (inclusive), ``timestamp__lt`` (exclusive).

    Timestamps are declared as date-times (a bad value is a 422) and compared as strings
    with the stored naive timestamps, as the real service does; see
    :func:`tui.server.records.event_filter_time` for tz-aware values.
    """

    def __init__(
        self,
        kind__eq: EventKind | None = None,
        timestamp__gte: datetime | None = None,
        timestamp__lt: datetime | None = None,
    ) -> None:
        self.kind = kind__eq.value if kind__eq is not None else None
        self.gte = event_filter_time(timestamp__gte)
        self.lt = event_filter_time(timestamp__lt)


def stored_upto(request: Request, conversation_id: str) -> int | None:
    """How far the app server's stored copy of a live run reaches (``live/webhook.py``);
    None (all of it) where no live runs are served (a bare shared-link host)."""
    live = getattr(request.app.state, "live", None)
    if live is None:
        return None
    return live.webhook.upto(normalize_hex_id(conversation_id))


StoredUpto = Annotated[int | None, Depends(stored_upto)]


def _search(
    store: Store,
    conversation_id: str,
    filters: EventFilters,
    sort_order: EventSortOrder,
    page_id: str | None,
    limit: int,
    *,
    viewable_only: bool,
    upto_seq: int | None,
) -> Response:
    after = keyset_after(page_id, _TOKEN, (str, int))
    rows, following = store.search_events(
        normalize_hex_id(conversation_id),
        kind=filters.kind,
        timestamp_gte=filters.gte,
        timestamp_lt=filters.lt,
        descending=sort_order == EventSortOrder.TIMESTAMP_DESC,
        after=after,
        limit=limit,
        viewable_only=viewable_only,
        upto_seq=upto_seq,
        max_bytes=PAGE_BYTES,
    )
    more = following is not None and bool(rows)
    next_page_id = encode_page_id(_TOKEN, rows[-1].timestamp, rows[-1].seq) if more else None
    return json_text(page_body([row.json for row in rows], next_page_id))


def _batch(
    store: Store,
    conversation_id: str,
    ids: list[str],
    *,
    viewable_only: bool,
    upto_seq: int | None,
) -> Response:
    too_many(len(ids), MAX_BATCH)
    cid = normalize_hex_id(conversation_id)
    return json_array(
        store.get_events(cid, [event_id], viewable_only=viewable_only, upto_seq=upto_seq)[0]
        for event_id in ids
    )


def _shared_visible(request: Request, store: Store, conversation_id: str) -> bool:
    """With ``shared_public_only``, only conversations marked public are shared."""
    if not request.app.state.options.get("shared_public_only"):
        return True
    info = store.get_conversation(normalize_hex_id(conversation_id))
    return bool(info and info.get("public"))


# -- public: /api/shared-events ---------------------------------------------------------------

shared_router = APIRouter(prefix="/api/shared-events", tags=["Sharing"])


@shared_router.get("/search", summary="Search shared conversation events")
def search_shared_events(
    request: Request,
    conversation_id: str,
    filters: Annotated[EventFilters, Depends()],
    upto: StoredUpto,
    sort_order: EventSortOrder = EventSortOrder.TIMESTAMP,
    page_id: str | None = None,
    limit: Limit = 100,
    store: Store = Depends(get_store),
) -> Response:
    if not _shared_visible(request, store, conversation_id):
        return json_text(page_body([], None))
    return _search(
        store,
        conversation_id,
        filters,
        sort_order,
        page_id,
        limit,
        viewable_only=True,
        upto_seq=upto,
    )


@shared_router.get("/count", summary="Count shared conversation events")
def count_shared_events(
    request: Request,
    conversation_id: str,
    filters: Annotated[EventFilters, Depends()],
    upto: StoredUpto,
    store: Store = Depends(get_store),
) -> int:
    if not _shared_visible(request, store, conversation_id):
        return 0
    return store.count_events(
        normalize_hex_id(conversation_id),
        kind=filters.kind,
        timestamp_gte=filters.gte,
        timestamp_lt=filters.lt,
        upto_seq=upto,
    )


@shared_router.get("", summary="Batch get shared events")
def batch_get_shared_events(
    request: Request,
    conversation_id: str,
    id: Annotated[list[str], Query()],
    upto: StoredUpto,
    store: Store = Depends(get_store),
) -> Response:
    if not _shared_visible(request, store, conversation_id):
        return json_text("[" + ",".join(["null"] * len(id)) + "]")
    return _batch(store, conversation_id, id, viewable_only=True, upto_seq=upto)


@shared_router.get("/{conversation_id}/{event_id}", summary="Get one shared event")
def get_shared_event(
    request: Request,
    conversation_id: str,
    event_id: str,
    upto: StoredUpto,
    store: Store = Depends(get_store),
) -> Response:
    if not _shared_visible(request, store, conversation_id):
        return json_text("null")
    (found,) = store.get_events(
        normalize_hex_id(conversation_id), [event_id], viewable_only=True, upto_seq=upto
    )
    return json_text(found or "null")


# -- authenticated: /api/v1/conversation/{id}/events ------------------------------------------

events_router = APIRouter(prefix="/api/v1/conversation/{conversation_id}/events", tags=["Events"])


@events_router.get("/search", summary="Search conversation events")
def search_events(
    conversation_id: str,
    filters: Annotated[EventFilters, Depends()],
    upto: StoredUpto,
    sort_order: EventSortOrder = EventSortOrder.TIMESTAMP,
    page_id: str | None = None,
    limit: Limit = 100,
    store: Store = Depends(get_store),
) -> Response:
    return _search(
        store,
        conversation_id,
        filters,
        sort_order,
        page_id,
        limit,
        viewable_only=False,
        upto_seq=upto,
    )


@events_router.get("/count", summary="Count conversation events")
def count_events(
    conversation_id: str,
    filters: Annotated[EventFilters, Depends()],
    upto: StoredUpto,
    store: Store = Depends(get_store),
) -> int:
    return store.count_events(
        normalize_hex_id(conversation_id),
        kind=filters.kind,
        timestamp_gte=filters.gte,
        timestamp_lt=filters.lt,
        upto_seq=upto,
    )


@events_router.get("", summary="Batch get conversation events")
def batch_get_events(
    conversation_id: str,
    id: Annotated[list[str], Query()],
    upto: StoredUpto,
    store: Store = Depends(get_store),
) -> Response:
    return _batch(store, conversation_id, id, viewable_only=False, upto_seq=upto)
