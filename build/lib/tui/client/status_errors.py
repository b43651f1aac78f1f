"""An HTTP error answer as the client's exception: its class, its one-line message, the
server's detail (redacted), a 422's field errors, a ``Retry-After``; and a web page where
the API should answer (a redirect, an HTML page) as :class:`NotTheAPI`, saying what it is.

Apart from the request core because it is pure (a response in, an exception out), and
the same rules must hold whichever call failed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import httpx

from tui.models import HTTPValidationError

from .backoff import parse_retry_after
from .errors import (
    ApiValidationError,
    AuthError,
    BadRequest,
    Conflict,
    HTTPStatusError,
    NotFound,
    NotTheAPI,
    OpenHandsError,
    RateLimited,
    ServerError,
)

#: Characters of a server's detail kept in a message.
DETAIL_CHARS = 300
#: Characters of a redirect's target, or of a web page's title, kept in a message.
PAGE_CHARS = 200
_TITLE = re.compile(rb"<title[^>]*>(.*?)</title", re.IGNORECASE | re.DOTALL)


def error_class(status: int) -> type[HTTPStatusError]:
    """The exception class of an HTTP error status."""
    if status == 400:
        return BadRequest
    if status in (401, 403):
        return AuthError
    if status == 404:
        return NotFound
    if status == 409:
        return Conflict
    if status == 422:
        return ApiValidationError
    if status == 429:
        return RateLimited
    if status >= 500:
        return ServerError
    return HTTPStatusError


def status_error(
    response: httpx.Response,
    method: str,
    url: str,
    redact_text: Callable[[str], str],
    redact_data: Callable[[Any], Any],
) -> OpenHandsError:
    """The exception for an error ``response`` (``url`` already redacted)."""
    status = response.status_code
    body: Any
    try:
        body = redact_data(response.json()) if response.content else None
    except ValueError:
        body = redact_text(response.text[:DETAIL_CHARS])
    detail = body
    error_id = None
    if isinstance(body, dict):
        for key in ("detail", "error", "message"):
            if key in body:
                detail = body[key]
                break
        # the agent server's 500 says only "Internal Server Error" in its detail; its own
        # words are in "exception", and "error_id" names the failure in its log (facts §10)
        exception = body.get("exception")
        if isinstance(exception, str) and exception.strip() and _generic(detail):
            detail = exception
        if isinstance(body.get("error_id"), str):
            error_id = body["error_id"][:64]
    cls = error_class(status)
    kwargs: dict[str, Any] = {"status": status, "method": method, "url": url, "detail": detail}
    summary = summarise(detail)
    if cls is ApiValidationError:
        try:
            validation = HTTPValidationError.model_validate(body)
        except Exception:  # noqa: BLE001 - a 422 that is not FastAPI-shaped is still a 422
            validation = HTTPValidationError()
        else:
            summary = validation.summary()
        kwargs["validation"] = validation
    retry_after = parse_retry_after(response.headers.get("retry-after"))
    if cls is RateLimited:
        kwargs["retry_after"] = retry_after
    reason = response.reason_phrase or ""
    message = f"{method} {url} -> {status} {reason}".rstrip()
    if summary:
        message += f": {summary}"
    if error_id:
        message += f" (error id {error_id})"
    error = cls(message, **kwargs)
    error.error_id = error_id
    if status == 503 and retry_after is not None:
        error.retry_after = retry_after  # type: ignore[attr-defined] # "come back in N s"
    return error


def _generic(detail: Any) -> bool:
    """A detail that only repeats the status ("Internal Server Error") or says nothing."""
    return not isinstance(detail, str) or detail.strip().lower() in ("", "internal server error")


def summarise(detail: Any) -> str:
    """A server's detail on one line of at most :data:`DETAIL_CHARS` characters."""
    if detail is None or detail == "":
        return ""
    if isinstance(detail, str):
        text = detail
    else:
        try:
            text = json.dumps(detail, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError):
            text = repr(detail)
    text = " ".join(text.split())
    return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 1] + "…"


def is_web_page(response: httpx.Response) -> bool:
    """An HTML answer, by its type or (with none) by its first character."""
    kind = response.headers.get("content-type", "").lower()
    if "html" in kind:
        return True
    return not kind and response.content.lstrip()[:1] == b"<"


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= PAGE_CHARS else text[: PAGE_CHARS - 1] + "…"


def redirect_error(
    response: httpx.Response, method: str, url: str, redact_text: Callable[[str], str]
) -> NotTheAPI:
    """A 3xx answer (never followed): where it leads, and what that usually means."""
    status = response.status_code
    target = response.headers.get("location", "").strip()
    where = None
    if target:
        try:
            target = str(response.url.join(target))
        except (httpx.InvalidURL, ValueError):
            pass
        where = _one_line(redact_text(target))
    said = f"a redirect to {where}" if where else "a redirect (to nowhere it names)"
    return NotTheAPI(
        f"{method} {url} -> {status}: the server answered with {said}, a login page or "
        "another address: is the URL the API's, and are you signed in?",
        status=status,
        method=method,
        url=url,
        location=where,
    )


def web_page_error(
    response: httpx.Response, method: str, url: str, redact_text: Callable[[str], str]
) -> NotTheAPI:
    """A 2xx HTML page where JSON was expected, named by its title when it has one."""
    found = _TITLE.search(response.content[:65536])
    title = _one_line(redact_text(found.group(1).decode("utf-8", "replace"))) if found else ""
    named = f" (a page titled “{title}”)" if title else ""
    return NotTheAPI(
        f"{method} {url}: the server answered HTML, not JSON{named}: is this the API's "
        "address? (a login page answers this way too: are you signed in?)",
        status=response.status_code,
        method=method,
        url=url,
    )
