"""IntentsExtension driven directly: a fake grpc context, real tokens (ES256 over a JWKS file), a
real store, the manifest and handlers built as unicornfit/server.py builds them."""
import re

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from google.protobuf import any_pb2
from grpc import StatusCode
from intentmesh.v1 import (
    extension_service_pb2 as service,
    intent_pb2,
    interaction_pb2,
    manifest_pb2,
    types_pb2,
    view_pb2,
)
from intentmesh.workouts.v1 import workouts_pb2 as w

from conftest import ALICE, BOB, KID, NOW_MS, FakeContext, bearer, intent, refused, workouts_in

START, CANCEL = "INStartWorkoutIntent", "INCancelWorkoutIntent"
CLASSES = ["INStartWorkoutIntent", "INPauseWorkoutIntent", "INResumeWorkoutIntent", "INEndWorkoutIntent",
           "INCancelWorkoutIntent"]


def named(phrase, identifier=""):
    return types_pb2.SpeakableString(spoken_phrase=phrase, vocabulary_identifier=identifier)


def start(name="Colorlicious", **fields):
    return w.StartWorkoutIntent(workout_name=named(name), **fields)


def request_context(**fields):
    return intent_pb2.RequestContext(locale="en-US", **fields)


def resolve_request(message=None, intent_class=START, parameters=(), **context_fields):
    return service.ResolveRequest(
        context=request_context(**context_fields), intent=intent(intent_class, message or start()),
        parameters=list(parameters),
    )


def handle_request(message=None, intent_class=START, identifier="intent-1", **context_fields):
    return service.HandleRequest(
        context=request_context(**context_fields), intent=intent(intent_class, message or start(), identifier)
    )


def unpack(any_value, message_type):
    made = message_type()
    assert any_value.Unpack(made)
    return made


# -- who calls ----------------------------------------------------------------------------------


def _other_key():
    return ec.generate_private_key(ec.SECP256R1())


UNAUTHENTICATED_CASES = {
    "missing token": (lambda s: FakeContext([]), "missing credentials: send authorization: Bearer <JWT>"),
    "not bearer": (lambda s: FakeContext([("authorization", "Basic " + s.token())]),
                   "malformed bearer token: the authorization header is not `Bearer <JWT>`"),
    "garbage": (lambda s: bearer("not-a-jwt"), re.compile(r"malformed bearer token: .+")),
    "expired": (lambda s: bearer(s.token(exp=1_000_000, iat=900_000)), "token expired"),
    "wrong issuer": (lambda s: bearer(s.token(iss="someone-else")), 'wrong token issuer: expected "intentmesh"'),
    "wrong audience": (lambda s: bearer(s.token(aud="other-app")), 'wrong token audience: expected "intentmesh"'),
    "unknown kid": (lambda s: bearer(s.token(kid="rotated-away")),
                    'unknown signing key: kid "rotated-away" is not in the JWKS'),
    "foreign key": (lambda s: bearer(s.token(key=_other_key())), "token signature does not verify"),
    "no sub": (lambda s: bearer(s.token(sub=None)), "token has no sub: it names no user"),
    "alg none": (
        lambda s: bearer(jwt.encode(s.claims(ALICE), None, algorithm="none", headers={"kid": KID})),
        "token algorithm 'none' is refused: only ES256, ES384, RS256, RS384, RS512, PS256, EdDSA",
    ),
    "alg HS256": (
        lambda s: bearer(jwt.encode(s.claims(ALICE), "x" * 32, algorithm="HS256", headers={"kid": KID})),
        "token algorithm 'HS256' is refused: only ES256, ES384, RS256, RS384, RS512, PS256, EdDSA",
    ),
}


@pytest.mark.parametrize("case", list(UNAUTHENTICATED_CASES))
def test_calls_without_a_valid_token_are_unauthenticated(extension, signer, store, case):
    make_context, expected = UNAUTHENTICATED_CASES[case]
    code, details = refused(lambda: extension.Handle(handle_request(), make_context(signer)))
    assert code == StatusCode.UNAUTHENTICATED
    if isinstance(expected, str):
        assert details == expected
    else:
        assert expected.fullmatch(details), details
    assert workouts_in(store) == []


