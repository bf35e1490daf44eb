"""UnicornFit's five intents: start, pause, resume, end and cancel a workout. A user has at most one
ongoing workout; the others act on it, and a name, when given, must be its name."""
from google.protobuf import wrappers_pb2
from intentmesh.workouts.v1 import workouts_pb2 as w

from . import sessions
from .catalog import normalized
from .intents import Answer, IntentHandler, finite_positive
from .results import (
    Parameter,
    case_name,
    confirmation_required,
    disambiguation,
    enum_value,
    needs_value,
    not_required,
    success,
    unsupported,
)
from .keypaths import number_text
from .views import workout_card, workout_summary

SPEAKABLE = "intentmesh.v1.SpeakableString"
UNITS = w.WorkoutGoalUnitType.DESCRIPTOR
LOCATIONS = w.WorkoutLocationType.DESCRIPTOR


class WorkoutNameResolution:
    """The workoutName parameter, shared by the five intents."""

    def __init__(self, catalog):
        self.catalog = catalog

    def resolve(self, spoken, context, database, required):
        if not spoken.spoken_phrase.strip():
            return [needs_value("Which workout?")] if required else [not_required()]
        workouts = self.catalog.workouts_of(context.user_id, database)
        if spoken.vocabulary_identifier:
            chosen = [workout for workout in workouts if workout.identifier == spoken.vocabulary_identifier]
            if chosen:
                return [success(chosen[0].speakable(), chosen[0].name)]
        found = self.catalog.match(spoken.spoken_phrase, workouts)
        if len(found.exact) == 1:
            return [success(found.exact[0].speakable(), found.exact[0].name)]
        if len(found.exact) > 1 or len(found.partial) > 1:
            options = found.exact or found.partial
            return [disambiguation([(o.speakable(), o.name) for o in options], "Which workout?")]
        if len(found.partial) == 1:
            guess = found.partial[0]
            return [confirmation_required(guess.speakable(), guess.name, f"Did you mean {guess.name}?")]
        return [unsupported("unknownWorkout", f"UnicornFit has no workout called “{spoken.spoken_phrase}”")]

    def workout(self, spoken, context, database):
        """The workout a resolved name names, or None."""
        workouts = self.catalog.workouts_of(context.user_id, database)
        if spoken.vocabulary_identifier:
            for workout in workouts:
                if workout.identifier == spoken.vocabulary_identifier:
                    return workout
        found = self.catalog.match(spoken.spoken_phrase, workouts)
        return found.exact[0] if len(found.exact) == 1 else None


