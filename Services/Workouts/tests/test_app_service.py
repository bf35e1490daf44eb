"""UnicornFitApp.ListWorkouts: the caller's workouts, newest first."""
import pytest
from grpc import StatusCode
from intentmesh.workouts.v1 import app_pb2, workouts_pb2 as w

from conftest import ALICE, BOB, NOW_MS, FakeContext, refused
from unicornfit import sessions
from unicornfit.app_service import UnicornFitApp
from unicornfit.catalog import Workout

RUN = Workout("rainbow-run", "Rainbow Run", ("Rainbow Run",))
YOGA = Workout("unicorn-yoga", "Unicorn Yoga", ("Unicorn Yoga",))


def started(store, user, workout, at_ms, state=w.WORKOUT_STATE_ACTIVE):
    def body(db):
        row = sessions.start(user, workout, None, 0, 0, True, at_ms, db)
        if state != w.WORKOUT_STATE_ACTIVE:
            row = sessions.move(row, state, at_ms + 10_000, db)
        return row["identifier"]

    return store.write(body)


@pytest.fixture
def app(store, signer):
    return UnicornFitApp(store, signer.verifier, clock=lambda: (NOW_MS + 3_600_000) / 1000.0)


def listed(app, as_user, user=ALICE, **request):
    return app.ListWorkouts(app_pb2.ListWorkoutsRequest(**request), as_user(user)).workouts


def test_lists_only_the_callers_workouts_newest_first(app, store, as_user):
    oldest = started(store, ALICE, RUN, NOW_MS, w.WORKOUT_STATE_ENDED)
    started(store, BOB, YOGA, NOW_MS + 1_000)
    newest = started(store, ALICE, YOGA, NOW_MS + 2_000)
    workouts = listed(app, as_user)
    assert [(x.identifier, x.workout_name.spoken_phrase, x.state) for x in workouts] == [
        (newest, "Unicorn Yoga", w.WORKOUT_STATE_ACTIVE), (oldest, "Rainbow Run", w.WORKOUT_STATE_ENDED)]
    # active time up to the app's clock (an hour after NOW_MS) for the active one, 10 s for the ended one
    assert [x.active_seconds for x in workouts] == [3_598.0, 10.0]
    assert [x.workout_name.spoken_phrase for x in listed(app, as_user, BOB)] == ["Unicorn Yoga"]


def test_states_filter(app, store, as_user):
    ended = started(store, ALICE, RUN, NOW_MS, w.WORKOUT_STATE_ENDED)
    cancelled = started(store, ALICE, RUN, NOW_MS + 1_000, w.WORKOUT_STATE_CANCELLED)
    active = started(store, ALICE, YOGA, NOW_MS + 2_000)
    assert [x.identifier for x in listed(app, as_user, states=[w.WORKOUT_STATE_ENDED, w.WORKOUT_STATE_CANCELLED])] == [
        cancelled, ended]
    assert [x.identifier for x in listed(app, as_user, states=[w.WORKOUT_STATE_ACTIVE])] == [active]
    assert list(listed(app, as_user, states=[w.WORKOUT_STATE_PAUSED])) == []


def test_limit_and_its_default(app, store, as_user):
    identifiers = [started(store, ALICE, RUN, NOW_MS + i * 1_000, w.WORKOUT_STATE_ENDED) for i in range(52)]
    assert [x.identifier for x in listed(app, as_user, limit=2)] == identifiers[::-1][:2]
    assert len(listed(app, as_user)) == 50  # 0: 50
    assert len(listed(app, as_user, limit=500)) == 52


@pytest.mark.parametrize("limit", [-1, 501])
def test_limit_out_of_bounds_is_invalid_argument(app, as_user, limit):
    assert refused(lambda: listed(app, as_user, limit=limit)) == (
        StatusCode.INVALID_ARGUMENT, f"limit must be between 0 and 500, not {limit}")


@pytest.mark.parametrize("state", [w.WORKOUT_STATE_UNSPECIFIED, 99])
def test_a_state_that_is_not_one_is_invalid_argument(app, as_user, state):
    assert refused(lambda: listed(app, as_user, states=[state])) == (
        StatusCode.INVALID_ARGUMENT, f"states: {state} is not a workout state")


def test_needs_a_token(app):
    assert refused(lambda: app.ListWorkouts(app_pb2.ListWorkoutsRequest(), FakeContext([]))) == (
        StatusCode.UNAUTHENTICATED, "missing credentials: send authorization: Bearer <JWT>")