def test_context_user_id_must_be_the_tokens_subject(extension, as_user):
    code, details = refused(lambda: extension.Resolve(resolve_request(user_id=BOB), as_user(ALICE)))
    assert (code, details) == (StatusCode.PERMISSION_DENIED, 'context.user_id "bob" is not the token\'s user')
    assert extension.Resolve(resolve_request(user_id=ALICE), as_user(ALICE)).complete is True


# -- which intent, and may it run ------------------------------------------------------------------


def test_unknown_intent_class_is_not_found(extension, as_user):
    request = resolve_request(w.PauseWorkoutIntent(), intent_class="INSendMessageIntent")
    assert refused(lambda: extension.Resolve(request, as_user())) == (
        StatusCode.NOT_FOUND, "no handler for intent class INSendMessageIntent in this service")


def test_payload_of_another_type_is_invalid_argument_naming_the_expected_type(extension, as_user):
    request = resolve_request(w.PauseWorkoutIntent())
    assert refused(lambda: extension.Resolve(request, as_user())) == (
        StatusCode.INVALID_ARGUMENT,
        "intent.payload must be intentmesh.workouts.v1.StartWorkoutIntent,"
        " not type.googleapis.com/intentmesh.workouts.v1.PauseWorkoutIntent",
    )


def test_payload_bytes_that_do_not_decode_are_invalid_argument(extension, as_user):
    request = resolve_request()
    request.intent.payload.value = b"\x0a\xff\xff\xff"  # field 1, a length far past the end
    code, details = refused(lambda: extension.Resolve(request, as_user()))
    assert code == StatusCode.INVALID_ARGUMENT
    assert details.startswith("intent.payload does not decode as intentmesh.workouts.v1.StartWorkoutIntent: ")


def test_an_empty_payload_is_an_empty_intent(extension, as_user):
    request = service.ResolveRequest(context=request_context(), intent=intent(START), parameters=["workoutName"])
    answer = extension.Resolve(request, as_user())
    assert answer.resolutions[0].results[0].WhichOneof("kind") == "needs_value"
    assert answer.complete is False


def test_cancel_is_refused_while_the_device_is_locked(extension, as_user):
    request = resolve_request(w.CancelWorkoutIntent(), intent_class=CANCEL, device_locked=True)
    assert refused(lambda: extension.Resolve(request, as_user())) == (
        StatusCode.FAILED_PRECONDITION,
        "INCancelWorkoutIntent is restricted while locked: the user must unlock the device first",
    )
    # starting is not restricted
    assert extension.Resolve(resolve_request(device_locked=True), as_user()).complete is True


@pytest.mark.parametrize("zone", ["Mars/Olympus_Mons", "../../etc/passwd", "zone.tab", "UTC "])
def test_a_time_zone_that_is_not_iana_is_invalid_argument(extension, as_user, zone):
    assert refused(lambda: extension.Resolve(resolve_request(time_zone=zone), as_user())) == (
        StatusCode.INVALID_ARGUMENT, f'context.time_zone "{zone}" is not an IANA time zone')


def test_a_real_time_zone_is_taken(extension, as_user):
    assert extension.Resolve(resolve_request(time_zone="Europe/Paris"), as_user()).complete is True


def test_an_unexpected_error_is_internal_without_internals(extension, handlers, as_user, monkeypatch):
    def explode(*arguments):
        raise RuntimeError("secret table name")

    monkeypatch.setattr(handlers[START], "confirm", explode)
    request = service.ConfirmRequest(context=request_context(), intent=intent(START, start()))
    code, details = refused(lambda: extension.Confirm(request, as_user()))
    assert code == StatusCode.INTERNAL
    assert re.fullmatch(r"internal error \(request [0-9a-f]{12}\)", details), details


