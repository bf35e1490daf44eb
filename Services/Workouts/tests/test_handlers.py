"""The five intent handlers against a real SQLite store, with a fixed clock in the context."""
import math

import grpc
import pytest
from google.protobuf import wrappers_pb2
from intentmesh.v1 import types_pb2
from intentmesh.workouts.v1 import workouts_pb2 as w

from conftest import ALICE, BOB, NOW_MS, context, workouts_in
from unicornfit.errors import Refusal

START, PAUSE, RESUME, END, CANCEL = (
    "INStartWorkoutIntent", "INPauseWorkoutIntent", "INResumeWorkoutIntent", "INEndWorkoutIntent",
    "INCancelWorkoutIntent",
)
MINUTE = w.WORKOUT_GOAL_UNIT_TYPE_MINUTE
OUTDOOR = w.WORKOUT_LOCATION_TYPE_OUTDOOR


def named(phrase="", identifier=""):
    return types_pb2.SpeakableString(spoken_phrase=phrase, vocabulary_identifier=identifier)


def start_intent(name="Colorlicious", goal=None, unit=0, location=0, open_ended=None):
    made = w.StartWorkoutIntent(workout_name=named(name), workout_goal_unit_type=unit, workout_location_type=location)
    if goal is not None:
        made.goal_value.value = goal
    if open_ended is not None:
        made.is_open_ended.value = open_ended
    return made


def resolve(handler, intent, store, asked=(), ctx=None):
    return store.read(lambda db: handler.resolve(intent, list(asked), ctx or context(), db))


def by_parameter(resolved):
    """{parameter: (kind of its one result, the result)} of resolve's (resolutions, intent)."""
    resolutions, _ = resolved
    found = {}
    for resolution in resolutions:
        assert len(resolution.results) == 1
        result = resolution.results[0]
        found[resolution.parameter] = (result.WhichOneof("kind"), result)
    return found


def unpacked(resolved_value, message_type):
    value = message_type()
    assert resolved_value.value.Unpack(value)
    return value


def confirm(handler, intent, store, ctx=None):
    return store.read(lambda db: handler.confirm(intent, ctx or context(), db))


def handle(handler, intent, store, ctx=None):
    return store.write(lambda db: handler.handle(intent, ctx or context(), db))


# -- INStartWorkoutIntent: resolve ------------------------------------------------------------------


def test_start_name_needs_a_value_when_none_is_said(handlers, store):
    kind, result = by_parameter(resolve(handlers[START], start_intent(""), store, ["workoutName"]))["workoutName"]
    assert kind == "needs_value"
    assert result.needs_value.prompt == "Which workout?"


def test_start_name_by_pronunciation_resolves_with_its_vocabulary_identifier(handlers, store):
    kind, result = by_parameter(resolve(handlers[START], start_intent("colorlishus"), store))["workoutName"]
    assert kind == "success"
    assert unpacked(result.success.value, types_pb2.SpeakableString) == named("Colorlicious", "colorlicious")
    assert result.success.value.display_text == "Colorlicious"


def test_start_name_vocabulary_identifier_wins_over_the_phrase(handlers, store):
    intent = w.StartWorkoutIntent(workout_name=named("something else", "hoof-sprint"))
    kind, result = by_parameter(resolve(handlers[START], intent, store, ["workoutName"]))["workoutName"]
    assert kind == "success"
    assert unpacked(result.success.value, types_pb2.SpeakableString) == named("Hoof Sprint", "hoof-sprint")


def test_start_name_one_partial_match_asks_for_confirmation(handlers, store):
    kind, result = by_parameter(resolve(handlers[START], start_intent("hoof"), store))["workoutName"]
    assert kind == "confirmation_required"
    assert result.confirmation_required.prompt == "Did you mean Hoof Sprint?"
    assert unpacked(result.confirmation_required.value, types_pb2.SpeakableString) == named("Hoof Sprint", "hoof-sprint")


