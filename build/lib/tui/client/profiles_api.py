"""LLM profiles (issue 30 item 4): the server's named model settings, listed, checked,
saved, renamed, deleted, made active, and a conversation switched to one.

The routes are the agent server's (``/api/profiles…``, checked against 1.58.2; the reference
server has them too). A key typed in goes only into the body of the request that needs it
(save, validate) and is added to the client's secrets at once, so an error that echoes it,
the log and a traceback show it masked. No call here reads a profile back
(``GET /api/profiles/{name}`` would answer its settings; with ``X-Expose-Secrets`` its key):
the list says all the screen shows, and the pre-flight is sent the settings it checks.
"""

from __future__ import annotations

from typing import Any

from tui.models.llm_profiles import LLMProfileList, ProfileCheck, valid_profile_name

from . import params as P
from .agent_routes import conversations_path
from .base import ClientBase, segment
from .errors import InvalidParameter

PROFILES = "/api/profiles"
#: the pre-flight pings the model once: as long as one model call may take
CHECK_TIMEOUT = 90.0


def _name(name: str, what: str = "profile name") -> str:
    if not isinstance(name, str) or not valid_profile_name(name):
        raise InvalidParameter(
            f"a {what} is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter "
            f"or digit; got {name!r}"
        )
    return name


def llm_body(model: str, base_url: str | None, api_key: str | None) -> dict[str, Any]:
    """The ``llm`` settings the server takes: an empty base URL or key is left out."""
    if not isinstance(model, str) or not model.strip():
        raise InvalidParameter("a profile needs a model, e.g. 'anthropic/claude-sonnet-4-5'")
    llm: dict[str, Any] = {"model": model.strip()}
    if base_url and base_url.strip():
        llm["base_url"] = base_url.strip()
    if api_key:
        llm["api_key"] = api_key
    return llm


class ProfileCalls(ClientBase):
    """Part of :class:`~tui.client.api.OpenHandsClient` (see the module doc)."""

    async def list_llm_profiles(self) -> LLMProfileList:
        data = await self._get(PROFILES)
        return self._model(LLMProfileList, data, "GET", PROFILES)

    async def check_llm_profile(
        self, name: str, model: str, base_url: str | None = None, api_key: str | None = None
    ) -> ProfileCheck:
        """The server's pre-flight of these settings under ``name``: one model call."""
        self._http.add_secrets([api_key] if api_key else [])
        path = f"{PROFILES}/{segment(_name(name))}/validate"
        body = {"llm": llm_body(model, base_url, api_key)}
        data = await self._http.request(
            "POST", path, json=body, idempotent=True, timeout=CHECK_TIMEOUT
        )
        if not isinstance(data, dict):
            raise self._bad("POST", path, "expected a JSON object")
        # only the real server's fields (the reference server says more)
        answer = {key: data.get(key) for key in ("valid", "error")}
        return self._model(ProfileCheck, answer, "POST", path)

    async def save_llm_profile(
        self, name: str, model: str, base_url: str | None = None, api_key: str | None = None
    ) -> str:
        """Save (or overwrite) profile ``name``; -> the server's words."""
        self._http.add_secrets([api_key] if api_key else [])
        path = f"{PROFILES}/{segment(_name(name))}"
        body = {"llm": llm_body(model, base_url, api_key), "include_secrets": True}
        data = await self._http.request("POST", path, json=body, idempotent=True)
        return _message(data, f"Profile '{name}' saved")

    async def rename_llm_profile(self, name: str, new_name: str) -> str:
        path = f"{PROFILES}/{segment(_name(name))}/rename"
        data = await self._http.request(
            "POST",
            path,
            json={"new_name": _name(new_name, "new name")},
            idempotent=False,
            unknown="The profile may have been renamed: refresh the list to see.",
        )
        return _message(data, f"Profile '{name}' renamed to '{new_name}'")

    async def delete_llm_profile(self, name: str) -> str:
        path = f"{PROFILES}/{segment(_name(name))}"
        data = await self._http.request(
            "DELETE",
            path,
            idempotent=False,
            unknown="The profile may have been deleted: refresh the list to see.",
        )
        return _message(data, f"Profile '{name}' deleted")

    async def activate_llm_profile(self, name: str) -> str:
        path = f"{PROFILES}/{segment(_name(name))}/activate"
        data = await self._http.request("POST", path, idempotent=True)
        return _message(data, f"Profile '{name}' activated")

    async def switch_conversation_profile(self, conversation_id: str, name: str) -> bool:
        """The conversation's agent uses profile ``name`` from its next step (an app
        server refuses while the sandbox is paused: 409)."""
        cid = P.check_id(conversation_id, "conversation_id")
        body = {"profile_name": _name(name)}

        async def call(path: str) -> bool:
            data = await self._http.request("POST", path, json=body, idempotent=True)
            return not (isinstance(data, dict) and data.get("success") is False)

        async def app() -> bool:
            return await call(f"/api/v1/app-conversations/{segment(cid)}/switch_profile")

        async def agent() -> bool:
            return await call(f"{conversations_path(cid)}/switch_profile")

        return await self._dispatch(
            "it cannot switch a conversation's profile", app=app, agent=agent
        )


def _message(data: Any, default: str) -> str:
    message = data.get("message") if isinstance(data, dict) else None
    return message if isinstance(message, str) and message.strip() else default


__all__ = ["CHECK_TIMEOUT", "PROFILES", "ProfileCalls", "llm_body"]
