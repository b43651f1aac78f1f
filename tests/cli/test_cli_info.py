"""``ohtui info`` asks the configured server what it is: kind, version and title, or in
words why it could not (nothing answered, a key is wanted, not an OpenHands server)."""

from __future__ import annotations

import os
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tui.cli import main

KEY = "sk-info-probe-3b8e"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    for name in list(os.environ):
        if name.startswith("OHTUI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("CONFIG", "DATA", "STATE", "CACHE"):
        monkeypatch.setenv(f"XDG_{var}_HOME", str(tmp_path / var.lower()))


def info(capsys, *argv: str) -> str:
    assert main(["info", *argv]) == 0
    out = capsys.readouterr().out
    assert "Traceback" not in out and KEY not in out
    return out


def server_section(out: str) -> str:
    return out.split("\nserver\n", 1)[1].split("\n\n", 1)[0]


def test_an_app_server_is_detected(demo_server, capsys):
    out = info(capsys, "--url", demo_server.base_url)
    section = server_section(out)
    assert re.search(r"kind\s+app \(an OpenHands app server\)\s+\[detected\]", section)
    assert re.search(r"access\s+ok: \d+ conversations", section)


def test_a_forced_kind_says_where_it_came_from(demo_server, capsys):
    out = info(capsys, "--url", demo_server.base_url, "--server-kind", "app")
    assert re.search(r"kind\s+app .*\[flag --server-kind\]", server_section(out))


def test_nothing_answering_is_said_in_words(capsys):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    section = server_section(info(capsys, "--url", f"http://127.0.0.1:{port}"))
    assert re.search(r"reached\s+no: cannot reach the server", section)
    assert re.search(r"next\s+is it running", section)


def test_a_server_that_wants_a_key(make_server, capsys):
    server = make_server(session_key=KEY)
    section = server_section(info(capsys, "--url", server.base_url))
    assert re.search(r"problem\s+the server wants a key", section)
    assert "OHTUI_SESSION_KEY" in section
    section = server_section(info(capsys, "--url", server.base_url, "--session-key", "wrong"))
    assert "the server refused the key" in section
    section = server_section(info(capsys, "--url", server.base_url, "--session-key", KEY))
    assert re.search(r"kind\s+app ", section) and "problem" not in section


class _NotOpenHands(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def test_a_server_that_is_not_openhands(capsys):
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _NotOpenHands)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}"
        section = server_section(info(capsys, "--url", url))
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()
    assert "not an OpenHands server at that address" in section
    assert "problem" in section and "reached" not in section  # it answered


def test_no_probe_and_no_url_ask_nothing(capsys):
    assert "\nserver\n" not in info(capsys)  # the bundled demo server is not started for this
    assert "\nserver\n" not in info(capsys, "--url", "http://127.0.0.1:9", "--no-probe")
