"""The workout sessions of each user, in the store: at most one ongoing (active or paused) at a time."""
import uuid

from google.protobuf import timestamp_pb2, wrappers_pb2
from intentmesh.v1 import types_pb2
from intentmesh.workouts.v1 import workouts_pb2

ACTIVE = workouts_pb2.WORKOUT_STATE_ACTIVE
PAUSED = workouts_pb2.WORKOUT_STATE_PAUSED
ENDED = workouts_pb2.WORKOUT_STATE_ENDED
CANCELLED = workouts_pb2.WORKOUT_STATE_CANCELLED
ONGOING = (ACTIVE, PAUSED)


def _timestamp(ms):
    stamp = timestamp_pb2.Timestamp()
    stamp.FromMilliseconds(ms)
    return stamp


def as_message(row, now_ms):
    """The stored session as the contract's Workout, its active time counted up to `now_ms`."""
    active_ms = row["active_ms"]
    if row["state"] == ACTIVE and row["resumed_ms"] is not None:
        active_ms += max(0, now_ms - row["resumed_ms"])
    workout = workouts_pb2.Workout(
        identifier=row["identifier"],
        workout_name=types_pb2.SpeakableString(
            spoken_phrase=row["name"], vocabulary_identifier=row["vocabulary_identifier"]
        ),
        state=row["state"],
        workout_goal_unit_type=row["goal_unit"],
        workout_location_type=row["location"],
        is_open_ended=bool(row["open_ended"]),
        started_at=_timestamp(row["started_ms"]),
        active_seconds=active_ms / 1000.0,
    )
    if row["goal_value"] is not None:
        workout.goal_value.CopyFrom(wrappers_pb2.DoubleValue(value=row["goal_value"]))
    if row["finished_ms"] is not None:
        workout.finished_at.CopyFrom(_timestamp(row["finished_ms"]))
    return workout


def ongoing(user_id, database):
    """The user's active or paused session, if any."""
    return database.execute(
        "SELECT * FROM workouts WHERE user_id = ? AND state IN (?, ?) ORDER BY started_ms DESC LIMIT 1",
        (user_id, ACTIVE, PAUSED),
    ).fetchone()


def start(user_id, workout, goal_value, goal_unit, location, open_ended, now_ms, database):
    """A new active session of `workout` (a catalog.Workout); returns its row."""
    identifier = str(uuid.uuid4())
    database.execute(
        "INSERT INTO workouts (identifier, user_id, name, vocabulary_identifier, state, goal_value, goal_unit,"
        " location, open_ended, started_ms, finished_ms, active_ms, resumed_ms)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 0, ?)",
        (identifier, user_id, workout.name, workout.identifier, ACTIVE, goal_value, goal_unit, location,
         int(open_ended), now_ms, now_ms),
    )
    return by_identifier(identifier, database)


def by_identifier(identifier, database):
    return database.execute("SELECT * FROM workouts WHERE identifier = ?", (identifier,)).fetchone()


def move(row, state, now_ms, database):
    """Moves a session to `state`, counting the active time it had; returns the new row."""
    active_ms = row["active_ms"]
    if row["state"] == ACTIVE and row["resumed_ms"] is not None:
        active_ms += max(0, now_ms - row["resumed_ms"])
    resumed_ms = now_ms if state == ACTIVE else None
    finished_ms = now_ms if state in (ENDED, CANCELLED) else None
    database.execute(
        "UPDATE workouts SET state = ?, active_ms = ?, resumed_ms = ?, finished_ms = ? WHERE identifier = ?",
        (state, active_ms, resumed_ms, finished_ms, row["identifier"]),
    )
    return by_identifier(row["identifier"], database)


def listed(user_id, states, limit, database):
    """The user's sessions, newest first."""
    query = "SELECT * FROM workouts WHERE user_id = ?"
    arguments = [user_id]
    if states:
        query += f" AND state IN ({', '.join('?' for _ in states)})"
        arguments += list(states)
    query += " ORDER BY started_ms DESC, identifier LIMIT ?"
    return database.execute(query, arguments + [limit]).fetchall()
