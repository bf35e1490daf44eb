"""UnicornFit's app side (intentmesh.workouts.v1.UnicornFitApp): the caller's workouts."""
import time

from intentmesh.workouts.v1 import app_pb2, app_pb2_grpc, workouts_pb2

from . import sessions
from .errors import Refusal, invalid_argument
from .identity import acting_user

SERVICE_NAME = app_pb2.DESCRIPTOR.services_by_name["UnicornFitApp"].full_name


class UnicornFitApp(app_pb2_grpc.UnicornFitAppServicer):
    def __init__(self, store, verifier, clock=time.time):
        self.store = store
        self.verifier = verifier
        self.clock = clock

    def ListWorkouts(self, request, context):
        try:
            user = acting_user(self.verifier, context.invocation_metadata(), None)
            if request.limit < 0 or request.limit > 500:
                raise invalid_argument(f"limit must be between 0 and 500, not {request.limit}")
            for state in request.states:
                if state not in workouts_pb2.WorkoutState.values() or state == workouts_pb2.WORKOUT_STATE_UNSPECIFIED:
                    raise invalid_argument(f"states: {state} is not a workout state")
            now_ms = int(self.clock() * 1000)
            rows = self.store.read(lambda db: sessions.listed(user, list(request.states), request.limit or 50, db))
            return app_pb2.ListWorkoutsResponse(workouts=[sessions.as_message(row, now_ms) for row in rows])
        except Refusal as refusal:
            context.abort(refusal.code, refusal.message)
