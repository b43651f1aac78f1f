"""Did pydantic's one-pass reader let through a number a float cannot hold?

pydantic reads ``1e400`` as ``inf`` and accepts ``NaN``/``Infinity`` literals; dumped again
they become ``null``. Float fields refuse them (``allow_inf_nan=False`` on the event
models), so only free-form data (``Any`` fields, ``dict[str, Any]``, extra fields of open
tool records) can still hold one. After a fast read, :func:`has_odd_number` looks at
exactly those parts of a typed event — a per-class plan computed once — instead of
scanning the text: most events have no such part and cost one dictionary lookup.
"""

from __future__ import annotations

import typing
from typing import Any

from pydantic import BaseModel

_WALK, _MODEL = 1, 2
_HUGE_INT = 10**4000
_PLANS: dict[type, tuple[tuple[str, int], ...]] = {}


def _parts(annotation: Any, found: set[type], depth: int = 0) -> bool:
    """Collect the model classes a field of this type may hold into ``found``; True when it
    may also hold free data (``Any``, bare containers)."""
    if depth > 20 or annotation is Any or annotation is object:
        return True
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            found.add(annotation)
            return False
        return annotation in (dict, list, tuple, set, frozenset)
    origin = typing.get_origin(annotation)
    if origin is None or origin is typing.Literal:
        return False
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        args = args[:1]
    free = False
    for arg in args:
        if isinstance(arg, type) or typing.get_origin(arg) is not None or arg is Any:
            free = _parts(arg, found, depth + 1) or free
    return free


def _plan(cls: type) -> tuple[tuple[str, int], ...]:
    """The fields of ``cls`` worth looking at: free data (``_WALK``), or models that can hold
    some (``_MODEL``). Models that cannot (text blocks, tool calls…) are left out."""
    plan = _PLANS.get(cls)
    if plan is not None:
        return plan
    _PLANS[cls] = ()  # provisional: a model that contains itself adds nothing by that
    entries = []
    for name, info in getattr(cls, "model_fields", {}).items():
        classes: set[type] = set()
        if _parts(info.annotation, classes):
            entries.append((name, _WALK))
        elif any(_holds_data(c) for c in classes):
            entries.append((name, _MODEL))
    plan = _PLANS[cls] = tuple(entries)
    return plan


def _holds_data(cls: type) -> bool:
    return bool(_plan(cls)) or cls.model_config.get("extra") == "allow"


def _odd_data(value: Any) -> bool:
    """Free data: a non-finite float or a giant integer anywhere in it (iterative; strings,
    the usual leaves, cost one type check)."""
    stack = [value]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is dict:
            values: Any = node.values()
        elif kind is list or kind is tuple:
            values = node
        else:
            values = (node,)
        for item in values:
            kind = type(item)
            if kind is str:
                continue
            if kind is dict or kind is list or kind is tuple:
                stack.append(item)
            elif kind is float:
                if item - item:  # inf and nan give nan
                    return True
            elif kind is int:
                if item > _HUGE_INT or item < -_HUGE_INT:
                    return True
            elif isinstance(item, BaseModel) and has_odd_number(item):
                return True
    return False


def has_odd_number(model: BaseModel) -> bool:
    """Does this typed model (an event, or a part of one) hold inf, nan or a giant integer
    in a part that pydantic does not check? Iterative over nested models."""
    plans = _PLANS
    stack = [model]
    while stack:
        node = stack.pop()
        plan = plans.get(type(node))
        if plan is None:
            plan = _plan(type(node))
        extra = node.__pydantic_extra__
        if extra and _odd_data(extra):
            return True
        for name, flags in plan:
            value = getattr(node, name)
            if value is None:
                continue
            if flags == _WALK:
                if _odd_data(value):
                    return True
            elif isinstance(value, BaseModel):
                if plans.get(type(value)) or value.__pydantic_extra__ or type(value) not in plans:
                    stack.append(value)
            elif type(value) is list or type(value) is tuple:
                stack.extend(v for v in value if isinstance(v, BaseModel))
            elif type(value) is dict:
                stack.extend(v for v in value.values() if isinstance(v, BaseModel))
    return False


#: Per event class: None when it has nothing to look at, else the (name, flags) plan.
_TOP: dict[type, tuple[tuple[str, int], ...] | None] = {}


def _top(cls: type) -> tuple[tuple[str, int], ...] | None:
    plan = _plan(cls)
    found = _TOP[cls] = plan if plan or cls.model_config.get("extra") == "allow" else None
    return found


def any_odd_number(models: list[Any]) -> bool:
    """:func:`has_odd_number` over a page's events. Classes with nothing to look at cost one
    dictionary lookup; a field that is None (most optional parts) one attribute read."""
    top = _TOP
    for model in models:
        cls = type(model)
        plan = top[cls] if cls in top else _top(cls)
        if plan is None:
            continue
        if model.__pydantic_extra__:
            if has_odd_number(model):
                return True
            continue
        for name, flags in plan:
            value = getattr(model, name)
            if value is None:
                continue
            if flags == _WALK:
                if type(value) is not str and _odd_data(value):
                    return True
            elif isinstance(value, BaseModel):
                inner = type(value)
                worth = (top[inner] if inner in top else _top(inner)) is not None
                if (worth or value.__pydantic_extra__) and has_odd_number(value):
                    return True
            elif has_odd_number(model):
                return True
    return False