class StartWorkout(IntentHandler):
    intent_class = "INStartWorkoutIntent"
    payload_type = w.StartWorkoutIntent
    response_type = w.StartWorkoutIntentResponse
    parameters = (
        Parameter("workoutName", SPEAKABLE, "Workout", "Which workout?"),
        Parameter("goalValue", "google.protobuf.DoubleValue", "Goal"),
        Parameter("workoutGoalUnitType", "google.protobuf.Int32Value", "Unit", "In what unit is the goal?"),
        Parameter("workoutLocationType", "google.protobuf.Int32Value", "Where"),
        Parameter("isOpenEnded", "google.protobuf.BoolValue", "Open"),
    )
    resolvers = {
        "workoutName": "resolve_name",
        "goalValue": "resolve_goal",
        "workoutGoalUnitType": "resolve_unit",
        "workoutLocationType": "resolve_location",
        "isOpenEnded": "resolve_open_ended",
    }
    Code = w.StartWorkoutIntentResponse

    def __init__(self, catalog):
        self.names = WorkoutNameResolution(catalog)

    def view_parameters(self):
        return super().view_parameters() + [(self.intent_class + "Response", "workout")]

    @staticmethod
    def _open_ended(intent):
        """No goal, or the user said so: an open workout, which has no goal."""
        return not intent.HasField("goal_value") or (intent.HasField("is_open_ended") and intent.is_open_ended.value)

    def resolve_name(self, intent, context, database):
        return self.names.resolve(intent.workout_name, context, database, required=True)

    def resolve_goal(self, intent, context, database):
        if self._open_ended(intent):
            return [not_required()]
        if not finite_positive(intent.goal_value.value):
            return [unsupported("invalidGoal", "a goal must be a number above zero")]
        return [success(wrappers_pb2.DoubleValue(value=intent.goal_value.value), number_text(intent.goal_value.value))]

    def resolve_unit(self, intent, context, database):
        if self._open_ended(intent):
            return [not_required()]
        unit = intent.workout_goal_unit_type
        if unit == w.WORKOUT_GOAL_UNIT_TYPE_UNSPECIFIED:
            return [needs_value("In what unit is the goal?")]
        if unit not in UNITS.values_by_number:
            return [unsupported("unknownUnit", f"{unit} is not a goal unit")]
        return [success(enum_value(unit), case_name(UNITS, unit))]

    def resolve_location(self, intent, context, database):
        location = intent.workout_location_type
        if location == w.WORKOUT_LOCATION_TYPE_UNSPECIFIED:
            return [not_required()]
        if location not in LOCATIONS.values_by_number:
            return [unsupported("unknownLocation", f"{location} is not a workout location")]
        return [success(enum_value(location), case_name(LOCATIONS, location))]

    def resolve_open_ended(self, intent, context, database):
        open_ended = self._open_ended(intent)
        return [success(wrappers_pb2.BoolValue(value=open_ended), "yes" if open_ended else "no")]

    def _plan(self, intent, context, database):
        """The workout to start, or the refusal."""
        workout = self.names.workout(intent.workout_name, context, database)
        if workout is None:
            return None, Answer(self.Code(code=self.Code.CODE_FAILURE_NO_MATCHING_WORKOUT), {"error": "no such workout"})
        current = sessions.ongoing(context.user_id, database)
        if current is not None:
            return None, Answer(
                self.Code(
                    code=self.Code.CODE_FAILURE_ONGOING_WORKOUT, workout=sessions.as_message(current, context.now_ms)
                ),
                {"error": f"{current['name']} is still going: end it first"},
            )
        open_ended = self._open_ended(intent)
        if not open_ended and (
            not finite_positive(intent.goal_value.value)
            or intent.workout_goal_unit_type not in UNITS.values_by_number
            or intent.workout_goal_unit_type == w.WORKOUT_GOAL_UNIT_TYPE_UNSPECIFIED
        ):
            return None, Answer(self.Code(code=self.Code.CODE_FAILURE), {"error": "the goal needs a value above zero and a unit"})
        return (workout, open_ended), None

    def confirm(self, intent, context, database):
        plan, refusal = self._plan(intent, context, database)
        if refusal:
            return refusal
        workout, open_ended = plan
        preview = w.Workout(
            workout_name=workout.speakable(),
            workout_goal_unit_type=0 if open_ended else intent.workout_goal_unit_type,
            workout_location_type=intent.workout_location_type,
            is_open_ended=open_ended,
        )
        if not open_ended:
            preview.goal_value.value = intent.goal_value.value
        return Answer(self.Code(code=self.Code.CODE_READY, workout=preview))

    def handle(self, intent, context, database):
        plan, refusal = self._plan(intent, context, database)
        if refusal:
            return refusal
        workout, open_ended = plan
        row = sessions.start(
            context.user_id,
            workout,
            None if open_ended else intent.goal_value.value,
            0 if open_ended else intent.workout_goal_unit_type,
            intent.workout_location_type if intent.workout_location_type in LOCATIONS.values_by_number else 0,
            open_ended,
            context.now_ms,
            database,
        )
        return Answer(self.Code(code=self.Code.CODE_SUCCESS, workout=sessions.as_message(row, context.now_ms)))

    def configure_view(self, asked, intent, response, status, context):
        return workout_card(self.intent_class, asked, response)

    def display(self, parameter, intent, response):
        return workout_summary(self.intent_class, parameter, intent, response)