def test_start_name_several_matches_disambiguate(handlers, store):
    kind, result = by_parameter(resolve(handlers[START], start_intent("rainbow"), store))["workoutName"]
    assert kind == "disambiguation"
    assert result.disambiguation.prompt == "Which workout?"
    options = [unpacked(option, types_pb2.SpeakableString) for option in result.disambiguation.options]
    assert options == [named("Rainbow Run", "rainbow-run"), named("Rainbow Ride", "rainbow-ride")]
    assert [option.display_text for option in result.disambiguation.options] == ["Rainbow Run", "Rainbow Ride"]


def test_start_name_unknown_is_unsupported(handlers, store):
    kind, result = by_parameter(resolve(handlers[START], start_intent("zumba"), store))["workoutName"]
    assert kind == "unsupported"
    assert result.unsupported.reason.name == "unknownWorkout"
    assert result.unsupported.reason.message == "UnicornFit has no workout called “zumba”"


def test_start_open_ended_needs_no_goal_or_unit(handlers, store):
    found = by_parameter(resolve(handlers[START], start_intent("yoga"), store))
    assert {name: kind for name, (kind, _) in found.items()} == {
        "workoutName": "success",
        "goalValue": "not_required",
        "workoutGoalUnitType": "not_required",
        "workoutLocationType": "not_required",
        "isOpenEnded": "success",
    }
    _, open_ended = found["isOpenEnded"]
    assert unpacked(open_ended.success.value, wrappers_pb2.BoolValue).value is True
    assert open_ended.success.value.display_text == "yes"


def test_start_said_open_ended_drops_the_goal(handlers, store):
    found = by_parameter(resolve(handlers[START], start_intent("yoga", goal=30, unit=MINUTE, open_ended=True), store))
    assert (found["goalValue"][0], found["workoutGoalUnitType"][0]) == ("not_required", "not_required")


def test_start_goal_without_unit_asks_for_the_unit(handlers, store):
    found = by_parameter(resolve(handlers[START], start_intent("run", goal=30), store))
    kind, goal = found["goalValue"]
    assert kind == "success"
    assert unpacked(goal.success.value, wrappers_pb2.DoubleValue).value == 30.0
    assert goal.success.value.display_text == "30"
    kind, unit = found["workoutGoalUnitType"]
    assert kind == "needs_value"
    assert unit.needs_value.prompt == "In what unit is the goal?"
    assert unpacked(found["isOpenEnded"][1].success.value, wrappers_pb2.BoolValue).value is False


@pytest.mark.parametrize("goal", [0.0, -5.0, math.nan, math.inf])
def test_start_goal_must_be_a_finite_number_above_zero(handlers, store, goal):
    kind, result = by_parameter(resolve(handlers[START], start_intent("run", goal=goal, unit=MINUTE), store))["goalValue"]
    assert kind == "unsupported"
    assert (result.unsupported.reason.name, result.unsupported.reason.message) == (
        "invalidGoal", "a goal must be a number above zero")


def test_start_goal_display_keeps_every_digit(handlers, store):
    kind, result = by_parameter(resolve(
        handlers[START], start_intent("run", goal=1_000_000, unit=w.WORKOUT_GOAL_UNIT_TYPE_JOULE), store))["goalValue"]
    assert (kind, result.success.value.display_text) == ("success", "1000000")


def test_start_unit_and_location_resolve_to_their_case_names(handlers, store):
    found = by_parameter(resolve(handlers[START], start_intent("run", goal=5, unit=MINUTE, location=OUTDOOR), store))
    unit, location = found["workoutGoalUnitType"][1], found["workoutLocationType"][1]
    assert (unpacked(unit.success.value, wrappers_pb2.Int32Value).value, unit.success.value.display_text) == (
        MINUTE, "minute")
    assert (unpacked(location.success.value, wrappers_pb2.Int32Value).value, location.success.value.display_text) == (
        OUTDOOR, "outdoor")


def test_start_unknown_enum_numbers_are_unsupported(handlers, store):
    found = by_parameter(resolve(handlers[START], start_intent("run", goal=5, unit=77, location=9), store))
    assert found["workoutGoalUnitType"][1].unsupported.reason.name == "unknownUnit"
    assert found["workoutLocationType"][1].unsupported.reason.name == "unknownLocation"
    assert found["workoutLocationType"][1].unsupported.reason.message == "9 is not a workout location"


