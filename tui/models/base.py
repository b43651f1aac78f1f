"""Base classes: closed models for the event schema, open records for the control plane.

Events are closed (``extra="forbid"``) because the service declares them so and a strict
client notices schema drift; control-plane records are open because new server fields
must never break the client.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ClosedModel(BaseModel):
    """A schema object that rejects unknown fields, like the SDK's own models."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class OpenRecord(BaseModel):
    """A control-plane record: unknown fields are kept, not rejected."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
