"""One least-recently-used cache for every bounded cache in ``tui``: the app's drawn lines,
insights and full events, the reference server's event bodies.

Why one, here at the bottom floor: hand-written copies drifted (one was first-in first-out
while its docstring said least recently used), and the server, which may import only the
models and this floor, needs the same thing as the app. Bounded by count and, optionally,
by a total weight (bytes, characters) that ``weigh`` gives each value when it is stored.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar, overload

K = TypeVar("K")
V = TypeVar("V")
D = TypeVar("D")


class LRU(Generic[K, V]):
    """At most ``max_items`` values and, with ``weigh``, at most ``max_weight`` in total;
    the least recently used (read or stored) go first. The newest value always stays, even
    when it alone weighs more than ``max_weight``: callers that must not keep such a value
    check before they store it."""

    def __init__(
        self,
        max_items: int,
        *,
        max_weight: int | None = None,
        weigh: Callable[[V], int] | None = None,
    ) -> None:
        if max_items < 1:
            raise ValueError("an LRU holds at least one value")
        self.max_items = max_items
        self.max_weight = max_weight
        self._weigh = weigh
        #: the total weight of what is held (0 without ``weigh``)
        self.weight = 0
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[K]:
        """Keys, least recently used first."""
        return iter(self._items)

    @overload
    def get(self, key: K) -> V | None: ...
    @overload
    def get(self, key: K, default: D) -> V | D: ...
    def get(self, key: K, default: object = None) -> object:
        """The value of ``key`` (now the most recently used), else ``default``."""
        found = self._items.get(key)
        if found is None:
            return default
        self._items.move_to_end(key)
        return found[0]

    def weight_of(self, key: K) -> int | None:
        """The weight ``key``'s value was stored with (None: not held); not a use."""
        found = self._items.get(key)
        return None if found is None else found[1]

    def set(self, key: K, value: V, weight: int | None = None) -> None:
        """Keep ``value`` (replacing an earlier one); ``weight`` when the caller weighed it
        already. Then drop the least recently used while over a bound."""
        if weight is None:
            weight = self._weigh(value) if self._weigh is not None else 0
        self.discard(key)
        self._items[key] = (value, weight)
        self.weight += weight
        items = self._items
        while len(items) > 1 and (
            len(items) > self.max_items
            or (self.max_weight is not None and self.weight > self.max_weight)
        ):
            _, (_, dropped) = items.popitem(last=False)
            self.weight -= dropped

    __setitem__ = set

    def discard(self, key: K) -> None:
        found = self._items.pop(key, None)
        if found is not None:
            self.weight -= found[1]

    def clear(self) -> None:
        self._items.clear()
        self.weight = 0