# -- Resolve and Confirm -------------------------------------------------------------------------


def test_resolve_writes_successes_back_into_the_resolved_intent(extension, as_user):
    request = resolve_request(start("colorlishus"))
    request.intent.identifier = "keep-me"
    answer = extension.Resolve(request, as_user())
    assert answer.complete is True
    assert [r.parameter for r in answer.resolutions] == [
        "workoutName", "goalValue", "workoutGoalUnitType", "workoutLocationType", "isOpenEnded"]
    assert (answer.resolved_intent.intent_class, answer.resolved_intent.identifier) == (START, "keep-me")
    resolved = unpack(answer.resolved_intent.payload, w.StartWorkoutIntent)
    assert resolved.workout_name == named("Colorlicious", "colorlicious")
    assert (resolved.HasField("is_open_ended"), resolved.is_open_ended.value) == (True, True)


def test_resolve_is_incomplete_while_a_parameter_is_unsettled(extension, as_user):
    answer = extension.Resolve(resolve_request(start("zumba")), as_user())
    assert answer.complete is False
    assert answer.resolutions[0].results[0].unsupported.reason.name == "unknownWorkout"


def test_resolve_of_an_unknown_parameter_name_is_invalid_argument(extension, as_user):
    code, details = refused(lambda: extension.Resolve(resolve_request(parameters=["colour"]), as_user()))
    assert code == StatusCode.INVALID_ARGUMENT
    assert details.startswith('INStartWorkoutIntent has no parameter "colour"; its parameters are: workoutName,')


def test_confirm_builds_the_response_interaction_and_user_activity(extension, as_user, store):
    request = service.ConfirmRequest(context=request_context(), intent=intent(START, start("yoga")))
    answer = extension.Confirm(request, as_user())
    response = answer.response
    assert (response.intent_class, response.code, response.code_name) == (
        START, w.StartWorkoutIntentResponse.CODE_READY, "ready")
    assert unpack(response.payload, w.StartWorkoutIntentResponse).workout.workout_name == named(
        "Unicorn Yoga", "unicorn-yoga")
    assert answer.interaction.intent_handling_status == interaction_pb2.INTENT_HANDLING_STATUS_READY
    assert answer.interaction.direction == interaction_pb2.INTERACTION_DIRECTION_OUTGOING
    assert answer.interaction.date.ToMilliseconds() == NOW_MS
    assert answer.interaction.intent == request.intent
    assert response.user_activity.activity_type == START
    # SiriKit's cycle cut once: the activity carries the interaction, whose response carries no activity.
    assert response.user_activity.interaction == answer.interaction
    assert not answer.interaction.intent_response.HasField("user_activity")
    assert workouts_in(store) == []


# -- Handle: exactly once ----------------------------------------------------------------------------


def test_handle_without_identifier_is_invalid_argument(extension, as_user, store):
    code, details = refused(lambda: extension.Handle(handle_request(identifier=""), as_user()))
    assert code == StatusCode.INVALID_ARGUMENT
    assert details == (
        "Handle of INStartWorkoutIntent needs intent.identifier: it is the key that makes a retried Handle take"
        " effect once"
    )
    assert workouts_in(store) == []


def test_handle_twice_with_one_identifier_takes_effect_once(extension, as_user, store, clock):
    first = extension.Handle(handle_request(), as_user())
    assert (first.replayed, first.response.code_name) == (False, "success")
    assert first.interaction.intent_handling_status == interaction_pb2.INTENT_HANDLING_STATUS_SUCCESS
    clock.advance(30)
    again = extension.Handle(handle_request(), as_user())
    assert again.replayed is True
    assert (again.response.code, again.response.code_name) == (first.response.code, "success")
    assert again.response == first.response
    assert again.interaction.identifier == first.interaction.identifier
    rows = workouts_in(store)
    assert len(rows) == 1
    assert unpack(first.response.payload, w.StartWorkoutIntentResponse).workout.identifier == rows[0]["identifier"]


