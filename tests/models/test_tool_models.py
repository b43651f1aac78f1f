"""The generated tool models against the OpenAPI they come from and against real captured events."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import types
from pathlib import Path
from typing import Any, get_args

import pytest
from pydantic import TypeAdapter, ValidationError

from tui.models import tool_actions, tool_objects, tool_observations, tools
from tui.models.content import LEGACY_TEXT_KEYS, ImageContent, TextContent

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO.parent / "shared" / "samples" / "openhands"
OPENAPI = SAMPLES / "openapi" / "openhands-cloud.openapi.json"
if not OPENAPI.is_file():  # fail loudly: nothing here means anything without the real schema
    raise RuntimeError(f"missing OpenAPI sample: expected {OPENAPI} (../shared beside the repo)")

SCHEMAS: dict[str, dict] = json.loads(OPENAPI.read_text())["components"]["schemas"]
ADAPTERS = {"Action": TypeAdapter(tools.Action), "Observation": TypeAdapter(tools.Observation)}


def _load_generator() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(
        "gen_tool_models", REPO / "scripts/gen_tool_models.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _load_generator()


def openapi_variants(union: str) -> list[tuple[str, dict]]:
    """(kind, schema) of each oneOf member, read straight from the OpenAPI."""
    out = []
    for member in SCHEMAS[union]["oneOf"]:
        schema = SCHEMAS[member["$ref"].rsplit("/", 1)[-1]]
        out.append((schema["properties"]["kind"]["const"], schema))
    return out


ACTIONS = openapi_variants("Action-Output")
OBSERVATIONS = openapi_variants("Observation-Output")
VARIANTS = [("Action", k, s) for k, s in ACTIONS] + [("Observation", k, s) for k, s in OBSERVATIONS]


def sample(schema: dict) -> Any:
    """A valid JSON value for a schema, using only required fields for objects."""
    if "$ref" in schema:
        return sample(SCHEMAS[schema["$ref"].rsplit("/", 1)[-1]])
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return sample(next(o for o in schema["anyOf"] if o.get("type") != "null"))
    kind = schema.get("type")
    if kind == "object" and "properties" in schema:
        required = schema.get("required", [])
        return {k: sample(v) for k, v in schema["properties"].items() if k in required}
    if kind == "object":
        extra = schema.get("additionalProperties", True)
        return {"key": sample(extra) if isinstance(extra, dict) else "value"}
    if kind == "array":
        if "prefixItems" in schema:
            return [sample(item) for item in schema["prefixItems"]]
        return [sample(schema.get("items", {})) for _ in range(max(1, schema.get("minItems", 0)))]
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0) + 1)
        value = min(max(low, 0), schema.get("maximum", float("inf")))
        return int(value) if kind == "integer" else float(value)
    if kind == "string":
        return "x" * max(1, schema.get("minLength", 1))
    if kind == "boolean":
        return True
    return "anything"  # {}


# -- the unions match the OpenAPI ---------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "variants", "classes", "count"),
    [
        ("Action", ACTIONS, tools.ACTION_CLASSES, 37),
        ("Observation", OBSERVATIONS, tools.OBSERVATION_CLASSES, 24),
    ],
)
def test_union_members_are_exactly_the_openapi_variants(label, variants, classes, count):
    expected = [kind for kind, _ in variants]
    assert len(expected) == count
    union = getattr(tools, label)
    members = get_args(get_args(union)[0])
    assert [m.model_fields["kind"].default for m in members] == expected
    assert list(classes) == expected
    assert list(classes.values()) == list(members)
    assert all(cls.__name__ == kind for kind, cls in classes.items())


def test_client_tool_observation_is_included():
    assert "ClientToolObservation" in tools.OBSERVATION_CLASSES


def test_content_blocks_are_the_shared_classes():
    content = tool_observations.TerminalObservation.model_fields["content"].annotation
    assert set(get_args(get_args(get_args(content)[0])[0])) == {TextContent, ImageContent}
    for module in (tool_objects, tool_actions, tool_observations, tools):
        source = Path(module.__file__).read_text()
        assert "class TextContent" not in source
        assert "class ImageContent" not in source


# -- every variant: minimal instance, extra field, missing field --------------------------


@pytest.mark.parametrize(("label", "kind", "schema"), VARIANTS, ids=[v[1] for v in VARIANTS])
def test_minimal_instance_validates_to_its_class(label, kind, schema):
    data = sample(schema)
    assert set(data) == set(schema["required"])
    obj = ADAPTERS[label].validate_python(data)
    assert type(obj) is getattr(tools, f"{label.upper()}_CLASSES")[kind]
    assert obj.kind == kind
    assert obj.model_dump(mode="json", by_alias=True, exclude_unset=True) == data
    assert ADAPTERS[label].validate_json(json.dumps(data)) == obj


@pytest.mark.parametrize(("label", "kind", "schema"), VARIANTS, ids=[v[1] for v in VARIANTS])
def test_unknown_field_is_rejected(label, kind, schema):
    with pytest.raises(ValidationError) as exc:
        ADAPTERS[label].validate_python({**sample(schema), "not_in_schema": 1})
    assert [e["type"] for e in exc.value.errors()] == ["extra_forbidden"]


@pytest.mark.parametrize(("label", "kind", "schema"), VARIANTS, ids=[v[1] for v in VARIANTS])
def test_missing_required_field_is_rejected(label, kind, schema):
    data = sample(schema)
    for field in schema["required"]:  # always includes the "kind" discriminator
        with pytest.raises(ValidationError) as exc:
            ADAPTERS[label].validate_python({k: v for k, v in data.items() if k != field})
        errors = exc.value.errors()
        if field == "kind":
            assert [e["type"] for e in errors] == ["union_tag_not_found"]
        else:
            assert [(e["type"], e["loc"][-1]) for e in errors] == [("missing", field)]


def test_kind_has_a_default_for_direct_construction():
    assert tool_actions.TerminalAction(command="ls").kind == "TerminalAction"
    assert (
        tool_observations.TerminalObservation(command="ls").metadata
        == tool_objects.CmdOutputMetadata()
    )


def test_constraints_and_enums_are_carried_over():
    with pytest.raises(ValidationError):
        tool_actions.WorkflowAction(name="n", script="s", max_concurrency=65)
    with pytest.raises(ValidationError):
        tool_actions.ReadFileAction(file_path="f", limit=0)
    with pytest.raises(ValidationError):
        tool_actions.VisionInspectAction(image_index=0, question="")
    with pytest.raises(ValidationError):
        tool_actions.TaskTrackerAction(command="delete")
    obs = tool_observations.ReadFileObservation(file_path="f", lines_shown=[1, 2])
    assert obs.lines_shown == (1, 2)
    with pytest.raises(ValidationError):
        tool_observations.ReadFileObservation(file_path="f", lines_shown=[1, 2, 3])


# -- real events ---------------------------------------------------------------------------

EVENT_FILES = sorted(
    [*SAMPLES.glob("agent-server-capture/persisted/*/events/*.json")]
    + [*SAMPLES.glob("cli-trajectories/*/*.json")]
)


def real_payloads() -> list[tuple[str, str, dict]]:
    out = []
    for path in EVENT_FILES:
        event = json.loads(path.read_text())
        name = str(path.relative_to(SAMPLES))
        if event.get("kind") == "ActionEvent" and event.get("action") is not None:
            out.append(("Action", name, event["action"]))
        elif event.get("kind") == "ObservationEvent":
            out.append(("Observation", name, event["observation"]))
    return out


REAL = real_payloads()


def expected_dump(value: Any) -> Any:
    """The original JSON minus None values and the legacy keys TextContent drops on load."""
    if isinstance(value, dict):
        drop = LEGACY_TEXT_KEYS if value.get("type") == "text" else frozenset()
        return {k: expected_dump(v) for k, v in value.items() if v is not None and k not in drop}
    if isinstance(value, list):
        return [expected_dump(v) for v in value]
    return value


def test_real_samples_cover_the_common_tools():
    seen = {payload["kind"] for _, _, payload in REAL}
    assert len(EVENT_FILES) > 50
    assert seen >= {
        *("TerminalAction", "TerminalObservation", "FileEditorAction", "FileEditorObservation"),
        *("TaskTrackerAction", "TaskTrackerObservation", "FinishAction", "ThinkAction"),
    }


@pytest.mark.parametrize(
    ("label", "name", "payload"), REAL, ids=[f"{n}:{p['kind']}" for _, n, p in REAL]
)
def test_real_payload_round_trips(label, name, payload):
    obj = ADAPTERS[label].validate_python(payload)
    assert type(obj).__name__ == payload["kind"]
    assert obj.model_dump(mode="json", exclude_none=True) == expected_dump(payload)


# -- the generator -------------------------------------------------------------------------


def test_committed_files_are_what_the_generator_renders():
    rendered = GEN.render(GEN.load_spec())
    assert set(rendered) == {
        "tool_objects.py",
        "tool_actions.py",
        "tool_observations.py",
        "tools.py",
    }
    for name, text in rendered.items():
        committed = (REPO / "tui/models" / name).read_text(encoding="utf-8")
        assert text == committed, f"tui/models/{name} is stale: run scripts/gen_tool_models.py"
        assert len(text.splitlines()) <= 480  # split so that each module stays readable
    # the layout is ruff's own, so formatting (when ruff is installed) changes nothing
    assert GEN.generate() == rendered


def test_generator_fails_loudly_without_the_openapi_file(tmp_path):
    with pytest.raises(SystemExit, match="OpenAPI file not found"):
        GEN.load_spec(tmp_path / "missing.json")


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


ODD_SPEC = {
    "components": {
        "schemas": {
            "Action-Output": {"oneOf": [_ref("OddAction-Output")]},
            "Observation-Output": {"oneOf": [_ref("OddObservation-Output")]},
            "OddAction-Output": {
                "type": "object",
                "additionalProperties": False,
                "required": ["schema", "tags", "kind"],
                "properties": {
                    "schema": {"type": "string"},
                    "class": {"type": "integer", "exclusiveMinimum": 0, "default": 1},
                    "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                    "ratio": {"anyOf": [{"type": "number", "maximum": 1}, {"type": "null"}]},
                    "open": _ref("Open"),
                    "anything": {},
                    "kind": {"type": "string", "const": "OddAction"},
                },
            },
            "Open": {"type": "object", "properties": {"x": {"type": "integer", "default": 0}}},
            "OddObservation-Output": {
                "type": "object",
                "additionalProperties": False,
                "required": ["kind"],
                "properties": {
                    "content": {
                        "type": "array",
                        "items": {"anyOf": [_ref("TextContent"), _ref("ImageContent")]},
                    },
                    "kind": {"type": "string", "const": "OddObservation"},
                },
            },
        }
    }
}


def _import_rendered(files: dict[str, str], root: Path) -> types.ModuleType:
    """The rendered modules as a package of their own beside stand-ins for .base and .content."""
    package = root / "odd_tools"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text("from tui.models.base import ClosedModel  # noqa: F401\n")
    shim = "from tui.models.content import Content, ImageContent, TextContent  # noqa: F401\n"
    (package / "content.py").write_text(shim)
    for name, text in files.items():
        (package / name).write_text(text)
    sys.path.insert(0, str(root))
    try:
        return importlib.import_module("odd_tools.tools")
    finally:
        sys.path.remove(str(root))


def test_generator_handles_reserved_names_and_constraints(tmp_path):
    files = GEN.render(ODD_SPEC)
    assert GEN.render(ODD_SPEC) == files  # deterministic
    try:
        module = _import_rendered(files, tmp_path)
        actions = sys.modules["odd_tools.tool_actions"]
        objects = sys.modules["odd_tools.tool_objects"]
        odd = TypeAdapter(module.Action).validate_python(
            {"kind": "OddAction", "schema": "s", "tags": ["a"]}
        )
        assert odd.schema_ == "s"
        assert odd.class_ == 1
        assert odd.open == objects.Open()
        assert odd.model_dump()["schema"] == "s"  # serialised under the wire name
        assert actions.OddAction(schema_="s", tags=[]).tags == []
        keep = objects.Open(x=1, unknown=2)  # schema leaves additionalProperties open
        assert keep.model_dump() == {"x": 1, "unknown": 2}
        for bad in ({"tags": ["a", "a"]}, {"class": 0}, {"ratio": 2}):
            with pytest.raises(ValidationError):
                actions.OddAction(**{"schema": "s", "tags": ["a"], **bad})
        obs = TypeAdapter(module.Observation).validate_python(
            {"kind": "OddObservation", "content": [{"type": "image", "image_urls": ["u"]}]}
        )
        assert isinstance(obs.content[0], ImageContent)
    finally:
        for name in [n for n in sys.modules if n.split(".")[0] == "odd_tools"]:
            del sys.modules[name]


def test_generator_refuses_what_it_does_not_understand():
    spec = json.loads(json.dumps(ODD_SPEC))
    props = spec["components"]["schemas"]["OddAction-Output"]["properties"]
    props["inline"] = {"type": "object", "properties": {"a": {"type": "string"}}}
    with pytest.raises(ValueError, match="inline object"):
        GEN.render(spec)
    del props["inline"]
    props["odd"] = {"type": "string", "not": {"const": "x"}}
    with pytest.raises(ValueError, match="unsupported schema keys"):
        GEN.render(spec)
