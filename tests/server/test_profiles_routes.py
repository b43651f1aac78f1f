"""The reference server's LLM profiles answer as the real agent server 1.58.2 does (its
OpenAPI in ../shared; the words checked against the running server): the list's fields, the
save that overwrites, the refusal at the limit, rename's 404 and 409, activation, a
conversation switched (an app server's 409 while the sandbox is paused). A key is never in
an answer or a log line."""

from __future__ import annotations

import json
import logging

import httpx
import pytest

from tests.helpers.samples import SAMPLES
from tui.models.llm_profiles import LLMProfile, LLMProfileList, ProfileCheck, limit_from_words
from tui.server import Store, load_demo

KEY = "routes-key-19ab"
SECRET = "sk-route-SENTINEL-5521"
OPENAPI = SAMPLES / "openapi" / "agent-server-1.58.2.openapi.json"


@pytest.fixture
def served(make_server):
    def start(kind: str = "agent"):
        store = Store()
        names = load_demo(store)
        server = make_server(store, session_key=KEY, kind=kind)
        http = httpx.Client(base_url=server.base_url, headers={"X-Session-API-Key": KEY})
        return server, names, http

    return start


def test_the_models_have_the_real_servers_fields():
    schemas = json.loads(OPENAPI.read_text())["components"]["schemas"]
    assert set(schemas["ProfileInfo"]["properties"]) == set(LLMProfile.model_fields)
    real_list = set(schemas["ProfileListResponse"]["properties"])
    assert real_list == set(LLMProfileList.model_fields) - {"max_profiles"}
    assert set(schemas["ValidateProfileResponse"]["properties"]) == set(ProfileCheck.model_fields)
    assert limit_from_words("Profile limit reached (50). Delete a profile before saving") == 50


def test_save_list_rename_activate_delete(served, caplog):
    caplog.set_level(logging.DEBUG)
    server, _, http = served()
    llm = {"model": "openai/gpt-5.5", "base_url": "http://127.0.0.1:9/v1", "api_key": SECRET}
    r = http.post("/api/profiles/mine", json={"llm": llm})
    assert r.status_code == 201 and r.json() == {"name": "mine", "message": "Profile 'mine' saved"}
    listing = LLMProfileList.model_validate(http.get("/api/profiles").json())
    assert listing.active_profile == "default" and listing.max_profiles == 50
    mine = next(p for p in listing.profiles if p.name == "mine")
    assert mine.api_key_set and mine.base_url == "http://127.0.0.1:9/v1"
    r = http.post("/api/profiles/nope/rename", json={"new_name": "x"})
    assert r.status_code == 404 and r.json()["detail"] == "Profile 'nope' not found"
    r = http.post("/api/profiles/mine/rename", json={"new_name": "gpt"})
    assert r.status_code == 409 and r.json()["detail"] == "Profile 'gpt' already exists"
    r = http.post("/api/profiles/mine/rename", json={"new_name": "bad name"})
    assert r.status_code == 422 and SECRET not in r.text
    assert http.post("/api/profiles/mine/rename", json={"new_name": "ours"}).status_code == 200
    r = http.post("/api/profiles/ours/activate")
    assert r.json()["llm_applied"] is True and server.store.active_profile == "ours"
    assert http.delete("/api/profiles/ours").status_code == 200
    assert server.store.active_profile is None
    assert http.delete("/api/profiles/ours").json()["message"] == "Profile 'ours' deleted"
    # a bad body echoes no key
    r = http.post("/api/profiles/x", json={"llm": {"model": 5, "api_key": SECRET}})
    assert r.status_code == 422 and SECRET not in r.text
    assert all(SECRET not in record.getMessage() for record in caplog.records)


def test_the_limit_is_refused_in_the_real_servers_words(served):
    server, _, http = served()
    server.store.max_profiles = 3
    r = http.post("/api/profiles/fourth", json={"llm": {"model": "openai/x"}})
    assert r.status_code == 409
    assert r.json()["detail"] == (
        "Profile limit reached (3). Delete a profile before saving a new one."
    )
    assert http.post("/api/profiles/gpt", json={"llm": {"model": "openai/y"}}).status_code == 201


def test_switch_profile_on_both_kinds(served):
    server, names, http = served()
    cid = names["hello"]
    path = f"/api/conversations/{cid}/switch_profile"
    assert http.post(path, json={"profile_name": "gpt"}).json() == {"success": True}
    assert server.store.conversation_profiles[cid] == "gpt"
    r = http.post(path, json={"profile_name": "nope"})
    assert r.status_code == 404 and r.json()["detail"] == "Profile 'nope' not found"

    server, names, http = served("app")
    store = server.store
    for cid in names.values():
        info = store.get_conversation(cid)
        box = store.get_sandbox(info.get("sandbox_id") or "") if info else None
        r = http.post(
            f"/api/v1/app-conversations/{cid}/switch_profile", json={"profile_name": "gpt"}
        )
        if box is not None and box["status"] == "PAUSED":
            assert r.status_code == 409 and "paused" in r.json()["detail"]
        else:
            assert r.status_code == 200, r.text
