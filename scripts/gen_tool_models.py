"""Generate the tool models (``tui/models/tool_*.py`` and ``tools.py``) from the OpenAPI file.

Why this exists: the agent service ships ~60 tool Action/Observation schemas (one per tool,
each ``additionalProperties: false`` and tagged by a ``kind`` const). Hand-written copies drift
silently; generating them from the published OpenAPI keeps the client exactly as strict as the
server and makes schema updates a one-command change.

Input:  ``../shared/samples/openhands/openapi/openhands-cloud.openapi.json`` (beside the repo),
        the ``Action-Output`` / ``Observation-Output`` ``oneOf`` unions and every schema they
        reference. ``TextContent`` / ``ImageContent`` map to ``tui.models.content``.
Output: ``tui/models/tool_objects.py`` (what the tools share), ``tool_actions.py``,
        ``tool_observations.py`` (one union each) and ``tools.py`` (their index), laid out exactly
        as ``ruff format`` would lay them out (and passed through ruff when it is installed), so
        the files are the same with or without ruff.

Usage:  python scripts/gen_tool_models.py [--check]   (--check: exit 1 if a file is stale)

The output is a pure function of the OpenAPI file, so re-running is idempotent. Anything in the
schemas this script does not understand raises instead of being guessed.
"""

from __future__ import annotations

import importlib.util
import io
import json
import keyword
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
OPENAPI = REPO.parent / "shared/samples/openhands/openapi/openhands-cloud.openapi.json"
OUTPUT = REPO / "tui/models"  # the generated modules' folder

UNIONS = {"Action": "Action-Output", "Observation": "Observation-Output"}
EXISTING = {"TextContent", "ImageContent"}  # already hand-written in tui.models.content
CONTENT_PAIR = frozenset(EXISTING)  # anyOf [TextContent, ImageContent] -> content.Content
MAX_DESCRIPTION = 120
LINE_LENGTH = 100  # pyproject's ruff line-length; the layout below is what `ruff format` makes

SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
CONSTRAINTS = {
    "minimum": "ge",
    "maximum": "le",
    "exclusiveMinimum": "gt",
    "exclusiveMaximum": "lt",
    "minLength": "min_length",
    "maxLength": "max_length",
    "pattern": "pattern",
    "minItems": "min_length",
    "maxItems": "max_length",
}
STRUCTURE = {"$ref", "anyOf", "const", "enum", "type", "items", "prefixItems", "uniqueItems"}
STRUCTURE |= {"properties", "required", "additionalProperties"}
ANNOTATIONS = {"title", "description", "default", "format", "examples", "deprecated"}
# Python keywords, BaseModel attributes and names the generated module itself uses.
_BASEMODEL_ATTRS = {
    *("construct", "copy", "dict", "from_orm", "json", "parse_file", "parse_obj", "parse_raw"),
    *("schema", "schema_json", "update_forward_refs", "validate"),
}
_MODULE_NAMES = {"Annotated", "Any", "AfterValidator", "ConfigDict", "Field", "Literal", "Union"}
_MODULE_NAMES |= {"None", "bool", "dict", "float", "int", "list", "str", "tuple"}
RESERVED = set(keyword.kwlist) | _BASEMODEL_ATTRS | _MODULE_NAMES

UNIQUE_HELPER = '''
def unique_items(items: list[Any]) -> list[Any]:
    """JSON Schema ``uniqueItems``: reject a list that repeats an item."""
    for i, item in enumerate(items):
        if item in items[:i]:
            raise ValueError("list items must be unique")
    return items
'''


