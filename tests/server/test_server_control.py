"""Reference server: app conversations, start tasks, sandboxes and sandbox specs."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import pytest

from tui.models import AppConversation, AppConversationStartTask, SandboxInfo, SandboxSpecInfo
from tui.server import RunningServer, Store, load_demo
from tui.server.routes_conversations import AppConversationStartRequest
from tui.server.views import conversation_info

CONV = "/api/v1/app-conversations"
SANDBOXES = "/api/v1/sandboxes"

#: Keys of a served AppConversation, as in constructed/app_server/app_conversation_page.json.
CONVERSATION_KEYS = [
    "id",
    "created_by_user_id",
    "sandbox_id",
    "selected_repository",
    "selected_branch",
    "git_provider",
    "title",
    "trigger",
    "pr_number",
    "llm_model",
    "agent_kind",
    "metrics",
    "parent_conversation_id",
    "sub_conversation_ids",
    "public",
    "tags",
    "created_at",
    "updated_at",
    "sandbox_status",
    "execution_status",
    "conversation_url",
    "session_api_key",
    "acp_server",
    "launched_agent_profile",
]


class FakeClock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def client(demo_server: RunningServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=demo_server.base_url, timeout=10) as c:
        yield c


@pytest.fixture
def demo_copy(make_server):
    """A private demo server that tests may change (with a controllable clock)."""

    clients: list[httpx.Client] = []

    def start(**options) -> tuple[RunningServer, httpx.Client, dict[str, str]]:
        store = Store()
        names = load_demo(store)
        server = make_server(store, **options)
        clients.append(httpx.Client(base_url=server.base_url, timeout=10))
        return server, clients[-1], names

    yield start
    for c in clients:
        c.close()


def by_title(client: httpx.Client) -> dict[str, dict]:
    items = client.get(f"{CONV}/search", params={"include_sub_conversations": True}).json()["items"]
    return {item["title"]: item for item in items}


# -- app conversations: search, count, batch --------------------------------------------------


def test_search_shape_and_order(client):
    body = client.get(f"{CONV}/search").json()
    items = body["items"]
    assert body["next_page_id"] is None and len(items) == 7  # the sub-conversation is hidden
    assert [item["created_at"] for item in items] == sorted(
        (i["created_at"] for i in items), reverse=True
    )
    for item in items:
        assert list(item) == CONVERSATION_KEYS
        assert len(item["id"]) == 32 and int(item["id"], 16) >= 0
        assert item["created_at"].endswith("Z")
        AppConversation.model_validate(item)


def test_status_fields_follow_the_sandbox(client):
    seen = set()
    for item in by_title(client).values():
        seen.add(item["sandbox_status"])
        if item["sandbox_status"] == "RUNNING":
            assert item["execution_status"] is not None
            assert item["conversation_url"] == f"/api/conversations/{item['id']}"
            assert item["session_api_key"]
        else:
            assert item["execution_status"] is None
            assert item["conversation_url"] is None and item["session_api_key"] is None
    assert seen == {"RUNNING", "PAUSED", "ERROR", "STARTING"}


def test_metrics_and_sub_conversations(client):
    items = by_title(client)
    long = items["Port the CLI to asyncio (long session)"]
    sub = items["Sub-task: update docs/usage.md"]
    assert sub["parent_conversation_id"] == long["id"]
    assert long["sub_conversation_ids"] == [sub["id"]]
    usage = long["metrics"]["accumulated_token_usage"]
    assert (
        long["metrics"]["accumulated_cost"] > 0
        and usage["prompt_tokens"] > usage["completion_tokens"] > 0
    )


def test_paging_and_count(client):
    everything = client.get(f"{CONV}/search", params={"include_sub_conversations": True}).json()[
        "items"
    ]
    ids, page_id = [], None
    while True:
        params = {
            "limit": 3,
            "include_sub_conversations": True,
            **({"page_id": page_id} if page_id else {}),
        }
        body = client.get(f"{CONV}/search", params=params).json()
        ids += [item["id"] for item in body["items"]]
        page_id = body["next_page_id"]
        if not page_id:
            break
    assert ids == [item["id"] for item in everything]
    assert client.get(f"{CONV}/count").json() == 7
    assert client.get(f"{CONV}/count", params={"include_sub_conversations": True}).json() == 8


def test_filters(client):
    items = list(by_title(client).values())

    def titles(**params):
        return {i["title"] for i in client.get(f"{CONV}/search", params=params).json()["items"]}

    assert titles(title__contains="flaky") == {next(t for t in by_title(client) if "flaky" in t)}
    assert titles(title__contains="FLAKY") == titles(title__contains="flaky")
    assert titles(title__contains="ünïcödé") == titles(title__contains="flaky")
    assert titles(title__contains="[bold]") == titles(title__contains="flaky")
    sandbox = items[0]["sandbox_id"]
    assert titles(sandbox_id__eq=sandbox, include_sub_conversations=True) == {
        i["title"] for i in items if i["sandbox_id"] == sandbox
    }
    ordered = sorted(items, key=lambda i: i["created_at"])
    middle = ordered[3]["created_at"]
    assert titles(created_at__gte=middle, include_sub_conversations=True) == {
        i["title"] for i in ordered[3:]
    }
    assert titles(created_at__lt=middle, include_sub_conversations=True) == {
        i["title"] for i in ordered[:3]
    }
    updated = sorted(i["updated_at"] for i in items)[4]
    assert titles(updated_at__gte=updated, include_sub_conversations=True) == {
        i["title"] for i in items if i["updated_at"] >= updated
    }
    assert titles(updated_at__lt=updated, include_sub_conversations=True) == {
        i["title"] for i in items if i["updated_at"] < updated
    }
    assert client.get(f"{CONV}/count", params={"title__contains": "flaky"}).json() == 1


@pytest.mark.parametrize("hostile", ["' OR 1=1 --", "%", "_", "\\", "%%", "x' UNION SELECT 1 --"])
def test_hostile_title_filters_match_nothing_in_the_demo(client, hostile):
    response = client.get(f"{CONV}/search", params={"title__contains": hostile})
    assert response.status_code == 200 and response.json()["items"] == []
    assert client.get(f"{CONV}/count", params={"title__contains": hostile}).json() == 0


def test_like_wildcards_are_literal(make_server):
    store = Store()
    for n, title in enumerate(["100% done", "snake_case", "plain", "back\\slash"]):
        store.put_conversation(
            conversation_info(
                id=f"{n + 1:032x}",
                sandbox_id="sb",
                title=title,
                created_at=f"2026-08-20T09:0{n}:00.000000Z",
                updated_at=f"2026-08-20T09:0{n}:00.000000Z",
            )
        )
    server = make_server(store)
    with httpx.Client(base_url=server.base_url) as c:

        def titles(text):
            return [
                i["title"]
                for i in c.get(f"{CONV}/search", params={"title__contains": text}).json()["items"]
            ]

        assert titles("%") == ["100% done"]
        assert titles("_") == ["snake_case"]
        assert titles("\\") == ["back\\slash"]
        assert titles("e_c") == ["snake_case"] and titles("eXc") == []
        assert len(titles("a")) == 3


def test_batch_get(client):
    items = list(by_title(client).values())
    first = items[0]["id"]
    dashed = f"{first[:8]}-{first[8:12]}-{first[12:16]}-{first[16:20]}-{first[20:]}"
    got = client.get(CONV, params={"ids": [first, "0" * 32, dashed]}).json()
    assert got[0]["id"] == first and got[1] is None and got[2]["id"] == first
    assert client.get(CONV, params={"ids": ["not-a-uuid"]}).status_code == 400
    assert client.get(CONV, params={"ids": ["0" * 32] * 99}).status_code == 200
    too_many = client.get(CONV, params={"ids": ["0" * 32] * 100})
    assert too_many.status_code == 400 and "99" in too_many.json()["detail"]
    assert client.get(CONV).status_code == 422


@pytest.mark.parametrize(
    "params",
    [
        {"limit": 0},
        {"limit": 101},
        {"created_at__gte": "soon"},
        {"page_id": "zzz"},
        {"include_sub_conversations": "maybe"},
    ],
)
def test_search_validation(client, params):
    response = client.get(f"{CONV}/search", params=params)
    assert response.status_code == 422
    assert all({"loc", "msg", "type"} <= set(e) for e in response.json()["detail"])


# -- start tasks ------------------------------------------------------------------------------


def test_start_task_advances_to_ready_with_a_fake_clock(demo_copy):
    clock = FakeClock()
    _server, c, _ = demo_copy(clock=clock, start_delay=3.0)
    before = c.get(f"{SANDBOXES}/search").json()["items"]
    task = c.post(
        CONV,
        json={
            "title": "From the test",
            "initial_message": {
                "role": "user",
                "content": [{"type": "text", "text": "Hello there"}],
            },
            "selected_repository": "octo/demo",
        },
    ).json()
    AppConversationStartTask.model_validate(task)
    assert task["status"] == "WORKING" and task["app_conversation_id"] is None
    assert task["request"]["initial_message"]["content"][0]["text"] == "Hello there"

    def status() -> dict:
        return c.get(f"{CONV}/start-tasks", params={"ids": [task["id"]]}).json()[0]

    assert status()["status"] == "WORKING"
    clock.now += 1.2
    assert status()["status"] == "WAITING_FOR_SANDBOX"
    assert status()["sandbox_id"] is None
    clock.now += 1.0
    waiting = status()
    assert waiting["status"] == "STARTING_CONVERSATION" and waiting["sandbox_id"]
    assert waiting["agent_server_url"].startswith("http://localhost:")
    clock.now += 1.0
    ready = status()
    assert ready["status"] == "READY" and ready["app_conversation_id"]
    assert ready["updated_at"] > ready["created_at"]

    conversation = c.get(CONV, params={"ids": [ready["app_conversation_id"]]}).json()[0]
    assert conversation["title"] == "From the test"
    assert (
        conversation["sandbox_status"] == "RUNNING" and conversation["execution_status"] == "idle"
    )
    assert conversation["selected_repository"] == "octo/demo"
    after = c.get(f"{SANDBOXES}/search").json()["items"]
    assert len(after) == len(before) + 1
    events = c.get(f"/api/v1/conversation/{conversation['id']}/events/search").json()["items"]
    kinds = [e["kind"] for e in events]
    assert kinds[:2] == ["SystemPromptEvent", "MessageEvent"]
    assert events[1]["llm_message"]["content"][0]["text"] == "Hello there"
    assert events[1]["parent_id"] == events[0]["id"]

    found = c.get(
        f"{CONV}/start-tasks/search", params={"conversation_id__eq": conversation["id"]}
    ).json()["items"]
    assert [t["id"] for t in found] == [task["id"]]
    assert c.get(f"{CONV}/start-tasks/count").json() == 1


def test_start_task_in_real_time(make_server):
    store = Store()
    load_demo(store)
    server = make_server(store, start_delay=0.3)
    with httpx.Client(base_url=server.base_url) as c:
        task = c.post(CONV).json()  # no body at all: every field is optional
        assert task["status"] == "WORKING"
        deadline = time.monotonic() + 5
        seen = []
        while time.monotonic() < deadline:
            current = c.get(f"{CONV}/start-tasks", params={"ids": [task["id"]]}).json()[0]
            seen.append(current["status"])
            if current["status"] in ("READY", "ERROR"):
                break
            time.sleep(0.03)
        assert seen[-1] == "READY"
        new = c.get(CONV, params={"ids": [current["app_conversation_id"]]}).json()[0]
        assert new["title"].startswith("Conversation ")


def test_start_on_an_existing_paused_sandbox_resumes_it(demo_copy):
    _server, c, _names = demo_copy(start_delay=0)
    paused = next(
        s for s in c.get(f"{SANDBOXES}/search").json()["items"] if s["status"] == "PAUSED"
    )
    task = c.post(CONV, json={"sandbox_id": paused["id"]}).json()
    ready = c.get(f"{CONV}/start-tasks", params={"ids": [task["id"]]}).json()[0]
    assert ready["status"] == "READY" and ready["sandbox_id"] == paused["id"]
    assert c.get(SANDBOXES, params={"id": [paused["id"]]}).json()[0]["status"] == "RUNNING"


def test_start_on_an_unknown_sandbox_fails_the_task(demo_copy):
    _server, c, _ = demo_copy(start_delay=0)
    task = c.post(CONV, json={"sandbox_id": "oh-agent-server-nope"}).json()
    failed = c.get(f"{CONV}/start-tasks", params={"ids": [task["id"]]}).json()[0]
    assert failed["status"] == "ERROR" and "not found" in failed["detail"]
    assert (
        c.post(CONV, json={"initial_message": {"content": [{"type": "nope"}]}}).status_code == 422
    )


def test_start_task_search_paging(demo_copy):
    clock = FakeClock()
    _server, c, _ = demo_copy(clock=clock, start_delay=0)
    ids = []
    for _ in range(5):
        ids.append(c.post(CONV, json={}).json()["id"])
        clock.now += 1
    for order, expected in (("CREATED_AT", ids), ("CREATED_AT_DESC", ids[::-1])):
        got, page = [], None
        while True:
            body = c.get(
                f"{CONV}/start-tasks/search",
                params={"limit": 2, "sort_order": order, **({"page_id": page} if page else {})},
            ).json()
            got += [t["id"] for t in body["items"]]
            page = body["next_page_id"]
            if not page:
                break
        assert got == expected
    first = c.get(f"{CONV}/start-tasks/search", params={"limit": 2}).json()["next_page_id"]
    wrong = c.get(
        f"{CONV}/start-tasks/search", params={"page_id": first, "sort_order": "UPDATED_AT"}
    )
    assert wrong.status_code == 422


def test_send_message(demo_copy):
    _server, c, names = demo_copy()
    cid = names["hello"]
    before = c.get(f"/api/v1/conversation/{cid}/events/count").json()
    body = {"role": "user", "content": [{"type": "text", "text": "One more thing"}], "run": True}
    response = c.post(f"{CONV}/{cid}/send-message", json=body)
    assert response.json() == {"success": True, "sandbox_status": "RUNNING", "message": None}
    # message, last_user_message_id and (run) execution_status=running; the agent's steps
    # follow only when stepped (agent_pace=None, see test_server_live.py)
    assert c.get(f"/api/v1/conversation/{cid}/events/count").json() == before + 3
    assert c.get(CONV, params={"ids": [cid]}).json()[0]["execution_status"] == "running"
    last = c.get(
        "/api/shared-events/search",
        params={"conversation_id": cid, "sort_order": "TIMESTAMP_DESC", "limit": 1},
    ).json()["items"][0]
    assert last["llm_message"]["content"][0]["text"] == "One more thing"
    paused = names["branches"]
    assert c.post(f"{CONV}/{paused}/send-message", json=body).status_code == 409
    assert c.post(f"{CONV}/{'0' * 32}/send-message", json=body).status_code == 404
    assert c.post(f"{CONV}/{cid}/send-message", json={"content": []}).status_code == 422


def test_patch_and_delete(demo_copy):
    _server, c, names = demo_copy()
    cid = names["fail"]
    patched = c.patch(f"{CONV}/{cid}", json={"title": "Renamed", "public": False}).json()
    assert patched["title"] == "Renamed" and patched["public"] is False
    assert c.patch(f"{CONV}/{'0' * 32}", json={"title": "x"}).status_code == 404
    assert c.delete(f"{CONV}/{cid}").json() == {"success": True}
    assert c.get(CONV, params={"ids": [cid]}).json() == [None]
    assert c.delete(f"{CONV}/{cid}").status_code == 404


# -- sandboxes --------------------------------------------------------------------------------


def test_sandbox_search_shape(client):
    body = client.get(f"{SANDBOXES}/search").json()
    assert body["next_page_id"] is None
    statuses = {}
    for sandbox in body["items"]:
        SandboxInfo.model_validate(sandbox)
        statuses[sandbox["status"]] = sandbox
        assert sandbox["id"].startswith("oh-agent-server-")
    running = statuses["RUNNING"]
    assert running["session_api_key"]
    urls = {u["name"]: u for u in running["exposed_urls"]}
    assert set(urls) == {"AGENT_SERVER", "VSCODE", "WORKER_1", "WORKER_2"}
    assert f"tkn={running['session_api_key']}&folder=/workspace/project" in urls["VSCODE"]["url"]
    assert [u["port"] for u in running["exposed_urls"]] == [8000, 8001, 8011, 8012]
    for status in ("PAUSED", "ERROR", "STARTING"):
        assert (
            statuses[status]["session_api_key"] is None and statuses[status]["exposed_urls"] is None
        )
    assert statuses["ERROR"]["status_detail"]
    page = client.get(f"{SANDBOXES}/search", params={"limit": 2}).json()
    rest = client.get(
        f"{SANDBOXES}/search", params={"limit": 10, "page_id": page["next_page_id"]}
    ).json()
    assert [s["id"] for s in page["items"] + rest["items"]] == [s["id"] for s in body["items"]]


def test_pause_resume_cycle(demo_copy):
    _server, c, names = demo_copy()
    cid = names["hello"]
    conversation = c.get(CONV, params={"ids": [cid]}).json()[0]
    sid = conversation["sandbox_id"]
    key = c.get(SANDBOXES, params={"id": [sid]}).json()[0]["session_api_key"]
    assert c.post(f"{SANDBOXES}/{sid}/pause").json() == {"success": True}
    paused = c.get(SANDBOXES, params={"id": [sid]}).json()[0]
    assert (
        paused["status"] == "PAUSED"
        and paused["session_api_key"] is None
        and paused["exposed_urls"] is None
    )
    conversation = c.get(CONV, params={"ids": [cid]}).json()[0]
    assert conversation["sandbox_status"] == "PAUSED" and conversation["execution_status"] is None
    assert c.post(f"{SANDBOXES}/{sid}/resume").json() == {"success": True}
    resumed = c.get(SANDBOXES, params={"id": [sid]}).json()[0]
    assert resumed["status"] == "RUNNING" and resumed["session_api_key"] == key
    conversation = c.get(CONV, params={"ids": [cid]}).json()[0]
    assert conversation["execution_status"] == "finished"


def test_resume_with_a_delay_goes_through_starting(demo_copy):
    clock = FakeClock()
    _server, c, _names = demo_copy(clock=clock, resume_delay=2.0)
    sid = next(
        s["id"] for s in c.get(f"{SANDBOXES}/search").json()["items"] if s["status"] == "PAUSED"
    )
    c.post(f"{SANDBOXES}/{sid}/resume")
    assert c.get(SANDBOXES, params={"id": [sid]}).json()[0]["status"] == "STARTING"
    clock.now += 2.0
    assert c.get(SANDBOXES, params={"id": [sid]}).json()[0]["status"] == "RUNNING"


@pytest.mark.parametrize("action", ["pause", "resume"])
def test_unknown_sandbox_is_404(client, action):
    response = client.post(f"{SANDBOXES}/oh-agent-server-nope/{action}")
    assert response.status_code == 404 and "nope" in response.json()["detail"]


def test_delete(demo_copy):
    _server, c, names = demo_copy()
    conversation = c.get(CONV, params={"ids": [names["fail"]]}).json()[0]
    sid = conversation["sandbox_id"]
    response = c.delete(f"{SANDBOXES}/ignored-path-segment", params={"sandbox_id": sid})
    assert response.json() == {"success": True}
    assert c.get(SANDBOXES, params={"id": [sid]}).json() == [None]
    assert c.get(CONV, params={"ids": [names["fail"]]}).json()[0]["sandbox_status"] == "MISSING"
    assert c.delete(f"{SANDBOXES}/{sid}", params={"sandbox_id": sid}).status_code == 404
    other = c.get(CONV, params={"ids": [names["slow"]]}).json()[0]["sandbox_id"]
    assert c.delete(f"{SANDBOXES}/{other}").json() == {"success": True}  # path only


def test_start_sandbox_from_a_spec(demo_copy):
    clock = FakeClock()
    _server, c, _ = demo_copy(clock=clock, sandbox_start_delay=0.5)
    spec = "ghcr.io/openhands/agent-server:1.43.1-nodejs"
    sandbox = c.post(SANDBOXES, params={"sandbox_spec_id": spec}).json()
    assert sandbox["status"] == "STARTING" and sandbox["sandbox_spec_id"] == spec
    assert sandbox["session_api_key"] is None and sandbox["exposed_urls"] is None
    clock.now += 0.5
    running = c.get(SANDBOXES, params={"id": [sandbox["id"]]}).json()[0]
    assert running["status"] == "RUNNING" and running["session_api_key"]
    default = c.post(SANDBOXES).json()
    assert default["sandbox_spec_id"] == "ghcr.io/openhands/agent-server:1.43.1-python"
    missing = c.post(SANDBOXES, params={"sandbox_spec_id": "nope:latest"})
    assert missing.status_code == 404 and "nope:latest" in missing.json()["detail"]


def test_sandbox_batch_limits(client):
    assert client.get(SANDBOXES, params={"id": ["x"] * 100}).json() == [None] * 100
    assert client.get(SANDBOXES, params={"id": ["x"] * 101}).status_code == 400


# -- specs ------------------------------------------------------------------------------------


def test_specs(client):
    body = client.get("/api/v1/sandbox-specs/search").json()
    assert body["next_page_id"] is None and len(body["items"]) == 3
    for spec in body["items"]:
        assert list(spec) == ["id", "command", "created_at", "initial_env", "working_dir"]
        SandboxSpecInfo.model_validate(spec)
    assert body["items"][0]["working_dir"] == "/workspace/project"
    first = client.get("/api/v1/sandbox-specs/search", params={"limit": 1}).json()
    second = client.get(
        "/api/v1/sandbox-specs/search", params={"limit": 5, "page_id": first["next_page_id"]}
    ).json()
    assert [s["id"] for s in first["items"] + second["items"]] == [s["id"] for s in body["items"]]
    got = client.get(
        "/api/v1/sandbox-specs", params={"id": [body["items"][1]["id"], "nope"]}
    ).json()
    assert got[0] == body["items"][1] and got[1] is None


def test_records_match_the_real_samples_keys(client):
    """Same keys, in the same order, as the real app server's records."""
    from pathlib import Path

    samples = (
        Path(__file__).resolve().parents[3] / "shared/samples/openhands/constructed/app_server"
    )
    if not samples.is_dir():
        pytest.skip("samples not available")
    real_conv = json.loads((samples / "app_conversation_page.json").read_text())["items"][0]
    ours = client.get(f"{CONV}/search", params={"limit": 1}).json()["items"][0]
    assert list(ours) == list(real_conv)
    real_sandbox = json.loads((samples / "sandbox_page.json").read_text())["items"][0]
    sandbox = client.get(f"{SANDBOXES}/search", params={"limit": 1}).json()["items"][0]
    assert list(sandbox)[: len(real_sandbox)] == list(real_sandbox)
    real_task = json.loads((samples / "start_task_ready.json").read_text())
    assert list(real_task["request"]) == list(AppConversationStartRequest.model_fields)


