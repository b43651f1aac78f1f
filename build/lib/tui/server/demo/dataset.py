"""The demo dataset: what ``ohtui`` shows when no server is named.

Why deterministic: screenshots, snapshot tests and bug reports must see the same data on
every run, so everything comes from one seeded ``random.Random`` and a fixed base time
(never the wall clock) — except the sandboxes' session keys, which are random on every
build (a key anyone can compute opens every demo server). ``ohtui`` itself shows the same
data moved in time (``now``): a server someone was using minutes ago, not months ago. Contents imitate the real captures in
``shared/samples/openhands`` (not read at runtime: the server works without them).

The dataset (:func:`load_demo`): 8 conversations on 5 sandboxes (RUNNING ×2, PAUSED,
ERROR, STARTING) and 3 sandbox specs. Together they contain all 19 event kinds; one has
real branches (user messages re-parented onto earlier events, as after ``/navigate``) and
one has ~1,500 events. StreamingDeltaEvent is transient and normally never stored; three
are stored in one conversation (``slow``) so the client's handling of them can be seen.
Their ``parent_id`` is the current head (real deltas carry none).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ..store import Store
from ..times import utc_text
from ..views import conversation_info
from .conversation_builder import ConversationBuilder
from .events_builder import WORKDIR
from .ids import SeededIds
from .long_story import story_long, story_sub
from .stopped_stories import story_confirm, story_fail, story_slow
from .stories import story_branches, story_hello, story_payments

DEMO_SEED = 20260820
BASE_TIME = datetime(2026, 8, 20, 9, 0, 0)
#: How long before ``now`` the newest conversation of a dataset moved in time was updated.
RECENT_GAP = timedelta(minutes=3)

SPECS: list[dict[str, Any]] = [
    {
        "id": "ghcr.io/openhands/agent-server:1.43.1-python",
        "command": ["--port", "8000"],
        "created_at": "2026-08-18T12:00:00.000000Z",
        "initial_env": {
            "OPENVSCODE_SERVER_ROOT": "/openhands/.openvscode-server",
            "OH_ENABLE_VNC": "0",
            "LOG_JSON": "true",
            "OH_CONVERSATIONS_PATH": "/workspace/conversations",
            "OH_BASH_EVENTS_DIR": "/workspace/bash_events",
            "PYTHONUNBUFFERED": "1",
            "ENV_LOG_LEVEL": "20",
        },
        "working_dir": WORKDIR,
    },
    {
        "id": "ghcr.io/openhands/agent-server:1.43.1-nodejs",
        "command": ["--port", "8000"],
        "created_at": "2026-08-18T12:00:00.000000Z",
        "initial_env": {
            "OPENVSCODE_SERVER_ROOT": "/openhands/.openvscode-server",
            "OH_CONVERSATIONS_PATH": "/workspace/conversations",
            "NODE_ENV": "development",
            "NPM_CONFIG_UPDATE_NOTIFIER": "false",
        },
        "working_dir": WORKDIR,
    },
    {
        "id": "registry.example.com/acme/agent-sandbox:2026.08-custom",
        "command": ["/usr/local/bin/start-agent", "--port", "8000", "--workers", "2"],
        "created_at": "2026-08-19T08:30:00.000000Z",
        "initial_env": {"OH_CONVERSATIONS_PATH": "/data/conversations", "ACME_REGION": "eu-west-1"},
        "working_dir": "/home/openhands/workspace",
    },
]

PROFILES: dict[str, dict[str, Any]] = {
    "default": {
        "model": "litellm_proxy/claude-sonnet-4-5",
        "base_url": None,
        "api_key": "sk-demo-0000000000",
    },
    "gpt": {
        "model": "openai/gpt-5.5",
        "base_url": "https://api.openai.com/v1",
        "api_key": "sk-demo-1111111111",
    },
    "broken": {"model": "claude-sonnet", "base_url": "localhost:4000", "api_key": "short"},
}


@dataclass
class DemoDataset:
    specs: list[dict[str, Any]]
    sandboxes: list[dict[str, Any]]
    conversations: list[dict[str, Any]]  # AppConversationInfo records, oldest first
    events: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # short name -> conversation id


_CONVERSATIONS: list[tuple[str, Any, str, int, dict[str, Any]]] = [
    (
        "hello",
        story_hello,
        "Write hello.py and run it",
        0,
        {
            "selected_repository": "octo-org/hello-world",
            "selected_branch": "main",
            "git_provider": "github",
            "trigger": "gui",
            "public": True,
        },
    ),
    (
        "payments",
        story_payments,
        "Fix flaky test in [bold]payments[/bold] — “ünïcödé” ✓ 日本語 🚀 [link=https://x]x[/link]",
        0,
        {
            "selected_repository": "acme/payments",
            "selected_branch": "fix/flaky-refund-test",
            "git_provider": "gitlab",
            "trigger": "slack",
            "tags": {"team": "payments"},
            "public": True,
        },
    ),
    (
        "branches",
        story_branches,
        "Refactor config loader (three branches)",
        2,
        {
            "selected_repository": "acme/ohtui-config",
            "selected_branch": "main",
            "git_provider": "github",
            "trigger": "gui",
            "public": True,
        },
    ),
    (
        "confirm",
        story_confirm,
        "Clean up scratch and build dirs (confirmation mode)",
        0,
        {"trigger": "openhands_api", "public": None},
    ),
    (
        "fail",
        story_fail,
        "Summarize open bugs in acme/widgets",
        3,
        {
            "selected_repository": "acme/widgets",
            "git_provider": "github",
            "trigger": "resolver",
            "pr_number": [1234],
            "llm_model": "openai/gpt-5.5",
            "public": True,
        },
    ),
    (
        "slow",
        story_slow,
        "Review the README (interrupted, ACP tools)",
        4,
        {"trigger": "automation", "public": True},
    ),
    (
        "long",
        story_long,
        "Port the CLI to asyncio (long session)",
        1,
        {
            "selected_repository": "acme/fetch-cli",
            "selected_branch": "asyncio-port",
            "git_provider": "github",
            "trigger": "gui",
            "public": True,
        },
    ),
    (
        "sub",
        story_sub,
        "Sub-task: update docs/usage.md",
        1,
        {
            "selected_repository": "acme/fetch-cli",
            "selected_branch": "asyncio-port",
            "git_provider": "github",
            "trigger": "gui",
            "public": True,
        },
    ),
]

# (spec index, status, status detail)
_SANDBOXES = [
    (0, "RUNNING", None),
    (1, "RUNNING", None),
    (0, "PAUSED", None),
    (2, "ERROR", "Container exited with code 137 (OOMKilled)"),
    (0, "STARTING", None),
]


def build_demo(seed: int = DEMO_SEED, *, now: float | None = None) -> DemoDataset:
    """The demo dataset as plain data (identical for identical seeds).

    ``now`` (seconds since the epoch): the same dataset moved in time so that its newest
    conversation was updated :data:`RECENT_GAP` before ``now``, its event times local as an
    agent server writes them; without it, it starts at :data:`BASE_TIME`."""
    dataset = _build(seed)
    if now is not None:
        _move(dataset, now)
    return dataset


def _move(dataset: DemoDataset, now: float) -> None:
    """Every time of ``dataset`` later by the same amount (one pass: no second build)."""

    def naive(value: str) -> datetime:
        return datetime.fromisoformat(value).replace(tzinfo=None)

    newest = max(naive(c["updated_at"]) for c in dataset.conversations)
    shift = datetime.fromtimestamp(now) - RECENT_GAP - newest
    for events in dataset.events.values():
        for event in events:
            moved = naive(event["timestamp"]) + shift
            event["timestamp"] = moved.isoformat(timespec="microseconds")
    for record in (*dataset.specs, *dataset.sandboxes, *dataset.conversations):
        for key in ("created_at", "updated_at"):
            if record.get(key):  # local wall-clock digits → the record's UTC time
                record[key] = utc_text((naive(record[key]) + shift).astimezone())


def _build(seed: int) -> DemoDataset:
    rng = random.Random(seed)
    ids = SeededIds(rng)
    keys = SeededIds(random.SystemRandom())
    sandboxes = []
    for index, (spec_index, status, detail) in enumerate(_SANDBOXES):
        sandboxes.append(
            {
                "id": ids.sandbox_id(),
                "created_at": utc_text(BASE_TIME - timedelta(hours=6 - index)),
                "created_by_user_id": None,
                "sandbox_spec_id": SPECS[spec_index]["id"],
                "status": status,
                # a key from the seeded ids would be known to anyone who can read this code;
                # one is still drawn so the ids after it stay what they always were
                "session_api_key": keys.session_key() if ids.session_key() else None,
                "status_detail": detail,
                "port": 34010 + 10 * index,
                "due_status": None,
                "due_at": None,
            }
        )
    dataset = DemoDataset(specs=[dict(s) for s in SPECS], sandboxes=sandboxes, conversations=[])
    start = BASE_TIME
    for name, script, title, sandbox_index, meta in _CONVERSATIONS:
        conversation_id = ids.hex32()
        meta = dict(meta)
        model = meta.pop("llm_model", "litellm_proxy/claude-sonnet-4-5")
        builder = ConversationBuilder(
            random.Random(rng.getrandbits(64)), start, conversation_id=conversation_id, model=model
        )
        script(builder)
        parent = dataset.names.get("long") if name == "sub" else None
        dataset.conversations.append(
            conversation_info(
                id=conversation_id,
                sandbox_id=sandboxes[sandbox_index]["id"],
                title=title,
                llm_model=model,
                metrics=builder.metrics(),
                parent_conversation_id=parent,
                created_at=utc_text(start),
                updated_at=utc_text(builder.now),
                execution_status=builder.execution_status,
                **meta,
            )
        )
        dataset.events[conversation_id] = builder.events
        dataset.names[name] = conversation_id
        start = builder.now + timedelta(
            minutes=rng.randint(20, 90), microseconds=rng.randint(1, 999999)
        )
    return dataset


def load_demo(store: Store, seed: int = DEMO_SEED, *, now: float | None = None) -> dict[str, str]:
    """Fill ``store`` with the demo dataset (moved to ``now``: :func:`build_demo`); returns
    ``{short name: conversation id}``.

    Every event is validated on the way in (``strict``): a script that produced an event
    the models reject fails loudly here instead of showing up as a raw event in the UI.
    The conversations' workspace (``/workspace/project``) is a git repository
    (``workspace_demo.py``), kept with the store.
    """
    dataset = build_demo(seed, now=now)
    with store.transaction():
        for spec in dataset.specs:
            store.put_spec(spec)
        for sandbox in dataset.sandboxes:
            store.put_sandbox(sandbox)
        for info in dataset.conversations:
            store.put_conversation(info)
            store.append_events(info["id"], dataset.events[info["id"]], strict=True)
    for name, profile in PROFILES.items():
        store.profiles.setdefault(name, dict(profile))
    if store.active_profile is None:
        store.active_profile = "default"
    if store.workspace is None:  # a git repository, made when first asked for
        from ..workspace_demo import DemoWorkspace

        store.workspace = DemoWorkspace()
    return dict(dataset.names)
