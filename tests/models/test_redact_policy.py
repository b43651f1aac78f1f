"""The one secrets policy (tui.models.redact): one sentinel per secret shape, put where real
data carries it, then searched for in every output the data layer makes — JSONL, the
Markdown transcript (both through ``ohtui export``'s code path), the field list of an
unknown event, and the redacted structure itself. Names that only describe a secret, and
counts and flags under secret-looking names, are left alone."""

from __future__ import annotations

import json

import pytest

from tui.export import to_jsonl, to_markdown
from tui.models import event_fields, event_text, is_secret_key, json_text, parse_event, redact_text
from tui.models.redact import MASK, mask_url, redact

# name → (how it is carried, the sentinel that must never be written)
SHAPES: dict[str, tuple[str, str]] = {
    "openai": ("export OPENAI_API_KEY=sk-proj-SENTINEL01abc123def456", "SENTINEL01"),
    "anthropic": ("key sk-ant-api03-SENTINEL02abcdef0123456789 in a log", "SENTINEL02"),
    "github": ("git clone with ghp_SENTINEL03abcdefghijklmnopqrstuv", "SENTINEL03"),
    "github-pat": ("token github_pat_11AAAA_SENTINEL04abcdefghijklmnop", "SENTINEL04"),
    "slack": ("posting with xoxb-1234567890-SENTINEL05abcdef", "SENTINEL05"),
    "aws": ("aws key AKIASENTINEL06ABCDEF used", "SENTINEL06ABCDEF"),
    "authorization": ("curl -H 'Authorization: Bearer SENTINEL07abcdefgh' http://x", "SENTINEL07"),
    "x-key-header": ("X-Session-API-Key: SENTINEL08-key\nAccept: */*", "SENTINEL08"),
    "x-api-key": ('headers = {"X-API-Key": "SENTINEL09value"}', "SENTINEL09"),
    "url-password": ("postgres://admin:SENTINEL10pw@db.local:5432/app", "SENTINEL10"),
    "url-token": ("open http://h:8001/?tkn=SENTINEL11tok&folder=/w", "SENTINEL11"),
    "password-assign": ("password: SENTINEL12hunter2", "SENTINEL12"),
    "env-token": ("GITHUB_TOKEN=SENTINEL13plain npm publish", "SENTINEL13"),
    "json-in-text": ('{"api_key": "SENTINEL14json", "prompt_tokens": 12}', "SENTINEL14"),
    "pem": (
        "-----BEGIN RSA PRIVATE KEY-----\nSENTINEL15MIIEow\n-----END RSA PRIVATE KEY-----",
        "SENTINEL15",
    ),
    "jwt": ("jwt eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SENTINEL16sig_abc", "SENTINEL16"),
    # issue 32: secrets in new shapes
    "stripe-live": ("charge with sk_live_51SENTINEL17abcdefghijklmn", "SENTINEL17"),
    "stripe-test": ("STRIPE=sk_test_SENTINEL18abcdefghij used", "SENTINEL18"),
    "stripe-restricted": ("key rk_live_SENTINEL19abcdefghij", "SENTINEL19"),
    "stripe-webhook": ("endpoint secret whsec_SENTINEL34abcdefghijkl", "SENTINEL34"),
    "slack-webhook": (
        "curl -X POST https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/SENTINEL35abc -d x",
        "SENTINEL35",
    ),
    "discord-webhook": (
        "POST https://discord.com/api/webhooks/1234567890/SENTINEL63tok?wait=true",
        "SENTINEL63",
    ),
    "gpg-passphrase": ("gpg --batch --passphrase SENTINEL64 -d secrets.gpg", "SENTINEL64"),
    "slack-app-token": ("SLACK_APP=xapp-1-A0123-SENTINEL36abcdef", "SENTINEL36"),
    "slack-refresh-token": ("rotated to xoxe-1-SENTINEL37abcdefgh", "SENTINEL37"),
    "cookie-header": (
        "curl -H 'Cookie: theme=dark; session=SENTINEL38abc' https://x.example",
        "SENTINEL38",
    ),
    "set-cookie": ("< Set-Cookie: sid=SENTINEL39abc; Path=/; HttpOnly\r\n< Vary: *", "SENTINEL39"),
    "cookie-json": ('{"headers": {"Cookie": "a=1; auth=SENTINEL43xyz"}}', "SENTINEL43"),
    "curl-cookie": ("curl --cookie 'sid=SENTINEL44abc; x=1' https://x.example", "SENTINEL44"),
    "azure-account-key": (
        (
            "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=SENTINEL45ab+/cd==;"
            "EndpointSuffix=core.windows.net"
        ),
        "SENTINEL45",
    ),
    "azure-sas": (
        "SharedAccessSignature=sv=2022-11-02&ss=b&srt=sco&sp=rl&sig=SENTINEL46abc%2Bdef%3D",
        "SENTINEL46",
    ),
    "azure-service-bus": (
        (
            "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;"
            "SharedAccessKey=SENTINEL47abc="
        ),
        "SENTINEL47",
    ),
    "mysql-attached": ("mysql -uroot -pSENTINEL48pw -h db app", "SENTINEL48"),
    "mysql-quoted": ("/usr/bin/mysqldump -u root -p'SENTINEL49 pw' app > dump.sql", "SENTINEL49"),
    "mariadb-double-quoted": ('mariadb -h db -p"SENTINEL51" app', "SENTINEL51"),
    "mysql-password-flag": ("mysqladmin --password=SENTINEL52 status", "SENTINEL52"),
    "password-flag-spaced": ("docker login --password SENTINEL53 ghcr.io", "SENTINEL53"),
    "registry-login": ("docker login -u bob -p SENTINEL54 registry.example", "SENTINEL54"),
    "sshpass": ("sshpass -p SENTINEL55 ssh -p 2222 bob@host", "SENTINEL55"),
    "redis-cli": ("redis-cli -h cache -a SENTINEL56 ping", "SENTINEL56"),
    "openssl-pass": ("openssl enc -aes256 -pass pass:SENTINEL57 -in f", "SENTINEL57"),
    "aws-secret-in-a-message": (
        "Use AKIAIOSFODNN7EXAMPLE with wJalrXUtnFEMI/K7MDENG/bPxRfiCYSENTINEL58 please",
        "SENTINEL58",
    ),
    "aws-secret-spaced-name": (
        "my aws secret access key is wJalrXUtnFEMI/K7MDENG/bPxRfiCYSENTINEL59",
        "SENTINEL59",
    ),
}
# secrets carried by structure: key names, key/value pairs
KEYED_SENTINELS = {
    "api_key": "SENTINEL20",
    "GITHUB_TOKEN": "SENTINEL21",
    "OPENAI_API_KEY": "SENTINEL22",
    "X-Session-API-Key": "SENTINEL23",
    "session_api_key": "SENTINEL24",
    "client_secret": "SENTINEL25",
    "aws_secret_access_key": "SENTINEL26",
    "privateKey": "SENTINEL27",
    "Authorization": "SENTINEL28",
    "db-password": "SENTINEL29",
    "passwd": "SENTINEL30",
    "credentials": "SENTINEL31",
    "encrypted_content": "SENTINEL32",
    "refresh_token": "SENTINEL33",
}
ALL_SENTINELS = (
    [s for _, s in SHAPES.values()]
    + list(KEYED_SENTINELS.values())
    + [
        "SENTINEL40",
        "SENTINEL41",
        "SENTINEL42",
        "SENTINEL61",
        "SENTINEL62",
    ]
)
#: thinking blocks' opaque provider blobs: a signature and a redacted block's data
SIGNATURE = "EqcCCkYICxgCKkSENTINEL61" + "A" * 300
REDACTED_DATA = "EmwKAhgBEgySENTINEL62" + "B" * 1000