def test_concurrent_polls_create_one_conversation(demo_copy):
    from concurrent.futures import ThreadPoolExecutor

    clock = FakeClock()
    server, c, _ = demo_copy(clock=clock, start_delay=1.0)
    before = c.get(f"{CONV}/count", params={"include_sub_conversations": True}).json()
    task = c.post(CONV, json={"title": "race"}).json()
    clock.now += 5

    def poll(_):
        with httpx.Client(base_url=server.base_url) as own:
            return own.get(f"{CONV}/start-tasks", params={"ids": [task["id"]]}).json()[0]

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(poll, range(16)))
    assert {r["status"] for r in results} == {"READY"}
    assert len({r["app_conversation_id"] for r in results}) == 1
    assert c.get(f"{CONV}/count", params={"include_sub_conversations": True}).json() == before + 1


def test_openapi_and_docs(client):
    schema = client.get("/openapi.json").json()
    for path in (
        "/api/shared-events/search",
        "/api/v1/app-conversations/search",
        "/api/v1/sandboxes/{sandbox_id}/pause",
        "/api/profiles/{name}/validate",
    ):
        assert path in schema["paths"]
    kinds = schema["components"]["schemas"]["EventKind"]["enum"]
    assert len(kinds) == 20  # the spec's 19 and SecurityAnalysisEvent (SDK 1.58)
    assert client.get("/docs").status_code == 200
