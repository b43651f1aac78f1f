"""Ids in the real formats (dashed uuid4, 32-hex, call and response ids, sandbox ids and
keys), drawn from one RNG so a seeded run is reproducible."""

from __future__ import annotations

import random
import string

_BASE62 = string.digits + string.ascii_letters


class SeededIds:
    """Ids in the real formats, drawn from one RNG."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def uuid(self) -> str:
        """A dashed uuid4-shaped id (version and variant bits set like ``uuid.uuid4``)."""
        n = self.rng.getrandbits(128)
        n = (n & ~(0xF000 << 64)) | (0x4000 << 64)
        n = (n & ~(0xC000 << 48)) | (0x8000 << 48)
        h = f"{n:032x}"
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def hex32(self) -> str:
        """A conversation / start-task id: uuid4 as 32 hex digits (``OpenHandsUUID``)."""
        return self.uuid().replace("-", "")

    def call_id(self) -> str:
        return f"call_{self.rng.getrandbits(48):012x}"

    def response_id(self) -> str:
        return f"chatcmpl-{self.rng.getrandbits(64):016x}"

    def base62(self, length: int) -> str:
        return "".join(self.rng.choice(_BASE62) for _ in range(length))

    def sandbox_id(self) -> str:
        """Docker sandboxes are named ``oh-agent-server-<base62>`` (facts §3)."""
        return "oh-agent-server-" + self.base62(22)

    def session_key(self) -> str:
        return self.base62(30)