def test_a_new_identifier_is_a_new_handle(extension, as_user, store):
    extension.Handle(handle_request(identifier="intent-1"), as_user())
    second = extension.Handle(handle_request(identifier="intent-2"), as_user())
    assert (second.replayed, second.response.code_name) == (False, "failureOngoingWorkout")
    assert second.interaction.intent_handling_status == interaction_pb2.INTENT_HANDLING_STATUS_FAILURE
    assert dict(second.response.user_activity.user_info) == {"error": "Colorlicious is still going: end it first"}
    assert len(workouts_in(store)) == 1


def test_one_identifier_with_another_payload_is_failed_precondition(extension, as_user, store):
    extension.Handle(handle_request(start("Colorlicious")), as_user())
    assert refused(lambda: extension.Handle(handle_request(start("yoga")), as_user())) == (
        StatusCode.FAILED_PRECONDITION,
        "intent identifier intent-1 was already handled with a different INStartWorkoutIntent; use a new identifier",
    )
    other_class = handle_request(w.PauseWorkoutIntent(), intent_class="INPauseWorkoutIntent")
    assert refused(lambda: extension.Handle(other_class, as_user()))[0] == StatusCode.FAILED_PRECONDITION
    assert len(workouts_in(store)) == 1


def test_identifiers_are_per_user(extension, as_user, store):
    extension.Handle(handle_request(), as_user(ALICE))
    bobs = extension.Handle(handle_request(), as_user(BOB))
    assert (bobs.replayed, bobs.response.code_name) == (False, "success")
    assert [row["user_id"] for row in workouts_in(store)] == [ALICE, BOB]


def test_handle_takes_the_extensions_clock(extension, as_user, clock):
    extension.Handle(handle_request(), as_user())
    clock.advance(42)
    paused = extension.Handle(
        handle_request(w.PauseWorkoutIntent(), intent_class="INPauseWorkoutIntent", identifier="pause-1"), as_user())
    workout = unpack(paused.response.payload, w.PauseWorkoutIntentResponse).workout
    assert (paused.response.code_name, workout.state, workout.active_seconds) == (
        "success", w.WORKOUT_STATE_PAUSED, 42.0)


# -- ConfigureView -------------------------------------------------------------------------------------


def configure(extension, as_user, interaction, parameters=()):
    request = view_pb2.ConfigureViewRequest(
        context=request_context(), interaction=interaction,
        parameters=[view_pb2.Parameter(parameter_class=c, key_path=k) for c, k in parameters],
    )
    return extension.ConfigureView(request, as_user())


@pytest.fixture
def handled_start(extension, as_user):
    message = start("colorlishus", workout_location_type=w.WORKOUT_LOCATION_TYPE_OUTDOOR,
                    workout_goal_unit_type=w.WORKOUT_GOAL_UNIT_TYPE_MINUTE)
    message.goal_value.value = 30
    return extension.Handle(handle_request(message), as_user()).interaction


def test_first_view_step_of_a_handled_start_is_the_workout_card(extension, as_user, handled_start):
    answer = configure(extension, as_user, handled_start)
    assert answer.configured is True
    assert answer.view.kind == "workout-card"
    assert [(p.parameter_class, p.key_path) for p in answer.configured_parameters] == [
        (START, "workoutName"), (START + "Response", "workout")]
    rows = answer.view.root.stack.children
    assert rows[0].text.text == "Colorlicious"
    assert [(row.row.label, row.row.value) for row in rows[1:]] == [
        ("State", "active"), ("Goal", "30 minute"), ("Active", "0:00")]
    assert (answer.desired_size.width, answer.desired_size.height) == (320, 44 + 28 * 4)
    assert [(d.parameter.key_path, d.label, d.display_text) for d in answer.display_values] == [
        ("workoutName", "Workout", "colorlishus"), ("workout", "", "Colorlicious (active)")]


