"""A scripted, OpenAI-compatible fake LLM that the real agent server talks to over loopback.

It runs inside the test process (stdlib ``http.server`` on a thread), so a test sets the script
of its conversation before the run and watches, or changes, how the run goes while it goes: how
many steps were asked for, what the agent sent back (a rejection reason, a tool result), how
slowly steps are answered.

A conversation is tied to its script by a tag in its first user message, ``[ohtui-test:RID]``
(``Script.tag``). Each chat completion that offers tools gets the script's next step: an
assistant message with tool calls (terminal commands that only touch the server's ``files/``
folder, file_editor create/str_replace, think, finish), each carrying a ``security_risk`` for
``LLMSecurityAnalyzer``. When the newest message is an untagged user message (a follow-up the
test sent) the answer is a plain reply quoting it, and the agent finishes. Requests without tools
(titles, summaries) get a short text. A script that runs out ends with a plain reply too.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TAG = re.compile(r"\[ohtui-test:([A-Za-z0-9_-]+)\]")
_ids = itertools.count(1)


@dataclass
class Step:
    """One assistant turn: optional text and the tool calls (name, arguments) it makes."""

    content: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


def terminal(command: str, risk: str = "LOW") -> tuple[str, dict[str, Any]]:
    return "terminal", {"command": command, "security_risk": risk}


def think(thought: str) -> tuple[str, dict[str, Any]]:
    return "think", {"thought": thought, "security_risk": "LOW"}


def create_file(path: str, text: str) -> tuple[str, dict[str, Any]]:
    args = {"command": "create", "path": path, "file_text": text, "security_risk": "LOW"}
    return "file_editor", args


def replace_in_file(path: str, old: str, new: str) -> tuple[str, dict[str, Any]]:
    args = {"command": "str_replace", "path": path, "old_str": old, "new_str": new}
    return "file_editor", {**args, "security_risk": "LOW"}


def finish(message: str) -> tuple[str, dict[str, Any]]:
    return "finish", {"message": message, "security_risk": "LOW"}


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


class Script:
    """The steps of one conversation, and what the fake LLM saw while serving them.

    ``delay`` paces each step (seconds before the answer, so a run is still going when the test
    pauses it); ``hurry()`` ends any pacing at once, also of a step already waiting. ``held``:
    the first step waits for ``release()`` too (the run is going, for sure, until the test says)."""

    def __init__(self, steps: Iterable[Step], delay: float = 0.0, held: bool = False) -> None:
        self.rid = f"r{next(_ids)}x{time.monotonic_ns() % 10**8}"
        self.steps = list(steps)
        self.delay = delay
        self.served = 0  # steps answered so far
        self.requests: list[list[dict[str, Any]]] = []  # the messages of every tool request
        self._hurry = threading.Event()
        self._released = threading.Event()
        if not held:
            self._released.set()
        self._lock = threading.Lock()

    @property
    def tag(self) -> str:
        return f"[ohtui-test:{self.rid}]"

    def hurry(self) -> None:
        self.delay = 0.0
        self._hurry.set()
        self._released.set()

    def release(self) -> None:
        """A held script goes on (at its pace)."""
        self._released.set()

    def tool_results(self) -> list[str]:
        """Every tool-result text the agent sent back to the LLM (latest request holds all)."""
        with self._lock:
            last = self.requests[-1] if self.requests else []
        return [_text(m) for m in last if m.get("role") == "tool"]

    def next_step(self, messages: list[dict[str, Any]]) -> Step | None:
        with self._lock:
            self.requests.append(messages)
            index = self.served
            self.served += 1
        self._released.wait(120)
        if self.delay:
            self._hurry.wait(self.delay)
        return self.steps[index] if index < len(self.steps) else None


class FakeLLM:
    """The server: ``start()``, ``url`` (an OpenAI ``base_url``), ``add(steps)``, ``stop()``."""

    model = "openai/fake-model"

    def __init__(self) -> None:
        self.scripts: dict[str, Script] = {}
        self.request_count = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "start() first"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def add(self, steps: Iterable[Step], delay: float = 0.0, held: bool = False) -> Script:
        script = Script(steps, delay, held)
        self.scripts[script.rid] = script
        return script

    def llm_settings(self, usage_id: str = "agent") -> dict[str, Any]:
        """The ``llm`` block of an agent-server Agent that talks to this fake."""
        return {
            "model": self.model,
            "base_url": self.url,
            "api_key": "sk-fake-not-a-secret",
            "usage_id": usage_id,
            "num_retries": 0,
            "api_mode": "chat",
            "stream": False,
        }

    def start(self) -> FakeLLM:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": "fake-model"}]})
                else:
                    self._send(404, {"error": {"message": f"not scripted: {self.path}"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    self._send(400, {"error": {"message": "bad JSON"}})
                    return
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"not scripted: {self.path}"}})
                    return
                self._send(200, fake.complete(body))

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="fake-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        for script in self.scripts.values():
            script.hurry()  # no handler thread left waiting
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    # -- answering ---------------------------------------------------------------------------

    def _script_of(self, messages: list[dict[str, Any]]) -> Script | None:
        for message in messages:
            if message.get("role") == "user":
                found = TAG.search(_text(message))
                if found:
                    return self.scripts.get(found.group(1))
        return None

    def decide(self, body: dict[str, Any]) -> tuple[str | None, list[dict[str, Any]], str]:
        """-> (text, tool calls, finish reason) for one chat completion request."""
        messages = body.get("messages") or []
        if not body.get("tools"):
            return "Scripted test conversation", [], "stop"
        last = messages[-1] if messages else {}
        if last.get("role") == "user" and not TAG.search(_text(last)):
            said = " ".join(_text(last).split())[:200]
            return f"You said: {said}", [], "stop"
        script = self._script_of(messages)
        if script is None:
            return "Nothing is scripted for this conversation.", [], "stop"
        step = script.next_step(messages)
        if step is None:
            return "The script is done.", [], "stop"
        calls = [
            {
                "id": f"call_{script.rid}_{script.served}_{k}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for k, (name, args) in enumerate(step.calls)
        ]
        return step.content or None, calls, "tool_calls" if calls else "stop"

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        self.request_count += 1
        text, calls, reason = self.decide(body)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            message["tool_calls"] = calls
        prompt = 100 + 10 * len(body.get("messages") or [])
        return {
            "id": f"chatcmpl-fake-{self.request_count}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": "fake-model",
            "choices": [{"index": 0, "message": message, "finish_reason": reason}],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": 20,
                "total_tokens": prompt + 20,
            },
        }


# -- scripts the tests use ---------------------------------------------------------------------


def tour(files: str, rid: str) -> list[Step]:
    """Every common tool once: terminal, file_editor create and str_replace, think, finish."""
    folder = f"{files}/tour-{rid}"
    return [
        Step("Check the shell.", [terminal(f"mkdir -p {folder} && echo tour-hello")]),
        Step("Create a file.", [create_file(f"{folder}/hello.py", "print('hello')\n")]),
        Step("Edit it.", [replace_in_file(f"{folder}/hello.py", "'hello'", "'hello, world'")]),
        Step("", [think("The edit is in place; run it.")]),
        Step("Run it.", [terminal(f"python3 {folder}/hello.py")]),
        Step("", [finish("Tour done: shell, create, edit, think, run.")]),
    ]


def long_run(batches: int, per_batch: int = 10) -> list[Step]:
    """Many events quickly: each step makes ``per_batch`` think calls (an action and an
    observation each) and the first step a terminal command, so a run of 16 batches leaves
    well over 300 events in about a dozen seconds."""
    steps = [Step("Start with the shell.", [terminal("echo long-run-start")])]
    for b in range(batches):
        calls = [think(f"batch {b} thought {k}") for k in range(per_batch)]
        steps.append(Step(f"Batch {b}.", calls))
    steps.append(Step("", [finish(f"{batches} batches done.")]))
    return steps


def slow_steps(n: int) -> list[Step]:
    """A run to pause and resume: ``n`` steps, paced by the script's ``delay``."""
    steps = [Step(f"Step {i}.", [think(f"slow step {i}")]) for i in range(n)]
    return [*steps, Step("", [finish(f"{n} slow steps done.")])]


def two_commands(first_risk: str = "LOW", second_risk: str = "HIGH") -> list[Step]:
    """For confirmation: two commands, each with the risk the security analyzer reads."""
    return [
        Step("A harmless echo.", [terminal("echo first-command", first_risk)]),
        Step("A second command.", [terminal("echo second-command", second_risk)]),
        Step("", [finish("Both commands handled.")]),
    ]
