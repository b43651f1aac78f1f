"""What went wrong, in words: a failure titled by what happened, with the next step.

``ohtui export``, ``ohtui info`` and the app's start all meet the same few failures — the
server refused the key, the thing asked for is not there, nothing answered, the server
broke — and each deserves its own title and advice rather than one "cannot reach the
service". Standard library only, and the client's exceptions are recognised by class
name and status, so any layer can use this without importing the client.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Where keys are given, for the advice after a refusal.
KEY_ADVICE = (
    "set OHTUI_SESSION_KEY / --session-key (a self-hosted server) or OHTUI_API_KEY / "
    "--api-key (the cloud), or name it in a profile (session_key_env, api_key_env)"
)


#: Server faults known by their words (lower case), with what the user can do about them:
#: a 500 is the server's own failure, but some have a cause its operator can fix.
FERNET_ADVICE = (
    "the server's cryptography (51 or newer) is too new for its OpenHands SDK: pin "
    "cryptography<51 in the server's environment, or set OH_SECRET_KEY to a key whose "
    "SHA-256 in base64 has no + or /"
)
KNOWN_FAULTS: tuple[tuple[str, str], ...] = (
    ("fernet key must be 32 url-safe base64-encoded bytes", FERNET_ADVICE),
)


def known_fault(text: str) -> str:
    """What to do about a server fault recognised by its words, or ''."""
    lowered = text.lower()
    for words, advice in KNOWN_FAULTS:
        if words in lowered:
            return advice
    return ""


@dataclass(frozen=True)
class Failure:
    """``title``: what happened; ``detail``: the error's own line (already redacted by the
    client); ``next_step``: what to do about it (empty when the detail says it all)."""

    title: str
    detail: str
    next_step: str

    def lines(self, prog: str) -> list[str]:
        """The failure as a command prints it on standard error."""
        lines = [f"{prog}: {self.title}"]
        if self.detail and self.detail != self.title:
            lines.append(f"  {self.detail}")
        if self.next_step:
            lines.append(f"  next: {self.next_step}")
        return lines


def _names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def _detail(exc: BaseException) -> str:
    text = str(exc).strip()
    first = text.splitlines()[0] if text else ""
    return first[:600] if first else type(exc).__name__


def explain(exc: BaseException, *, keys_sent: bool = True) -> Failure:
    """Title and next step for ``exc``. ``keys_sent`` says whether any key went with the
    request: a 401 without one means "give a key", with one "the key was refused"."""
    names = _names(exc)
    status = getattr(exc, "status", None)
    detail = _detail(exc)
    lowered = detail.lower()
    if "Unsupported" in names:
        return Failure("not available on this server", detail, "`ohtui info` says what it is")
    if "AuthError" in names or status in (401, 403):
        if not keys_sent:
            return Failure("the server wants a key", detail, KEY_ADVICE)
        return Failure("the server refused the key", detail, KEY_ADVICE)
    if "ExportError" in names and lowered.startswith("no conversation"):
        return Failure(
            "conversation not found",
            detail,
            "check the id (`ohtui` lists the conversations; `ohtui info` shows the server used)",
        )
    if "NotFound" in names or status == 404:
        if "not an openhands server" in lowered:
            return Failure(
                "not an OpenHands server at that address",
                detail,
                "check the URL: the server's base address, without /api/…",
            )
        return Failure(
            "not found",
            detail,
            "check the id and the URL (`ohtui info` shows the server used and what it is)",
        )
    if "OutcomeUnknown" in names:
        return Failure("the connection broke during the request", detail, "")
    if "RequestTimeout" in names or "TimeoutError" in names:
        return Failure(
            "the server did not answer in time", detail, "it may be busy or starting: try again"
        )
    if names & {"ConnectionLost", "ConnectError", "ConnectionError"} or "refused" in lowered:
        return Failure(
            "cannot reach the server",
            detail,
            "is it running, and is the URL right? (`ohtui info` checks it)",
        )
    if "RateLimited" in names or status == 429:
        return Failure("the server is limiting requests", detail, "wait a little and try again")
    if "ServerError" in names or (isinstance(status, int) and status >= 500):
        return Failure(
            f"the server failed{f' ({status})' if status else ''}",
            detail,
            known_fault(detail) or "try again; if it keeps failing, the server's log says why",
        )
    if "ResponseTooLarge" in names:
        # the detail says how large and the bound; reading on would cost the memory it spares
        return Failure(
            "the server's answer is too large to read",
            detail,
            "is it an OpenHands server? check the URL, or the server's log",
        )
    if "NotTheAPI" in names:
        # the detail asks the questions (is the URL the API's, are you signed in?)
        return Failure("the server answered with a web page, not the API", detail, "")
    if "BadResponse" in names:
        return Failure(
            "the server's answer was not understood",
            detail,
            "is it an OpenHands server? check the URL, or set --server-kind",
        )
    if "OpenHandsError" in names or "ExportError" in names:
        return Failure(detail, detail, "")
    return Failure("failed", f"{type(exc).__name__}: {detail}", "")