def test_later_view_steps_are_declined_and_shown_by_the_host(extension, as_user, handled_start):
    asked = [(START, "goalValue"), (START, "workoutGoalUnitType"), (START, "workoutLocationType"),
             (START, "isOpenEnded"), (START + "Response", "workout.workoutName"),
             (START + "Response", "workout.goalValue"), (START, "goalValue")]
    answer = configure(extension, as_user, handled_start, asked)
    assert (answer.configured, list(answer.configured_parameters), answer.HasField("view")) == (False, [], False)
    assert [(d.parameter.key_path, d.label, d.display_text) for d in answer.display_values] == [
        ("goalValue", "Goal", "30"),
        ("workoutGoalUnitType", "Unit", "minute"),
        ("workoutLocationType", "Where", "outdoor"),
        ("isOpenEnded", "Open", ""),  # never resolved: absent, so nothing to show
        ("workout.workoutName", "", "Colorlicious"),
        ("workout.goalValue", "", "30"),
    ]


def test_a_view_parameter_with_an_unknown_key_path_is_invalid_argument(extension, as_user, handled_start):
    assert refused(lambda: configure(extension, as_user, handled_start, [(START, "colour")])) == (
        StatusCode.INVALID_ARGUMENT,
        'unknown parameter key path "colour" of INStartWorkoutIntent:'
        " intentmesh.workouts.v1.StartWorkoutIntent has no field colour",
    )


def test_a_view_parameter_of_another_class_is_invalid_argument(extension, as_user, handled_start):
    assert refused(lambda: configure(extension, as_user, handled_start, [("INPauseWorkoutIntent", "workoutName")])) == (
        StatusCode.INVALID_ARGUMENT,
        "parameter class INPauseWorkoutIntent is neither INStartWorkoutIntent nor INStartWorkoutIntentResponse",
    )


def test_a_response_payload_of_another_type_is_invalid_argument(extension, as_user, handled_start):
    handled_start.intent_response.payload.Pack(w.PauseWorkoutIntentResponse())
    assert refused(lambda: configure(extension, as_user, handled_start)) == (
        StatusCode.INVALID_ARGUMENT,
        "interaction.intent_response.payload must be intentmesh.workouts.v1.StartWorkoutIntentResponse",
    )


def test_an_intent_without_response_is_declined(extension, as_user):
    interaction = interaction_pb2.Interaction(intent=intent(START, start("yoga")))
    answer = configure(extension, as_user, interaction, [(START, "workoutName")])
    assert answer.configured is False
    assert [(d.label, d.display_text) for d in answer.display_values] == [("Workout", "yoga")]


# -- SetUserVocabulary ---------------------------------------------------------------------------------


def set_vocabulary(extension, context, strings=(), speakables=(), vocabulary_type=None):
    request = service.SetUserVocabularyRequest(
        vocabulary_type=manifest_pb2.VOCABULARY_STRING_TYPE_WORKOUT_ACTIVITY_NAME if vocabulary_type is None
        else vocabulary_type,
        strings=list(strings), speakables=list(speakables),
    )
    return extension.SetUserVocabulary(request, context)


def name_result(extension, context, said):
    return extension.Resolve(resolve_request(start(said), parameters=["workoutName"]), context).resolutions[0].results[0]


def test_user_vocabulary_is_stored_and_over_long_phrases_discarded(extension, as_user, store):
    answer = set_vocabulary(
        extension, as_user(),
        strings=["Moon Gallop", "x" * 1024, "x" * 1025, "   ", "Moon Gallop"],
        speakables=[named("Star Trot", "trot-1"), named("🦄" * 512), named("🦄" * 513)],  # 2 UTF-16 units each
    )
    assert (answer.stored_count, answer.discarded_count) == (4, 3)
    rows = store.read(lambda db: db.execute(
        "SELECT user_id, position, phrase, vocabulary_identifier FROM user_vocabulary ORDER BY position").fetchall())
    assert [tuple(row) for row in rows] == [
        (ALICE, 0, "Moon Gallop", ""), (ALICE, 1, "x" * 1024, ""), (ALICE, 2, "Star Trot", "trot-1"),
        (ALICE, 3, "🦄" * 512, "")]


