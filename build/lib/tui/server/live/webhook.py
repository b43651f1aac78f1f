"""The app server's stored copy of a live conversation's events, as the agent server's
webhook fills it: in batches, late (facts §1b).

The real agent server posts its events to the app server's webhook five at a time, and
the rest after 30 s idle, so the app server's history (``/api/v1/conversation/{id}/
events/…``) can lag the sandbox's own log and socket by up to a batch: a conversation
reopened just after its run ended lacks its last events there. Here the two copies are
one table: the app-server routes read only up to the log position the webhook has
delivered (``upto_seq``). Off by default (the copy is whole at once); ``batch=N`` turns it
on; :meth:`WebhookCopy.flush` is the idle flush (tests call
``LiveHub.flush_webhook_sync``).
"""

from __future__ import annotations


class WebhookCopy:
    """How far each live conversation's stored copy reaches (see the module doc)."""

    def __init__(self, batch: int | None = None) -> None:
        if batch is not None and batch < 1:
            raise ValueError("the webhook's batch must be at least 1 event")
        self.batch = batch
        self._stored: dict[str, int] = {}  # conversation -> last log position delivered

    def track(self, conversation_id: str, last_seq: int) -> None:
        """A conversation goes live: what it has logged so far is stored."""
        if self.batch is not None:
            self._stored.setdefault(conversation_id, last_seq)

    def posted(self, conversation_id: str, last_seq: int) -> None:
        """The agent logged up to ``last_seq``: whole batches reach the stored copy."""
        stored = self._stored.get(conversation_id)
        if stored is None or self.batch is None:
            return
        self._stored[conversation_id] = stored + (last_seq - stored) // self.batch * self.batch

    def flush(self, conversation_id: str, last_seq: int) -> None:
        """The idle flush: the rest is stored."""
        if conversation_id in self._stored:
            self._stored[conversation_id] = last_seq

    def upto(self, conversation_id: str) -> int | None:
        """The last log position the app server has stored (None: all of it)."""
        return self._stored.get(conversation_id)


__all__ = ["WebhookCopy"]
