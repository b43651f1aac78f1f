"""Base classes: closed models for the event schema, open records for the control plane.

Events are closed (``extra="forbid"``) because the service declares them so and a strict
client notices schema drift; control-plane records are open because new server fields
must never break the client.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ClosedModel(BaseModel):
    """A schema object that rejects unknown fields, like the SDK's own models.

    Float fields refuse inf and nan (JSON's ``1e400``, ``NaN``): such an event is kept raw,
    as sent, rather than typed with a value that would be written back as ``null``."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True, allow_inf_nan=False
    )


class OpenRecord(BaseModel):
    """A control-plane record: unknown fields are kept, not rejected."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
