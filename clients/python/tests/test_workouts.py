"""UnicornFit, the domain written in Python, through the unchanged gateway: the conversation
(Interact) with its layout, its app service relayed, its types described by the gateway's
reflection (fetched from the domain, not built into the gateway), and `intentmesh send` building its
payload from those descriptors (the CLI links no domain's types)."""
import subprocess

from grpc_reflection.v1alpha import reflection_pb2
from intentmesh.gateway.v1 import gateway_pb2 as gw
from intentmesh.v1 import types_pb2
from intentmesh.workouts.v1 import app_pb2, app_pb2_grpc, workouts_pb2 as w

import support as s


def start(name):
    return w.StartWorkoutIntent(workout_name=types_pb2.SpeakableString(spoken_phrase=name))


def test_a_workout_through_the_gateway_is_started_listed_and_ended(stack, fresh_user):
    gateway = stack.gateway_api()
    context = s.context(user=fresh_user)
    turn = gateway.Interact(
        gw.InteractRequest(context=context, intent=s.intent("INStartWorkoutIntent", start("colorlishus"), "UnicornFit")),
        timeout=s.TIMEOUT,
    )
    assert turn.stage == gw.InteractResponse.STAGE_DONE, turn
    assert (turn.app_name, turn.response.code_name) == ("UnicornFit", "success")
    app_section = next(section for section in turn.layout.sections if section.view.kind == "workout-card")
    assert app_section.view.root.stack.children[0].text.text == "Colorlicious"

    app = app_pb2_grpc.UnicornFitAppStub(stack.channel("gateway"))
    token = [("authorization", f"Bearer {stack.token(fresh_user)}")]
    listed = app.ListWorkouts(app_pb2.ListWorkoutsRequest(), metadata=token, timeout=s.TIMEOUT).workouts
    assert [(x.workout_name.spoken_phrase, x.state) for x in listed] == [("Colorlicious", w.WORKOUT_STATE_ACTIVE)]

    again = gateway.Interact(
        gw.InteractRequest(context=context, intent=s.intent("INStartWorkoutIntent", start("yoga"), "UnicornFit")),
        timeout=s.TIMEOUT,
    )
    assert (again.stage, again.response.code_name) == (gw.InteractResponse.STAGE_FAILED, "failureOngoingWorkout")
    ended = gateway.Interact(
        gw.InteractRequest(context=context, intent=s.intent("INEndWorkoutIntent", w.EndWorkoutIntent())),
        timeout=s.TIMEOUT,
    )
    assert (ended.stage, ended.response.code_name) == (gw.InteractResponse.STAGE_DONE, "success")
    ended_list = app.ListWorkouts(app_pb2.ListWorkoutsRequest(), metadata=token, timeout=s.TIMEOUT).workouts
    assert [x.state for x in ended_list] == [w.WORKOUT_STATE_ENDED]


def test_the_gateway_describes_the_python_domains_types_from_its_reflection(stack):
    info = stack.channel("gateway").stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    symbols = ["intentmesh.workouts.v1.StartWorkoutIntent", "intentmesh.workouts.v1.UnicornFitApp"]
    answers = list(
        info(iter([reflection_pb2.ServerReflectionRequest(file_containing_symbol=x) for x in symbols]), timeout=10)
    )
    from google.protobuf import descriptor_pb2

    names = [
        [descriptor_pb2.FileDescriptorProto.FromString(raw).name for raw in a.file_descriptor_response.file_descriptor_proto]
        for a in answers
    ]
    assert names[0][0] == "intentmesh/workouts/v1/workouts.proto", answers[0]
    assert names[1][0] == "intentmesh/workouts/v1/app.proto", answers[1]
    listed = list(info(iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=10))
    assert "intentmesh.workouts.v1.UnicornFitApp" in [x.name for x in listed[0].list_services_response.service]


def test_intentmesh_send_builds_a_workout_from_the_gateways_descriptors(stack, fresh_user):
    done = subprocess.run(
        [stack.executable, "send", "INStartWorkoutIntent", "--app", "Unicorn Fit", "--gateway", stack.gateway,
         "--data", stack.data, "--user", fresh_user, "--param", "workoutName=Rainbow Run", "--param", "goalValue=30",
         "--param", "workoutGoalUnitType=minute"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stdout
    assert "UnicornFit: done (success)" in done.stdout, done.stdout
    assert "Rainbow Run" in done.stdout and "30 minute" in done.stdout, done.stdout
    refused = subprocess.run(
        [stack.executable, "send", "INCancelWorkoutIntent", "--gateway", stack.gateway, "--data", stack.data,
         "--user", fresh_user, "--locked"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60,
    )
    assert refused.returncode != 0 and "restricted while locked" in refused.stdout, refused.stdout