def _terminal_pair(n: int, command: str, output: str) -> list:
    call = f"call-{n}"
    action = {
        "id": f"act-{n}",
        "timestamp": "2026-01-01T00:00:00",
        "source": "agent",
        "thought": [{"type": "text", "text": f"running {command}"}],
        "action": {"kind": "TerminalAction", "command": command},
        "tool_name": "terminal",
        "tool_call_id": call,
        "tool_call": {
            "id": call,
            "name": "terminal",
            "arguments": json.dumps({"command": command}),
            "origin": "completion",
        },
        "llm_response_id": "r",
        "kind": "ActionEvent",
    }
    result = {
        "id": f"obs-{n}",
        "timestamp": "2026-01-01T00:00:01",
        "source": "environment",
        "tool_name": "terminal",
        "tool_call_id": call,
        "action_id": f"act-{n}",
        "observation": {
            "kind": "TerminalObservation",
            "command": command,
            "exit_code": 0,
            "content": [{"type": "text", "text": output}],
        },
        "kind": "ObservationEvent",
    }
    return [parse_event(action), parse_event(result)]


def secret_events() -> list:
    events = []
    for n, (text, _) in enumerate(SHAPES.values()):
        events += _terminal_pair(n, text, f"output: {text}")
    events.append(
        parse_event(
            {
                "id": "state-1",
                "source": "environment",
                "kind": "ConversationStateUpdateEvent",
                "key": "full_state",
                "value": {
                    "agent": {"llm": {k: v for k, v in KEYED_SENTINELS.items()}},
                    "secret_registry": {"secret_sources": {"DB": {"value": "SENTINEL40"}}},
                    "env": [{"name": "NPM_TOKEN", "value": "SENTINEL41"}],
                    "stats": {"prompt_tokens": 12, "api_key_set": True, "model": "gpt-x"},
                },
            }
        )
    )
    events.append(
        parse_event(
            {
                "id": "state-2",
                "source": "environment",
                "kind": "ConversationStateUpdateEvent",
                "key": "api_key",
                "value": "SENTINEL42",
            }
        )
    )
    events.append(
        parse_event(
            {
                "id": "think-1",
                "source": "agent",
                "kind": "MessageEvent",
                "llm_message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "done"}],
                    "thinking_blocks": [
                        {"type": "thinking", "thinking": "I weighed it", "signature": SIGNATURE},
                        {"type": "redacted_thinking", "data": REDACTED_DATA},
                    ],
                },
            }
        )
    )
    # a kind newer than ohtui and an event that does not validate, both holding secrets
    events.append(
        parse_event({"id": "u", "kind": "FutureEvent", "source": "agent", **KEYED_SENTINELS})
    )
    events.append(parse_event({"id": "b", "kind": "MessageEvent", "token": "SENTINEL21"}))
    return events


