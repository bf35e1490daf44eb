"""The ledger of handled intents: each (user, intent identifier) Handle's answer, stored in the same
transaction as its effect, so a retried Handle is answered from here and takes no second effect."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    intent_class: str
    payload: bytes
    response: bytes


def entry(user_id, identifier, database):
    """The earlier Handle of `identifier` by `user_id`, or None."""
    row = database.execute(
        "SELECT intent_class, payload, response FROM handled_intents WHERE user_id = ? AND identifier = ?",
        (user_id, identifier),
    ).fetchone()
    return Entry(row["intent_class"], row["payload"], row["response"]) if row is not None else None


def record(user_id, identifier, handled, at_ms, database):
    """Stores `handled` (an Entry) for the user's identifier; the caller's transaction commits it."""
    database.execute(
        "INSERT INTO handled_intents (user_id, identifier, intent_class, payload, response, handled_ms)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (user_id, identifier, handled.intent_class, handled.payload, handled.response, at_ms),
    )
