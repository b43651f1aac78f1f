"""How routes answer: prebuilt JSON bodies and the error shapes of the real service.

Errors keep FastAPI's own shapes (a malformed page id is a 422 like any bad parameter, a
batch over its maximum a 400), and a 422 never echoes a secret from the request body.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NoReturn

from fastapi import HTTPException, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse

from tui.models.redact import is_secret_key, redact

from .lifecycle import LifecycleError
from .page_ids import BadPageId, decode_page_id

MASK = "**********"


def raise_bad_page_id(exc: BadPageId, value: str, loc: str = "page_id") -> NoReturn:
    """A malformed page id is a 422 in FastAPI's own shape, never a 500."""
    raise RequestValidationError(
        [
            {
                "type": "value_error",
                "loc": ("query", loc),
                "msg": f"Value error, {exc}",
                "input": value if len(value) <= 200 else value[:200] + "…",
                "ctx": {"error": str(exc)},
            }
        ]
    )


def keyset_after(page_id: str | None, kind: str, types: tuple[type, ...]) -> tuple | None:
    """Where a listing resumes: the keyset parts of ``page_id`` (``None`` on the first page);
    a page id this server did not issue is a 422, as :func:`raise_bad_page_id` says."""
    if not page_id:
        return None
    try:
        return decode_page_id(page_id, kind, types)
    except BadPageId as exc:
        raise_bad_page_id(exc, page_id)


def raise_http(exc: LifecycleError) -> None:
    raise HTTPException(status_code=exc.status, detail=exc.detail)


def too_many(count: int, maximum: int) -> None:
    """Batch gets answer 400 past their maximum, like the real server."""
    if count > maximum:
        raise HTTPException(status_code=400, detail=f"Too many ids: {count}. Maximum is {maximum}")


def json_text(body: str, status_code: int = 200) -> Response:
    """A response whose body is already JSON text (stored events are spliced in as is)."""
    return Response(content=body, status_code=status_code, media_type="application/json")


#: What a streamed JSON array gathers before it sends a piece (a bigger item goes alone).
STREAM_PIECE = 256 * 1024


def json_array(texts: Iterable[str | None]) -> StreamingResponse:
    """A JSON array of stored texts (``null`` for None), each read as it is sent: a batch of
    a hundred outputs of megabytes is never held whole, and when the client stops reading
    (it reads at most its bound), the rest is never read."""

    def pieces() -> Iterator[bytes]:
        gathered, size = ["["], 0
        for index, text in enumerate(texts):
            item = "null" if text is None else text
            if index:
                gathered.append(",")
            if len(item) >= STREAM_PIECE:  # alone, not copied into a piece first
                yield "".join(gathered).encode()
                yield item.encode()
                gathered, size = [], 0
                continue
            gathered.append(item)
            size += len(item)
            if size >= STREAM_PIECE:
                yield "".join(gathered).encode()
                gathered, size = [], 0
        gathered.append("]")
        yield "".join(gathered).encode()

    return StreamingResponse(pieces(), media_type="application/json")


def page_body(items: list[str], next_page_id: str | None) -> str:
    nxt = "null" if next_page_id is None else f'"{next_page_id}"'
    return '{"items":[' + ",".join(items) + '],"next_page_id":' + nxt + "}"


async def validation_error_handler(request: Request, exc: RequestValidationError) -> JSONResponse:
    """FastAPI's default 422 body, minus secrets.

    Request bodies may carry API keys (profile validation), and FastAPI echoes the failing
    ``input``: secret-named keys are masked everywhere, and on the profile routes inputs are
    dropped entirely, since a malformed body there could be the key itself.
    """
    errors = []
    hide_input = request.url.path.startswith("/api/profiles")
    for error in exc.errors():
        error = dict(error)
        loc = [str(part).lower() for part in error.get("loc", ())]
        if "input" in error:
            if hide_input or any(is_secret_key(part) for part in loc):
                error["input"] = MASK
            else:
                error["input"] = redact(error["input"])  # the one secrets policy
        errors.append(error)
    return JSONResponse(status_code=422, content={"detail": jsonable_encoder(errors)})