def test_start_resolved_intent_has_every_success_written_back(handlers, store):
    resolutions, resolved = resolve(
        handlers[START], start_intent("colorlishus", goal=30, unit=MINUTE, location=OUTDOOR), store)
    assert [r.parameter for r in resolutions] == [
        "workoutName", "goalValue", "workoutGoalUnitType", "workoutLocationType", "isOpenEnded"]
    expected = w.StartWorkoutIntent(
        workout_name=named("Colorlicious", "colorlicious"), workout_goal_unit_type=MINUTE, workout_location_type=OUTDOOR)
    expected.goal_value.value = 30
    expected.is_open_ended.value = False
    assert resolved == expected
    assert resolved.HasField("is_open_ended")


def test_start_resolve_only_the_asked_parameters(handlers, store):
    resolutions, _ = resolve(handlers[START], start_intent("run", goal=5, unit=MINUTE), store, ["isOpenEnded", "goalValue"])
    assert [r.parameter for r in resolutions] == ["goalValue", "isOpenEnded"]  # declared order


def test_start_resolve_of_an_undeclared_parameter_is_invalid_argument(handlers, store):
    with pytest.raises(Refusal) as caught:
        resolve(handlers[START], start_intent(), store, ["colour"])
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.message == (
        'INStartWorkoutIntent has no parameter "colour"; its parameters are: workoutName, goalValue,'
        " workoutGoalUnitType, workoutLocationType, isOpenEnded"
    )


# -- INStartWorkoutIntent: confirm and handle -------------------------------------------------------


def test_start_confirm_is_ready_with_a_preview_and_starts_nothing(handlers, store):
    answer = confirm(handlers[START], start_intent("run", goal=5, unit=w.WORKOUT_GOAL_UNIT_TYPE_MILE), store)
    Code = w.StartWorkoutIntentResponse
    preview = w.Workout(
        workout_name=named("Rainbow Run", "rainbow-run"), workout_goal_unit_type=w.WORKOUT_GOAL_UNIT_TYPE_MILE)
    preview.goal_value.value = 5
    assert answer.response == Code(code=Code.CODE_READY, workout=preview)
    assert workouts_in(store) == []


def test_start_handle_creates_an_active_workout(handlers, store):
    answer = handle(handlers[START], start_intent("colorlishus", location=OUTDOOR), store)
    Code = w.StartWorkoutIntentResponse
    assert answer.response.code == Code.CODE_SUCCESS
    workout = answer.response.workout
    assert workout.identifier
    assert (workout.workout_name, workout.state, workout.is_open_ended, workout.workout_location_type) == (
        named("Colorlicious", "colorlicious"), w.WORKOUT_STATE_ACTIVE, True, OUTDOOR)
    assert (workout.started_at.ToMilliseconds(), workout.HasField("finished_at"), workout.active_seconds) == (
        NOW_MS, False, 0.0)
    assert not workout.HasField("goal_value")
    rows = workouts_in(store, ALICE)
    assert [(r["identifier"], r["name"], r["state"], r["goal_value"]) for r in rows] == [
        (workout.identifier, "Colorlicious", w.WORKOUT_STATE_ACTIVE, None)]


def test_start_handle_with_a_goal_keeps_it(handlers, store):
    workout = handle(handlers[START], start_intent("run", goal=3.5, unit=w.WORKOUT_GOAL_UNIT_TYPE_MILE), store).response.workout
    assert (workout.goal_value.value, workout.workout_goal_unit_type, workout.is_open_ended) == (
        3.5, w.WORKOUT_GOAL_UNIT_TYPE_MILE, False)


def test_start_handle_of_an_unknown_workout_fails_with_no_matching_workout(handlers, store):
    answer = handle(handlers[START], start_intent("zumba"), store)
    assert answer.response.code == w.StartWorkoutIntentResponse.CODE_FAILURE_NO_MATCHING_WORKOUT
    assert answer.user_info == {"error": "no such workout"}
    assert workouts_in(store) == []


