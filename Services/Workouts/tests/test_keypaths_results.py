"""keypaths (parse, schema checks, reading, display text) and results (SiriKit case names)."""
import grpc
import pytest
from intentmesh.v1 import interaction_pb2, manifest_pb2
from intentmesh.workouts.v1 import workouts_pb2 as w

from unicornfit import keypaths
from unicornfit.errors import Refusal
from unicornfit.extension import handling_status
from unicornfit.results import case_name

WORKOUT = w.Workout.DESCRIPTOR
MANIFEST = manifest_pb2.ExtensionManifest.DESCRIPTOR


@pytest.mark.parametrize(
    "key_path, segments",
    [
        ("workoutName", [("workoutName", None)]),
        ("workout.workoutName.spokenPhrase", [("workout", None), ("workoutName", None), ("spokenPhrase", None)]),
        ("intents[12].intentClass", [("intents", 12), ("intentClass", None)]),
    ],
)
def test_parse(key_path, segments):
    assert keypaths.parse(key_path) == segments


@pytest.mark.parametrize("key_path", ["", "a..b", ".a", "a.", "a[x]", "a[-1]", "a[1", "a[]", "a b", "a[1][2]"])
def test_parse_refuses_malformed_key_paths(key_path):
    with pytest.raises(Refusal) as caught:
        keypaths.parse(key_path)
    assert (caught.value.code, caught.value.message) == (
        grpc.StatusCode.INVALID_ARGUMENT, f'malformed key path "{key_path}"')


@pytest.mark.parametrize(
    "key_path, descriptor, problem",
    [
        ("workoutName.spokenPhrase", WORKOUT, None),
        ("goalValue.value", WORKOUT, None),
        ("intents[0].parameters[1].keyPath", MANIFEST, None),
        ("intents", MANIFEST, None),
        ("colour", WORKOUT, "intentmesh.workouts.v1.Workout has no field colour"),
        ("workout_name", WORKOUT, "intentmesh.workouts.v1.Workout has no field workout_name"),  # JSON names only
        ("workoutName.colour", WORKOUT, "intentmesh.v1.SpeakableString has no field colour"),
        ("workoutName[0]", WORKOUT, "workoutName is not a list"),
        ("state.name", WORKOUT, '"state" has no fields'),
        ("intents.intentClass", MANIFEST, "intents is a list: name an element, e.g. intents[0]"),
    ],
)
def test_schema_problem(key_path, descriptor, problem):
    assert keypaths.schema_problem(keypaths.parse(key_path), descriptor) == problem


def test_value_at_reads_the_json_tree():
    response = w.StartWorkoutIntentResponse(
        code=w.StartWorkoutIntentResponse.CODE_SUCCESS,
        workout=w.Workout(state=w.WORKOUT_STATE_PAUSED, active_seconds=61.5),
    )
    response.workout.workout_name.spoken_phrase = "Rainbow Run"
    tree = keypaths.tree(response)
    assert keypaths.value_at("workout.workoutName.spokenPhrase", tree) == "Rainbow Run"
    assert keypaths.value_at("workout.state", tree) == "WORKOUT_STATE_PAUSED"
    assert keypaths.value_at("workout.activeSeconds", tree) == 61.5
    assert keypaths.value_at("code", tree) == "CODE_SUCCESS"
    assert keypaths.value_at("workout.goalValue", tree) is None  # absent
    assert keypaths.value_at("workout.state.deeper", tree) is None  # not an object


def test_value_at_indexes_lists():
    tree = {"items": [{"name": "a"}, {"name": "b"}], "single": {"name": "c"}}
    assert keypaths.value_at("items[1].name", tree) == "b"
    assert keypaths.value_at("items[2].name", tree) is None
    assert keypaths.value_at("single[0]", tree) is None


@pytest.mark.parametrize(
    "value, text",
    [
        (None, ""),
        (True, "yes"),
        (False, "no"),
        (7, "7"),
        (30.0, "30"),
        (2.5, "2.5"),
        ("Rainbow Run", "Rainbow Run"),
        (["a", "", None, "b"], "a, b"),
        ({"currencyCode": "USD", "units": "85"}, "85.00 USD"),
        ({"currencyCode": "EUR", "units": "3", "nanos": 500000000}, "3.50 EUR"),
        ({"spokenPhrase": "Colorlicious", "vocabularyIdentifier": "colorlicious"}, "Colorlicious"),
        ({"displayName": "", "name": "Fallback"}, "Fallback"),
        ({"zeta": "z", "alpha": "a", "empty": ""}, "a, z"),
    ],
)
def test_display_text(value, text):
    assert keypaths.display_text(value) == text


@pytest.mark.parametrize("value, text", [(1234.567, "1234.567"), (1_000_000.0, "1000000")])
def test_display_text_keeps_every_digit_of_a_float(value, text):
    assert keypaths.display_text(value) == text


@pytest.mark.parametrize(
    "enum, number, name",
    [
        (w.StartWorkoutIntentResponse.Code.DESCRIPTOR, w.StartWorkoutIntentResponse.CODE_FAILURE_NO_MATCHING_WORKOUT,
         "failureNoMatchingWorkout"),
        (w.StartWorkoutIntentResponse.Code.DESCRIPTOR, w.StartWorkoutIntentResponse.CODE_FAILURE_REQUIRING_APP_LAUNCH,
         "failureRequiringAppLaunch"),
        (w.PauseWorkoutIntentResponse.Code.DESCRIPTOR, w.PauseWorkoutIntentResponse.CODE_SUCCESS, "success"),
        (w.WorkoutLocationType.DESCRIPTOR, w.WORKOUT_LOCATION_TYPE_OUTDOOR, "outdoor"),
        (w.WorkoutGoalUnitType.DESCRIPTOR, w.WORKOUT_GOAL_UNIT_TYPE_KILO_CALORIE, "kiloCalorie"),
        (w.WorkoutState.DESCRIPTOR, w.WORKOUT_STATE_CANCELLED, "cancelled"),
        (w.WorkoutState.DESCRIPTOR, 99, "unrecognized(99)"),
    ],
)
def test_case_name(enum, number, name):
    assert case_name(enum, number) == name


@pytest.mark.parametrize(
    "code_name, status",
    [
        ("ready", interaction_pb2.INTENT_HANDLING_STATUS_READY),
        ("success", interaction_pb2.INTENT_HANDLING_STATUS_SUCCESS),
        ("failure", interaction_pb2.INTENT_HANDLING_STATUS_FAILURE),
        ("failureOngoingWorkout", interaction_pb2.INTENT_HANDLING_STATUS_FAILURE),
        ("failureRequiringAppLaunch", interaction_pb2.INTENT_HANDLING_STATUS_DEFERRED_TO_APPLICATION),
        ("continueInApp", interaction_pb2.INTENT_HANDLING_STATUS_DEFERRED_TO_APPLICATION),
        ("handleInApp", interaction_pb2.INTENT_HANDLING_STATUS_DEFERRED_TO_APPLICATION),
        ("unspecified", interaction_pb2.INTENT_HANDLING_STATUS_UNSPECIFIED),
    ],
)
def test_handling_status_from_the_code_name(code_name, status):
    assert handling_status(code_name) == status