def _clean(where: str, text: str) -> None:
    for sentinel in ALL_SENTINELS:
        assert sentinel not in text, f"{sentinel} written in {where}"


def test_no_sentinel_in_any_export_output():
    events = secret_events()
    assert not any(e.__class__.__name__ == "RawEvent" for e in events[:-2])
    jsonl, markdown = to_jsonl(events), to_markdown(events, conversation_id="c")
    _clean("JSONL", jsonl)
    _clean("Markdown", markdown)
    assert MASK in jsonl and MASK in markdown
    # thinking blocks: the words shown, the opaque blobs only as their size
    assert "I weighed it" in markdown and "redacted thinking: 1,021 bytes" in markdown
    assert "‹redacted thinking: 1,021 bytes›" in jsonl and "‹signature: 324 bytes›" in jsonl
    assert len(jsonl.splitlines()) == len(events)  # masked, never dropped
    for event in events:
        _clean(f"fields of {event.id}", str(event_fields(event)) + event_text(event))


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_each_shape_is_masked_in_free_text(name):
    text, sentinel = SHAPES[name]
    out = redact_text(text)
    assert sentinel not in out and ("****" in out or MASK in out), out


def test_what_is_not_a_secret_stays():
    data = {
        "accumulated_token_usage": {"model": "gpt-x", "prompt_tokens": 5, "per_turn_token": 7},
        "token_usages": [{"model": "m", "response_id": "r1"}],
        "prompt_token_ids": [1, 2, 3],
        "api_key_set": True,
        "secret_name": "DB_PASSWORD",
        "tokenizer_name": "cl100k",
        "authorization_url": "https://auth.example/authorize?client_id=abc",
        "max_tokens": 4096,
        "token": "",
        "password": None,
    }
    assert redact(data) == data
    for text in (
        "The secret to success is practice",
        "prompt_tokens=120, max_tokens: 4096",
        "sk-learn-classifier is a library",
        "mask the task-abcdefghijklmnop123 id",
        "see https://example.com/path?page=2&q=tokens",
        # issue 32's shapes have look-alikes that are not secrets
        "psql -h db -p 5432 app && ssh -p 2222 host && git log -p",
        "mkdir -p /tmp/x && cp -p a b && tar -cpf x.tar d",
        "mysql -u root -p app  (-p alone: mysql asks for the password)",
        'mysql -P 3306 -p -h db app; mysql -p$MYSQL_PWD app; docker login -p "$PASS" r',
        "docker login --password-stdin ghcr.io",
        "publishable key pk_live_51Habcdefghijklmnop is public",
        "a cookie recipe; cookies are baked at 180C",
        "the workspace at /home/user/sk_live_notes is a folder",
        "https://hooks.slack.com/ is where webhooks go",
    ):
        assert redact_text(text) == text, text