def test_start_handle_goal_without_unit_fails(handlers, store):
    answer = handle(handlers[START], start_intent("run", goal=30), store)
    assert answer.response.code == w.StartWorkoutIntentResponse.CODE_FAILURE
    assert answer.user_info == {"error": "the goal needs a value above zero and a unit"}
    assert workouts_in(store) == []


def test_second_start_fails_with_the_ongoing_workout(handlers, store):
    first = handle(handlers[START], start_intent("Colorlicious"), store).response.workout
    later = context(now_ms=NOW_MS + 90_000)
    answer = handle(handlers[START], start_intent("yoga"), store, later)
    Code = w.StartWorkoutIntentResponse
    assert answer.response.code == Code.CODE_FAILURE_ONGOING_WORKOUT
    assert (answer.response.workout.identifier, answer.response.workout.active_seconds) == (first.identifier, 90.0)
    assert answer.user_info == {"error": "Colorlicious is still going: end it first"}
    assert confirm(handlers[START], start_intent("yoga"), store, later).response.code == Code.CODE_FAILURE_ONGOING_WORKOUT
    assert len(workouts_in(store)) == 1


# -- pause, resume, end, cancel ---------------------------------------------------------------------


def change(handlers, intent_class, store, ms, name=""):
    handler = handlers[intent_class]
    return handle(handler, handler.payload_type(workout_name=named(name)), store, context(now_ms=ms))


def test_a_workouts_life_counts_only_active_time(handlers, store):
    handle(handlers[START], start_intent("run"), store)
    paused = change(handlers, PAUSE, store, NOW_MS + 60_000)
    assert (paused.response.code, paused.response.workout.state, paused.response.workout.active_seconds) == (
        w.PauseWorkoutIntentResponse.CODE_SUCCESS, w.WORKOUT_STATE_PAUSED, 60.0)
    resumed = change(handlers, RESUME, store, NOW_MS + 100_000)  # 40 s paused
    assert (resumed.response.code, resumed.response.workout.state, resumed.response.workout.active_seconds) == (
        w.ResumeWorkoutIntentResponse.CODE_SUCCESS, w.WORKOUT_STATE_ACTIVE, 60.0)
    ended = change(handlers, END, store, NOW_MS + 130_500)
    workout = ended.response.workout
    assert (ended.response.code, workout.state, workout.active_seconds) == (
        w.EndWorkoutIntentResponse.CODE_SUCCESS, w.WORKOUT_STATE_ENDED, 90.5)
    assert workout.finished_at.ToMilliseconds() == NOW_MS + 130_500
    row = workouts_in(store)[0]
    assert (row["state"], row["active_ms"], row["resumed_ms"], row["finished_ms"]) == (
        w.WORKOUT_STATE_ENDED, 90_500, None, NOW_MS + 130_500)


def test_active_seconds_of_an_active_workout_run_up_to_now(handlers, store):
    handle(handlers[START], start_intent("run"), store)
    answer = confirm(handlers[PAUSE], w.PauseWorkoutIntent(), store, context(now_ms=NOW_MS + 12_500))
    assert (answer.response.code, answer.response.workout.active_seconds) == (
        w.PauseWorkoutIntentResponse.CODE_READY, 12.5)


def test_ending_a_paused_workout_adds_no_paused_time(handlers, store):
    handle(handlers[START], start_intent("run"), store)
    change(handlers, PAUSE, store, NOW_MS + 10_000)
    ended = change(handlers, END, store, NOW_MS + 500_000)
    assert (ended.response.workout.state, ended.response.workout.active_seconds) == (w.WORKOUT_STATE_ENDED, 10.0)


def test_cancel_moves_to_cancelled_and_frees_the_user_to_start_again(handlers, store):
    handle(handlers[START], start_intent("run"), store)
    cancelled = change(handlers, CANCEL, store, NOW_MS + 5_000)
    assert (cancelled.response.code, cancelled.response.workout.state) == (
        w.CancelWorkoutIntentResponse.CODE_SUCCESS, w.WORKOUT_STATE_CANCELLED)
    assert cancelled.response.workout.finished_at.ToMilliseconds() == NOW_MS + 5_000
    again = handle(handlers[START], start_intent("yoga"), store, context(now_ms=NOW_MS + 6_000))
    assert again.response.code == w.StartWorkoutIntentResponse.CODE_SUCCESS
    assert [r["state"] for r in workouts_in(store)] == [w.WORKOUT_STATE_CANCELLED, w.WORKOUT_STATE_ACTIVE]