class ChangeWorkout(IntentHandler):
    """Pause, resume, end and cancel: the user's ongoing workout in one of `from_states` moves to
    `to_state`. Without a name, the ongoing workout; with one, it must be the ongoing workout's."""

    from_states = ()
    to_state = 0
    wrong_state = ""

    def __init__(self, catalog):
        self.names = WorkoutNameResolution(catalog)

    parameters = (Parameter("workoutName", SPEAKABLE, "Workout", "Which workout?"),)
    resolvers = {"workoutName": "resolve_name"}

    def view_parameters(self):
        return super().view_parameters() + [(self.intent_class + "Response", "workout")]

    def resolve_name(self, intent, context, database):
        return self.names.resolve(intent.workout_name, context, database, required=False)

    def _target(self, intent, context, database):
        Code = self.response_type
        current = sessions.ongoing(context.user_id, database)
        if current is None:
            return None, Answer(Code(code=Code.CODE_FAILURE_NO_MATCHING_WORKOUT), {"error": "no workout is going"})
        named = intent.workout_name
        if named.spoken_phrase.strip() or named.vocabulary_identifier:
            same = (named.vocabulary_identifier and named.vocabulary_identifier == current["vocabulary_identifier"]) or (
                normalized(named.spoken_phrase) == normalized(current["name"])
            )
            if not same:
                workout = self.names.workout(named, context, database)
                same = workout is not None and workout.identifier == current["vocabulary_identifier"]
            if not same:
                return None, Answer(
                    Code(code=Code.CODE_FAILURE_NO_MATCHING_WORKOUT),
                    {"error": f"the workout going is {current['name']}, not {named.spoken_phrase}"},
                )
        if current["state"] not in self.from_states:
            return None, Answer(
                Code(code=Code.CODE_FAILURE, workout=sessions.as_message(current, context.now_ms)),
                {"error": f"{current['name']} is {self.wrong_state}"},
            )
        return current, None

    def confirm(self, intent, context, database):
        current, refusal = self._target(intent, context, database)
        if refusal:
            return refusal
        Code = self.response_type
        return Answer(Code(code=Code.CODE_READY, workout=sessions.as_message(current, context.now_ms)))

    def handle(self, intent, context, database):
        current, refusal = self._target(intent, context, database)
        if refusal:
            return refusal
        moved = sessions.move(current, self.to_state, context.now_ms, database)
        Code = self.response_type
        return Answer(Code(code=Code.CODE_SUCCESS, workout=sessions.as_message(moved, context.now_ms)))

    def configure_view(self, asked, intent, response, status, context):
        return workout_card(self.intent_class, asked, response)

    def display(self, parameter, intent, response):
        return workout_summary(self.intent_class, parameter, intent, response)


class PauseWorkout(ChangeWorkout):
    intent_class = "INPauseWorkoutIntent"
    payload_type = w.PauseWorkoutIntent
    response_type = w.PauseWorkoutIntentResponse
    from_states = (sessions.ACTIVE,)
    to_state = sessions.PAUSED
    wrong_state = "already paused"


class ResumeWorkout(ChangeWorkout):
    intent_class = "INResumeWorkoutIntent"
    payload_type = w.ResumeWorkoutIntent
    response_type = w.ResumeWorkoutIntentResponse
    from_states = (sessions.PAUSED,)
    to_state = sessions.ACTIVE
    wrong_state = "not paused"


class EndWorkout(ChangeWorkout):
    intent_class = "INEndWorkoutIntent"
    payload_type = w.EndWorkoutIntent
    response_type = w.EndWorkoutIntentResponse
    from_states = sessions.ONGOING
    to_state = sessions.ENDED


class CancelWorkout(ChangeWorkout):
    intent_class = "INCancelWorkoutIntent"
    payload_type = w.CancelWorkoutIntent
    response_type = w.CancelWorkoutIntentResponse
    from_states = sessions.ONGOING
    to_state = sessions.CANCELLED


def handlers(catalog):
    """Every intent UnicornFit handles, by class."""
    made = [StartWorkout(catalog), PauseWorkout(catalog), ResumeWorkout(catalog), EndWorkout(catalog), CancelWorkout(catalog)]
    return {handler.intent_class: handler for handler in made}

