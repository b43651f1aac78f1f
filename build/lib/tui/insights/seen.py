"""Which event ids were read already, in 16–32 bytes an id (a set of strings takes ~150).

Events are counted once per id (a local folder can hold one event twice), which takes
remembering every id of the walk: the only memory insights keep that grows with the log.
An open-addressing table of the ids' 64-bit hashes in one ``array`` keeps that small. Two
distinct ids with one hash would count as one event: with 64 bits that takes billions of
events (the hash is Python's own, randomised per run).
"""

from __future__ import annotations

from array import array

_START = 1 << 12


class SeenIds:
    def __init__(self) -> None:
        self._slots = array("q", bytes(8 * _START))
        self._mask = _START - 1
        self.count = 0

    def add(self, key: str) -> bool:
        """Remember ``key``; False when it was already there."""
        code = hash(key) or 1  # 0 marks an empty slot
        slots, mask = self._slots, self._mask
        index = code & mask
        while True:
            found = slots[index]
            if found == 0:
                break
            if found == code:
                return False
            index = (index + 1) & mask
        slots[index] = code
        self.count += 1
        if 2 * self.count > mask:  # at most half full: probes stay short
            self._grow()
        return True

    def _grow(self) -> None:
        old = self._slots
        size = 2 * len(old)
        slots = array("q", bytes(8 * size))
        mask = size - 1
        for code in old:
            if code:
                index = code & mask
                while slots[index]:
                    index = (index + 1) & mask
                slots[index] = code
        self._slots, self._mask = slots, mask

    @property
    def nbytes(self) -> int:
        return len(self._slots) * self._slots.itemsize