@pytest.mark.parametrize("intent_class", [PAUSE, RESUME, END, CANCEL])
def test_without_a_workout_every_change_fails_with_no_matching_workout(handlers, store, intent_class):
    handler = handlers[intent_class]
    for answer in (confirm(handler, handler.payload_type(), store), handle(handler, handler.payload_type(), store)):
        assert answer.response.code == handler.response_type.CODE_FAILURE_NO_MATCHING_WORKOUT
        assert not answer.response.HasField("workout")
        assert answer.user_info == {"error": "no workout is going"}


def test_pause_when_paused_fails_and_changes_nothing(handlers, store):
    handle(handlers[START], start_intent("Colorlicious"), store)
    change(handlers, PAUSE, store, NOW_MS + 20_000)
    again = change(handlers, PAUSE, store, NOW_MS + 50_000)
    assert (again.response.code, again.response.workout.state, again.response.workout.active_seconds) == (
        w.PauseWorkoutIntentResponse.CODE_FAILURE, w.WORKOUT_STATE_PAUSED, 20.0)
    assert again.user_info == {"error": "Colorlicious is already paused"}
    assert workouts_in(store)[0]["active_ms"] == 20_000


def test_resume_when_active_fails(handlers, store):
    handle(handlers[START], start_intent("Colorlicious"), store)
    answer = change(handlers, RESUME, store, NOW_MS + 1_000)
    assert (answer.response.code, answer.user_info) == (
        w.ResumeWorkoutIntentResponse.CODE_FAILURE, {"error": "Colorlicious is not paused"})


def test_a_name_that_is_not_the_ongoing_workout_matches_nothing(handlers, store):
    handle(handlers[START], start_intent("Colorlicious"), store)
    answer = change(handlers, PAUSE, store, NOW_MS + 1_000, name="Hoof Sprint")
    assert answer.response.code == w.PauseWorkoutIntentResponse.CODE_FAILURE_NO_MATCHING_WORKOUT
    assert answer.user_info == {"error": "the workout going is Colorlicious, not Hoof Sprint"}
    assert workouts_in(store)[0]["state"] == w.WORKOUT_STATE_ACTIVE


@pytest.mark.parametrize("said", ["colorlishus", "COLORLICIOUS!"])
def test_a_name_of_the_ongoing_workout_may_be_any_of_its_phrases(handlers, store, said):
    handle(handlers[START], start_intent("Colorlicious"), store)
    answer = change(handlers, PAUSE, store, NOW_MS + 1_000, name=said)
    assert answer.response.code == w.PauseWorkoutIntentResponse.CODE_SUCCESS


def test_change_name_is_optional_when_resolving(handlers, store):
    kind, _ = by_parameter(resolve(handlers[END], w.EndWorkoutIntent(), store))["workoutName"]
    assert kind == "not_required"


def test_users_are_isolated(handlers, store):
    started = handle(handlers[START], start_intent("run"), store, context(ALICE)).response.workout
    bobs = handle(handlers[PAUSE], w.PauseWorkoutIntent(), store, context(BOB, now_ms=NOW_MS + 30_000))
    assert bobs.response.code == w.PauseWorkoutIntentResponse.CODE_FAILURE_NO_MATCHING_WORKOUT
    row = workouts_in(store)[0]
    assert (row["identifier"], row["user_id"], row["state"], row["active_ms"], row["resumed_ms"]) == (
        started.identifier, ALICE, w.WORKOUT_STATE_ACTIVE, 0, NOW_MS)
    # and Bob may start his own while Alice's goes on
    assert handle(handlers[START], start_intent("yoga"), store, context(BOB)).response.code == (
        w.StartWorkoutIntentResponse.CODE_SUCCESS)
    assert len(workouts_in(store, BOB)) == 1
