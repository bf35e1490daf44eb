"""UnicornFit's Intents UI: once an intent has a workout in its response, the app draws it as one
card (name, state, goal, active time) on the first step of the view sequence, and claims the
parameters the card shows; the host draws the rest."""
from intentmesh.v1 import view_pb2
from intentmesh.workouts.v1 import workouts_pb2 as w

from .intents import DECLINED, ViewConfiguration
from .keypaths import number_text
from .results import case_name

STATES = w.WorkoutState.DESCRIPTOR
UNITS = w.WorkoutGoalUnitType.DESCRIPTOR


def _text(text, role="", key_path=""):
    return view_pb2.ViewNode(text=view_pb2.ViewNode.Text(text=text), role=role, parameter_key_path=key_path)


def _row(label, value, key_path=""):
    return view_pb2.ViewNode(row=view_pb2.ViewNode.Row(label=label, value=value), parameter_key_path=key_path)


def active_time(seconds):
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


def workout_card(intent_class, asked, response):
    """The card of the response's workout on the first (empty) step; declined otherwise."""
    if asked or response is None or not response.HasField("workout"):
        return DECLINED
    workout = response.workout
    children = [
        _text(workout.workout_name.spoken_phrase, "title", "workout.workoutName"),
        _row("State", case_name(STATES, workout.state), "workout.state"),
    ]
    if workout.HasField("goal_value"):
        unit = case_name(UNITS, workout.workout_goal_unit_type)
        children.append(_row("Goal", f"{number_text(workout.goal_value.value)} {unit}", "workout.goalValue"))
    else:
        children.append(_row("Goal", "open", "workout.isOpenEnded"))
    if workout.identifier:
        children.append(_row("Active", active_time(workout.active_seconds), "workout.activeSeconds"))
    view = view_pb2.View(
        kind="workout-card",
        root=view_pb2.ViewNode(
            stack=view_pb2.ViewNode.Stack(axis=view_pb2.ViewNode.Stack.AXIS_VERTICAL, children=children)
        ),
    )
    claimed = [
        view_pb2.Parameter(parameter_class=intent_class, key_path="workoutName"),
        view_pb2.Parameter(parameter_class=intent_class + "Response", key_path="workout"),
    ]
    return ViewConfiguration(configured=True, parameters=claimed, view=view, width=320, height=44 + 28 * len(children))


def workout_summary(intent_class, parameter, intent, response):
    """"Colorlicious (paused)" for the response's workout; the workout's name for an intent that
    named none; None for the rest (read by key path)."""
    has_workout = response is not None and response.HasField("workout")
    if parameter.parameter_class == intent_class + "Response" and parameter.key_path == "workout" and has_workout:
        workout = response.workout
        return f"{workout.workout_name.spoken_phrase} ({case_name(STATES, workout.state)})"
    if parameter.parameter_class == intent_class and parameter.key_path == "workoutName" and has_workout:
        return intent.workout_name.spoken_phrase or response.workout.workout_name.spoken_phrase
    return None