def test_a_git_sha_beside_an_aws_key_id_stays():
    """Near an AWS key id, a 40-character secret key is masked; a commit hash (hex: no
    capitals) is not one."""
    sha = "3f5e2c0d9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e"
    out = redact_text(f"commit {sha} by AKIAIOSFODNN7EXAMPLE")
    assert sha in out and "IOSFODNN7EXAMPLE" not in out


def test_thinking_blobs_are_sized_never_shown():
    block = {"type": "thinking", "thinking": "words", "signature": SIGNATURE}
    redacted = {"type": "redacted_thinking", "data": REDACTED_DATA}
    assert redact([block, redacted]) == [
        {"type": "thinking", "thinking": "words", "signature": "‹signature: 324 bytes›"},
        {"type": "redacted_thinking", "data": "‹redacted thinking: 1,021 bytes›"},
    ]
    # elsewhere "data" and "signature" are ordinary fields
    assert redact({"type": "text", "data": "x", "signature": "def f(x)"}) == {
        "type": "text",
        "data": "x",
        "signature": "def f(x)",
    }


def test_a_long_string_is_cut_for_a_view_masked_across_the_cut():
    """``cut`` (the raw JSON view's): a string over the limit comes back as its head and how
    many characters it left out, a secret the cut runs through masked whole, the rest never
    searched; shorter strings, secret keys and opaque blobs as ever."""
    secret = "sk-proj-SENTINEL99abc123def456"
    text = "x" * 990 + f" {secret} " + "y" * 200_000
    blob = {"type": "redacted_thinking", "data": "z" * 300_000}
    out = redact(
        {"out": text, "short": "x" * 50, "api_key": "k" * 500_000, "b": blob}, cut=(100_000, 1_000)
    )
    head, note = out["out"].split("…")
    assert head.startswith("x" * 990 + " sk-") and len(head) == 1_000
    assert note == f" ({len(text) - 1_000:,} more characters)"
    assert "SENTINEL99" not in json.dumps(out)
    assert out["short"] == "x" * 50 and out["api_key"] == MASK
    assert out["b"]["data"] == "‹redacted thinking: 300,000 bytes›"  # the whole blob's size
    assert redact({"out": text})["out"] == redact_text(text)  # without ``cut``: all of it


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("api_key", True),
        ("API-KEY", True),
        ("apiKey", True),
        ("x-session-api-key", True),
        ("OPENAI_API_KEY", True),
        ("GITHUB_TOKEN", True),
        ("session_api_keys", True),
        ("Private-Key", True),
        ("AUTHORIZATION", True),
        ("my_credentials", True),
        ("passwd", True),
        ("encrypted_content", True),
        ("Cookie", True),
        ("Set-Cookie", True),
        ("AccountKey", True),
        ("SharedAccessKey", True),
        ("SharedAccessSignature", True),
        ("cookie_name", False),
        ("SharedAccessKeyName", False),
        ("aws_access_key_id", False),
        ("secret_name", False),
        ("token_usage", False),
        ("prompt_token_ids", False),
        ("tokenizer", False),
        ("api_key_env_var", False),
        ("authorization_url", False),
        ("model", False),
        ("", False),
    ],
)
def test_secret_key_names(name, secret):
    assert is_secret_key(name) is secret


def test_key_value_pairs_name_their_secret():
    assert redact({"key": "api_key", "value": "v"}) == {"key": "api_key", "value": MASK}
    assert redact({"name": "GITHUB_TOKEN", "value": "v"}) == {"name": "GITHUB_TOKEN", "value": MASK}
    assert redact({"key": "title", "value": "v"}) == {"key": "title", "value": "v"}


def test_urls_keep_their_shape():
    assert mask_url("http://x/?session_api_key=k&a=1") == "http://x/?session_api_key=****&a=1"
    assert mask_url("https://u:pw@h/p?token=t#f") == "https://u:****@h/p?token=****#f"


def test_redaction_is_depth_safe_and_keeps_numbers_as_sent():
    value: object = {"api_key": "SENTINEL50"}
    for _ in range(20_000):
        value = {"x": [value]}
    out = redact(value)  # iterative: no RecursionError
    node = out
    for _ in range(20_000):
        node = node["x"][0]
    assert node == {"api_key": MASK}
    raw = parse_event({"id": "n", "kind": "FutureEvent", "source": "agent", "v": float("inf")})
    assert "Infinity" in json_text(redact(raw.raw))