def test_resolve_finds_the_users_own_workout_names(extension, as_user):
    set_vocabulary(extension, as_user(), strings=["Moon Gallop"], speakables=[named("Star Trot", "trot-1")])
    own = name_result(extension, as_user(), "moon gallop!")
    assert own.WhichOneof("kind") == "success"
    assert unpack(own.success.value.value, types_pb2.SpeakableString) == named("Moon Gallop", "Moon Gallop")
    trot = name_result(extension, as_user(), "Star Trot")
    assert unpack(trot.success.value.value, types_pb2.SpeakableString) == named("Star Trot", "trot-1")
    # Bob's vocabulary is his own
    assert name_result(extension, as_user(BOB), "moon gallop").WhichOneof("kind") == "unsupported"


def test_a_users_own_workout_can_be_started(extension, as_user):
    set_vocabulary(extension, as_user(), speakables=[named("Star Trot", "trot-1")])
    answer = extension.Handle(handle_request(start("star trot")), as_user())
    workout = unpack(answer.response.payload, w.StartWorkoutIntentResponse).workout
    assert (answer.response.code_name, workout.workout_name) == ("success", named("Star Trot", "trot-1"))


def test_user_vocabulary_is_replaced_whole(extension, as_user):
    set_vocabulary(extension, as_user(), strings=["Moon Gallop"])
    cleared = set_vocabulary(extension, as_user())
    assert (cleared.stored_count, cleared.discarded_count) == (0, 0)
    assert name_result(extension, as_user(), "moon gallop").WhichOneof("kind") == "unsupported"


def test_user_vocabulary_of_another_type_is_invalid_argument(extension, as_user):
    code, details = refused(lambda: set_vocabulary(
        extension, as_user(), strings=["Scott"], vocabulary_type=manifest_pb2.VOCABULARY_STRING_TYPE_CONTACT_NAME))
    assert (code, details) == (
        StatusCode.INVALID_ARGUMENT,
        "UnicornFit takes user vocabulary of types VOCABULARY_STRING_TYPE_WORKOUT_ACTIVITY_NAME,"
        " not VOCABULARY_STRING_TYPE_CONTACT_NAME",
    )


def test_user_vocabulary_needs_a_token(extension):
    assert refused(lambda: set_vocabulary(extension, FakeContext([]), strings=["Moon Gallop"]))[0] == (
        StatusCode.UNAUTHENTICATED)


def test_user_vocabulary_duplicates_differing_in_case_or_spaces_are_one(extension, as_user):
    answer = set_vocabulary(extension, as_user(), strings=["Moon Gallop", "moon gallop ", " MOON GALLOP"])
    assert (answer.stored_count, answer.discarded_count) == (1, 0)
    assert name_result(extension, as_user(), "moon gallop").WhichOneof("kind") == "success"


# -- StartSendingUpdates and Describe -------------------------------------------------------------------


def test_start_sending_updates_is_unimplemented(extension, as_user):
    request = service.StartSendingUpdatesRequest(context=request_context(), intent=intent(START, start()))
    assert refused(lambda: list(extension.StartSendingUpdates(request, as_user()))) == (
        StatusCode.UNIMPLEMENTED, "INStartWorkoutIntent has no live updates")


def test_start_sending_updates_checks_the_token_first(extension):
    request = service.StartSendingUpdatesRequest(context=request_context(), intent=intent(START, start()))
    assert refused(lambda: extension.StartSendingUpdates(request, FakeContext([])))[0] == StatusCode.UNAUTHENTICATED


