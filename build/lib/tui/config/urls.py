"""Service URLs checked before anything connects: standard library only, so ``--url``
can be checked while the command line is parsed (no pydantic on that path)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

SCHEMES = ("http", "https")


def url_problem(text: str) -> str | None:
    """Why ``text`` is not a usable service URL (``http(s)://host[:port][/path]``), or None.

    The sentence is meant for a person: it quotes what was given (a password or token in
    it masked) and, where the fix is plain, says it.
    """
    shown = printable_url(text)
    if not text or text != text.strip() or any(c.isspace() for c in text):
        return f"{shown!r} is not a URL (it is empty or holds spaces)"
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        return f"{shown!r} is not a valid URL ({exc})"
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        if "://" not in text:
            return f"{shown!r} has no scheme: write http://{shown} or https://{shown}"
        return f"{shown!r} is not an http or https URL"
    if not parts.hostname:
        return f"{shown!r} names no host (expected e.g. http://127.0.0.1:8000)"
    if port == 0:
        return f"{shown!r} has port 0"
    return None


def check_url(text: str) -> str:
    """``text`` if it is a usable service URL, else ``ValueError`` saying why."""
    problem = url_problem(text)
    if problem is not None:
        raise ValueError(problem)
    return text


def printable_url(url: str) -> str:
    """``url`` fit to print: a password in it and token query parameters hidden."""
    from tui.models.redact import mask_url

    try:
        parts = urlsplit(url)
        if parts.password:
            host = parts.hostname or ""
            if parts.port:
                host = f"{host}:{parts.port}"
            url = urlunsplit(parts._replace(netloc=f"{parts.username or ''}:****@{host}"))
    except ValueError:
        url = re.sub(r"//([^/@:]*):[^/@]*@", r"//\1:****@", url)
    return mask_url(url)
