"""Acting on a conversation through its agent server (issue 30): fork, navigate, a side
question, the confirmation policy and the security analyzer.

Mixed into :class:`~tui.client.agent.AgentServerClient`, which provides ``_http`` (the
request core: error classes, redaction, retries), ``_path`` and ``_post``. The shapes are the
real agent server 1.58.2's (checked against it; see ``tui/server/routes_acting.py``): fork
answers 201 with the new ``ConversationInfo``, navigate 200 with the conversation's, an
unknown event 404 ``Unknown from_event_id: X`` / ``Unknown event_id: X``; ``ask_agent``
answers ``{"response": …}`` and logs nothing.

None of these is repeated after a timeout (a fork asked twice is two forks; a question asked
twice is paid twice): each says what may have happened instead (``unknown``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .agent_routes import runtime_fields
from .errors import BadResponse, InvalidParameter

if TYPE_CHECKING:
    from .http import HttpCore

#: the confirmation policies a user chooses between, by ``kind`` (the SDK's names)
CONFIRMATION_POLICIES = {
    "NeverConfirm": {"kind": "NeverConfirm"},
    "AlwaysConfirm": {"kind": "AlwaysConfirm"},
    "ConfirmRisky": {"kind": "ConfirmRisky", "threshold": "HIGH", "confirm_unknown": True},
}
#: the security analyzers offered (None: no analyzer); the others need settings of their own
SECURITY_ANALYZERS = (None, "LLMSecurityAnalyzer", "PatternSecurityAnalyzer")
MAX_FORK_TITLE = 200


class AgentActing:
    """Part of :class:`~tui.client.agent.AgentServerClient` (see the module doc)."""

    _http: HttpCore
    _path: str
    base_url: str

    if TYPE_CHECKING:

        async def _post(self, suffix: str, body: Any = None, **options: Any) -> bool: ...

    async def _post_record(self, suffix: str, body: Any, *, unknown: str) -> dict[str, Any]:
        """POST ``body``; the JSON object answered (a ``ConversationInfo``)."""
        path = f"{self._path}{suffix}"
        data = await self._http.request("POST", path, json=body, idempotent=False, unknown=unknown)
        if not isinstance(data, dict) or not isinstance(data.get("id"), str):
            url = f"{self.base_url}{path}"
            raise BadResponse(f"POST {url}: expected a conversation", method="POST", url=url)
        return data

    async def fork(self, from_event_id: str | None, title: str | None = None) -> dict[str, Any]:
        """A new conversation holding the branch up to ``from_event_id`` (all of it: None),
        its head there; -> the new conversation's ``ConversationInfo`` (its key masked)."""
        body: dict[str, Any] = {"reset_metrics": True}
        if from_event_id is not None:
            body["from_event_id"] = _text(from_event_id, "from_event_id")
        if title:
            body["title"] = _text(title, "title")[:MAX_FORK_TITLE]
        return await self._post_record(
            "/fork",
            body,
            unknown="The fork may have been made: look for it in the conversations list "
            "before forking again.",
        )

    async def navigate(self, event_id: str) -> str | None:
        """Make ``event_id`` the conversation's head (its branch the current one); -> the
        head the server answered (``leaf_event_id``)."""
        info = await self._post_record(
            "/navigate",
            {"event_id": _text(event_id, "event_id")},
            unknown="The branch may have been switched: check the conversation's header.",
        )
        leaf = info.get("leaf_event_id")
        return leaf if isinstance(leaf, str) else None

    async def ask_agent(self, question: str) -> str:
        """The agent's answer to a side question; nothing is added to the conversation."""
        path = f"{self._path}/ask_agent"
        data = await self._http.request(
            "POST",
            path,
            json={"question": _text(question, "question")},
            idempotent=False,
            unknown="The question may have reached the agent: ask again to see its answer.",
            timeout=300.0,  # the model answers: as long as a model call may take
        )
        answer = data.get("response") if isinstance(data, dict) else None
        if not isinstance(answer, str):
            url = f"{self.base_url}{path}"
            raise BadResponse(f'POST {url}: expected {{"response": …}}', method="POST", url=url)
        return answer

    async def set_confirmation_policy(self, kind: str) -> bool:
        """``NeverConfirm``, ``AlwaysConfirm`` or ``ConfirmRisky`` (high risk waits)."""
        policy = CONFIRMATION_POLICIES.get(kind)
        if policy is None:
            raise InvalidParameter(f"unknown confirmation policy {kind!r}")
        return await self._post("/confirmation_policy", {"policy": policy}, idempotent=True)

    async def set_security_analyzer(self, kind: str | None) -> bool:
        """One of :data:`SECURITY_ANALYZERS` (None: no analyzer)."""
        if kind not in SECURITY_ANALYZERS:
            raise InvalidParameter(f"unknown security analyzer {kind!r}")
        body = {"security_analyzer": {"kind": kind} if kind else None}
        return await self._post("/security_analyzer", body, idempotent=True)

    async def reprovision(self) -> dict[str, Any]:
        """Ask the agent server to provision the conversation's runtime again; -> the
        runtime's fields (``runtime_status``, ``can_resume``, ``runtime_error``)."""
        path = f"{self._path}/runtime/reprovision"
        data = await self._http.request(
            "POST",
            path,
            idempotent=False,
            unknown="The runtime may be starting again: watch the conversation's header.",
            timeout=120.0,  # provisioning a runtime takes a while
        )
        fields = runtime_fields(data)
        if not fields.get("runtime_status"):
            url = f"{self.base_url}{path}"
            raise BadResponse(f"POST {url}: expected the runtime's status", method="POST", url=url)
        return fields


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidParameter(f"{name} must be a non-empty string")
    return value


__all__ = ["CONFIRMATION_POLICIES", "MAX_FORK_TITLE", "SECURITY_ANALYZERS", "AgentActing"]