def test_describe_serves_the_manifest_without_a_token(extension):
    manifest = extension.Describe(service.DescribeRequest(), FakeContext([])).manifest
    assert (manifest.app_name, manifest.service_version) == ("UnicornFit", "1.0.0")
    assert [(a.name, a.pronunciation_hint) for a in manifest.alternative_app_names] == [("Unicorn Fit", "you-ni-corn fit")]
    assert [d.intent_class for d in manifest.intents] == CLASSES
    assert list(manifest.intents_restricted_while_locked) == [CANCEL]
    assert [d.intent_class for d in manifest.intents if d.restricted_while_locked] == [CANCEL]
    assert list(manifest.vocabulary_types) == [manifest_pb2.VOCABULARY_STRING_TYPE_WORKOUT_ACTIVITY_NAME]
    assert list(manifest.app_services) == ["intentmesh.workouts.v1.UnicornFitApp"]


def test_describe_names_types_that_exist_in_the_generated_descriptors(extension):
    from google.protobuf import descriptor_pool

    pool = descriptor_pool.Default()
    for declaration in extension.Describe(service.DescribeRequest(), FakeContext([])).manifest.intents:
        stem = declaration.intent_class[2:-len("Intent")]  # INStartWorkoutIntent -> StartWorkout
        assert declaration.payload_type == f"intentmesh.workouts.v1.{stem}Intent"
        assert declaration.response_type == f"intentmesh.workouts.v1.{stem}IntentResponse"
        assert pool.FindMessageTypeByName(declaration.payload_type).fields_by_name["workout_name"]
        assert pool.FindMessageTypeByName(declaration.response_type).enum_types_by_name["Code"]


def test_describe_declares_parameters_and_view_parameters(extension):
    intents = {d.intent_class: d for d in extension.Describe(service.DescribeRequest(), FakeContext([])).manifest.intents}
    starting = intents[START]
    assert [(p.key_path, p.value_type, p.label, p.prompt) for p in starting.parameters] == [
        ("workoutName", "intentmesh.v1.SpeakableString", "Workout", "Which workout?"),
        ("goalValue", "google.protobuf.DoubleValue", "Goal", ""),
        ("workoutGoalUnitType", "google.protobuf.Int32Value", "Unit", "In what unit is the goal?"),
        ("workoutLocationType", "google.protobuf.Int32Value", "Where", ""),
        ("isOpenEnded", "google.protobuf.BoolValue", "Open", ""),
    ]
    assert [(p.parameter_class, p.key_path) for p in starting.view_parameters] == [
        (START, "workoutName"), (START, "goalValue"), (START, "workoutGoalUnitType"), (START, "workoutLocationType"),
        (START, "isOpenEnded"), (START + "Response", "workout")]
    assert [(p.parameter_class, p.key_path) for p in intents[CANCEL].view_parameters] == [
        (CANCEL, "workoutName"), (CANCEL + "Response", "workout")]


def test_describe_carries_the_app_vocabulary(extension):
    manifest = extension.Describe(service.DescribeRequest(), FakeContext([])).manifest
    (vocabulary,) = manifest.parameter_vocabularies
    assert list(vocabulary.parameter_names) == ["INStartWorkoutIntent.workoutName"]
    colorlicious = vocabulary.items[0]
    assert colorlicious.identifier == "colorlicious"
    assert [(s.phrase, s.pronunciation, list(s.examples)) for s in colorlicious.synonyms] == [
        ("Colorlicious", "colorlishus", ["Do a Colorlicious in UnicornFit"])]
    assert [p.intent_name for p in manifest.intent_phrases] == [
        "INStartWorkoutIntent", "INPauseWorkoutIntent", "INEndWorkoutIntent"]


def test_any_payload_type_url_prefix_is_accepted(extension, as_user):
    request = resolve_request(start("run"))
    request.intent.payload.type_url = "example.com/intentmesh.workouts.v1.StartWorkoutIntent"
    assert extension.Resolve(request, as_user()).complete is True
    request.intent.payload.CopyFrom(any_pb2.Any(value=b"\x0a\x00"))
    assert refused(lambda: extension.Resolve(request, as_user())) == (
        StatusCode.INVALID_ARGUMENT, "intent.payload must be intentmesh.workouts.v1.StartWorkoutIntent, not an empty type")