def literal(value: Any) -> str:
    """A Python literal for a JSON value, quoted the way ruff quotes strings."""
    if isinstance(value, str):
        quote = "'" if value.count('"') > value.count("'") else '"'
        body = json.dumps(value, ensure_ascii=False)[1:-1].replace('\\"', '"')
        return quote + body.replace(quote, "\\" + quote) + quote
    if isinstance(value, list):
        return "[" + ", ".join(map(literal, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    return repr(value)  # None / bool / int / float


def number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


def class_name(schema_name: str) -> str:
    name = schema_name.removesuffix("-Output")
    if not name.isidentifier():
        raise ValueError(f"schema name {schema_name!r} is not a usable class name")
    return name


def python_name(prop: str) -> str:
    """The attribute name for a property; differs (and needs an alias) when reserved."""
    if prop.startswith(("_", "model_")):
        return "field_" + prop.lstrip("_")
    return prop + "_" if prop in RESERVED else prop


def is_nullable(schema: dict) -> bool:
    options = schema.get("anyOf", [])
    return schema.get("type") == "null" or any(o.get("type") == "null" for o in options)


def call(head: str, args: list[str], indent: str = "    ") -> str:
    """``head(args)`` laid out the way ruff formats it, so the output needs no formatter."""
    flat = f"{indent}{head}({', '.join(args)})"
    if len(flat) <= LINE_LENGTH:
        return flat
    inner = indent + "    "
    hugged = f"{inner}{', '.join(args)}"
    if len(args) == 1 or len(hugged) <= LINE_LENGTH:
        return f"{indent}{head}(\n{hugged}\n{indent})"
    return f"{indent}{head}(\n" + "".join(f"{inner}{a},\n" for a in args) + f"{indent})"


def one_line(text: str | None) -> str | None:
    """A description worth keeping inline: short, single-line, safe inside quotes."""
    if not text:
        return None
    text = text.strip()
    if "\n" in text or len(text) >= MAX_DESCRIPTION:
        return None
    return text


class Generator:
    def __init__(self, spec: dict) -> None:
        self.schemas: dict[str, dict] = spec["components"]["schemas"]
        self.nested: dict[str, str] = {}  # schema name -> code, in dependency (post-)order
        self.pending: set[str] = set()
        self.imports: set[str] = set()
        self.needs_unique = False

    # -- types -------------------------------------------------------------------------
    def target(self, ref: str) -> dict:
        return self.schemas[ref.removeprefix("#/components/schemas/")]

    def ref(self, ref: str) -> str:
        name = ref.removeprefix("#/components/schemas/")
        if name in EXISTING:
            self.imports.add(name)
            return name
        if name not in self.nested and name not in self.pending:
            self.pending.add(name)  # a cycle resolves lazily thanks to postponed annotations
            self.nested[name] = self.define(name, self.schemas[name])
        return class_name(name)

    def constraints(self, schema: dict) -> list[str]:
        out = []
        for key, kwarg in CONSTRAINTS.items():
            if key not in schema:
                continue
            if key in ("minItems", "maxItems") and "prefixItems" in schema:
                continue  # a tuple already fixes its length
            value = schema[key]
            out.append(f"{kwarg}={literal(value) if key == 'pattern' else number(value)}")
        return out

    def annotated(self, schema: dict) -> str:
        """The type with its constraints folded in (used inside unions, lists, dicts)."""
        bare, kw = self.bare(schema), self.constraints(schema)
        return f"Annotated[{bare}, Field({', '.join(kw)})]" if kw else bare

    def bare(self, schema: dict) -> str:
        unknown = set(schema) - STRUCTURE - ANNOTATIONS - set(CONSTRAINTS)
        if unknown:
            raise ValueError(f"unsupported schema keys {sorted(unknown)} in {schema}")
        if "$ref" in schema:
            return self.ref(schema["$ref"])
        if "const" in schema:
            self.imports.add("Literal")
            return f"Literal[{literal(schema['const'])}]"
        if "enum" in schema:
            self.imports.add("Literal")
            return f"Literal[{', '.join(map(literal, schema['enum']))}]"
        if isinstance(schema.get("type"), list):  # {"type": ["string", "null"]}
            return self.bare({"anyOf": [{"type": t} for t in schema["type"]]})
        if "anyOf" in schema:
            options = [o for o in schema["anyOf"] if o.get("type") != "null"]
            refs = {o.get("$ref", "").rsplit("/", 1)[-1] for o in options}
            if len(options) == 2 and refs == CONTENT_PAIR:
                self.imports.add("Content")
                parts = ["Content"]
            else:
                parts = [self.annotated(o) for o in options]
            return " | ".join(parts + ["None"] * is_nullable(schema))
        kind = schema.get("type")
        if kind == "array":
            if "prefixItems" in schema:
                return f"tuple[{', '.join(self.annotated(i) for i in schema['prefixItems'])}]"
            if "items" in schema:
                item = self.annotated(schema["items"])
            else:
                self.imports.add("Any")
                item = "Any"
            if schema.get("uniqueItems"):
                self.needs_unique = True
                self.imports |= {"Annotated", "AfterValidator", "Any"}
                return f"Annotated[list[{item}], AfterValidator(unique_items)]"
            return f"list[{item}]"
        if kind == "object":
            if "properties" in schema:
                raise ValueError(f"inline object schemas are not supported: {schema}")
            extra = schema.get("additionalProperties", True)
            if isinstance(extra, dict) and extra:
                return f"dict[str, {self.annotated(extra)}]"
            self.imports.add("Any")
            return "dict[str, Any]"
        if kind == "null":
            return "None"
        if kind in SCALARS:
            return SCALARS[kind]
        if kind is None and not set(schema) - ANNOTATIONS:  # {} accepts anything
            self.imports.add("Any")
            return "Any"
        raise ValueError(f"unsupported schema {schema}")

    # -- classes -----------------------------------------------------------------------
    def define(self, name: str, schema: dict) -> str:
        """Code for one named schema: a model, or a Literal alias for a string enum."""
        if "enum" in schema and "properties" not in schema:
            return f"{class_name(name)} = {self.bare(schema)}\n"
        if schema.get("type") != "object":
            raise ValueError(f"schema {name!r} is neither an object nor an enum")
        return self.model(name, schema)

    def model(self, name: str, schema: dict) -> str:
        extra = schema.get("additionalProperties", True)
        if isinstance(extra, dict):
            raise TypeError(f"{name}: typed additionalProperties on a model is not supported")
        required = set(schema.get("required", []))
        fields, aliased = [], False
        for prop, sub in schema.get("properties", {}).items():
            fields.append(self.field(name, prop, sub, prop in required))
            aliased |= python_name(prop) != prop
        config = [] if extra is False else ['extra="allow"']  # schema leaves extras open
        if aliased:
            config.append("serialize_by_alias=True")
        lines = [f"class {class_name(name)}(ClosedModel):"]
        doc = one_line((schema.get("description") or "").split("\n\n")[0])
        if doc and '"' not in doc and "\\" not in doc:
            lines.append(f'    """{doc}"""\n')
        if config:
            self.imports.add("ConfigDict")
            lines.append(f"    model_config = ConfigDict({', '.join(config)})\n")
        lines += fields or ["    pass"]
        return "\n".join(lines) + "\n"

    def field(self, owner: str, prop: str, schema: dict, required: bool) -> str:
        attr = python_name(prop)
        if prop == "kind" and "const" in schema:  # the discriminator: fixed, with a default
            self.imports.add("Literal")
            return f"    kind: Literal[{literal(schema['const'])}] = {literal(schema['const'])}"
        type_ = self.bare(schema)
        default = None  # the code for the default, or None when the field is required
        if required:
            pass
        elif "default" in schema:
            default = literal(schema["default"])
        elif is_nullable(schema) or type_ == "Any":  # {} accepts null too
            default = "None"
        elif schema.get("type") in ("array", "object"):
            default = f"default_factory={'list' if schema['type'] == 'array' else 'dict'}"
        elif "$ref" in schema and not self.target(schema["$ref"]).get("required"):
            default = f"default_factory={type_}"  # every field of the object is optional
        else:
            raise ValueError(f"{owner}.{prop}: optional, no default, not nullable")
        kw = self.constraints(schema)
        if attr != prop:
            kw.append(f"alias={literal(prop)}")
        if description := one_line(schema.get("description")):
            kw.append(f"description={literal(description)}")
        if not kw and (default is None or not default.startswith("default_factory")):
            return f"    {attr}: {type_}" + ("" if default is None else f" = {default}")
        self.imports.add("Field")
        return call(f"{attr}: {type_} = Field", ([] if default is None else [default]) + kw)


def variants(schemas: dict, union: str) -> list[tuple[str, str]]:
    """(schema name, kind) for every member of a oneOf union, in order."""
    out = []
    for member in schemas[union]["oneOf"]:
        name = member["$ref"].rsplit("/", 1)[-1]
        kind = schemas[name].get("properties", {}).get("kind", {}).get("const")
        if kind != class_name(name) or "kind" not in schemas[name].get("required", []):
            raise ValueError(f"{name}: expected a required 'kind' const {class_name(name)!r}")
        out.append((name, kind))
    return out


# The generated modules, each ≤ ~450 lines: the shared objects, one per union, and an index.
OBJECTS = "tool_objects.py"
INDEX = "tools.py"
GROUP_FILES = {"Action": "tool_actions.py", "Observation": "tool_observations.py"}
HEADER = [
    "# Generated by scripts/gen_tool_models.py from",
    "# ../shared/samples/openhands/openapi/openhands-cloud.openapi.json -- do not edit by hand.",
    "# Re-run `python scripts/gen_tool_models.py` after the OpenAPI file changes.",
]
DOCS = {
    OBJECTS: "Objects the tool actions and observations refer to (task items, file changes, ...).",
    "Action": "The tool Action models of the agent service, one per tool, tagged by ``kind``.",
    "Observation": "The tool Observation models of the agent service, tagged by ``kind``.",
}
INDEX_DOC = (
    '"""Tool Action and Observation unions of the agent service, discriminated by ``kind``.\n\n'
    "The models are generated into ``tool_actions``, ``tool_observations`` and the objects they\n"
    'share, ``tool_objects``; this index is what the event models import.\n"""'
)
TYPING_NAMES = {"Annotated", "Any", "Literal"}
PYDANTIC_NAMES = {"AfterValidator", "ConfigDict", "Field"}


def names_in(code: str) -> set[str]:
    """The identifiers a block of code uses (never words inside its strings or comments)."""
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    return {tok.string for tok in tokens if tok.type == tokenize.NAME}


def import_line(module: str, names: list[str]) -> str:
    """``from module import names`` as ``ruff format`` lays it out (exploded when too long)."""
    line = f"from {module} import {', '.join(names)}"
    if len(line) <= LINE_LENGTH:
        return line
    return f"from {module} import (\n" + "".join(f"    {n},\n" for n in names) + ")"


def module_source(doc: str, blocks: list[str], own: set[str], shared: set[str]) -> str:
    """A generated module: header, the imports its blocks use, the blocks 2 blank lines apart."""
    used = names_in("\n".join(blocks)) - own
    head = [*HEADER, f'"""{doc}"""', "", "from __future__ import annotations", ""]
    if typing_names := sorted(used & TYPING_NAMES):
        head += [import_line("typing", typing_names), ""]
    if pydantic_names := sorted(used & PYDANTIC_NAMES):
        head += [import_line("pydantic", pydantic_names), ""]
    local = [(".base", sorted(used & {"ClosedModel"}))]
    local.append((".content", sorted(used & (EXISTING | {"Content"}))))
    local.append((".tool_objects", sorted(used & shared)))
    head += [import_line(module, names) for module, names in local if names]
    return "\n\n\n".join(block.rstrip("\n") for block in ["\n".join(head), *blocks]) + "\n"


def render(spec: dict) -> dict[str, str]:
    """Each generated module's source by file name, laid out so ``ruff format`` leaves it be."""
    gen = Generator(spec)
    groups = {label: variants(gen.schemas, union) for label, union in UNIONS.items()}
    bodies = {label: [gen.model(n, gen.schemas[n]) for n, _ in g] for label, g in groups.items()}
    names = [class_name(n) for n in [*gen.nested, *(n for g in groups.values() for n, _ in g)]]
    taken = EXISTING | {"Content", *UNIONS}
    clashes = {n for n in names if names.count(n) > 1 or n in taken}
    if clashes:
        raise ValueError(f"generated names clash: {sorted(clashes)}")

    shared = {class_name(n) for n in gen.nested} | ({"unique_items"} if gen.needs_unique else set())
    objects = [UNIQUE_HELPER.strip("\n")] * gen.needs_unique + list(gen.nested.values())
    out = {OBJECTS: module_source(DOCS[OBJECTS], objects, shared, set())}
    exports = []
    for label, group in groups.items():
        table = f"{label.upper()}_CLASSES"
        members = "\n    | ".join(class_name(n) for n, _ in group)
        classes = "".join(f"    {literal(k)}: {class_name(n)},\n" for n, k in group)
        union = (
            f'{label} = Annotated[\n    {members},\n    Field(discriminator="kind"),\n]\n'
            f"{table}: dict[str, type[ClosedModel]] = {{\n{classes}}}"
        )
        blocks = [*bodies[label], union]
        own = {class_name(n) for n, _ in group} | {label, table}
        out[GROUP_FILES[label]] = module_source(DOCS[label], blocks, own, shared)
        module = "." + GROUP_FILES[label].removesuffix(".py")
        exports.append((module, [table, label]))
    index = [*HEADER, INDEX_DOC, ""]
    index += [import_line(module, names) for module, names in exports]
    constants, unions = ([n for _, ns in exports for n in ns if n.isupper() == up] for up in (1, 0))
    listed = ", ".join(literal(n) for n in constants + unions)  # ruff's __all__ order
    out[INDEX] = "\n".join(index) + f"\n\n__all__ = [{listed}]\n"
    return out


def ruff_format(source: str, name: str) -> str:
    """Run ``ruff format`` (project config) if installed; a no-op on ``render``'s output."""
    if importlib.util.find_spec("ruff") is not None:
        cmd = [sys.executable, "-m", "ruff"]
    elif shutil.which("ruff"):
        cmd = ["ruff"]
    else:
        print("gen_tool_models: ruff not installed, output left unformatted", file=sys.stderr)
        return source
    cmd += ["format", "--quiet", "--stdin-filename", str(OUTPUT / name), "-"]
    done = subprocess.run(cmd, input=source, capture_output=True, text=True, cwd=REPO, check=True)
    return done.stdout


def load_spec(path: Path = OPENAPI) -> dict:
    if not path.is_file():
        raise SystemExit(f"gen_tool_models: OpenAPI file not found: {path}")
    return json.loads(path.read_text(encoding="utf-8"))


def generate(path: Path = OPENAPI) -> dict[str, str]:
    """The full, formatted text of each generated module in tui/models, by file name."""
    return {name: ruff_format(text, name) for name, text in render(load_spec(path)).items()}


def main(argv: list[str]) -> int:
    stale = 0
    for name, text in generate().items():
        path = OUTPUT / name
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        shown = path.relative_to(REPO)
        if "--check" in argv:
            stale += current != text
            print(f"{shown} is {'up to date' if current == text else 'STALE'}")
            continue
        if current != text:
            path.write_text(text, encoding="utf-8")
        print(f"{shown} {'unchanged' if current == text else 'written'}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
