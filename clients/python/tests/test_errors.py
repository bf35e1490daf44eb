"""Bad input, on every domain's endpoint and through the gateway: each answered with the status of the
contract's errors table and a message that says what is wrong — never UNKNOWN, INTERNAL or a reset
stream. Expected outcomes (a value the user has not given yet) are data, not errors."""
import grpc
import pytest
from intentmesh.gateway.v1 import gateway_pb2 as gw
from intentmesh.messaging.v1 import messaging_pb2 as chat
from intentmesh.notebook.v1 import notebook_pb2 as notes
from intentmesh.payments.v1 import payments_pb2 as pay
from intentmesh.ridebooking.v1 import ridebooking_pb2 as rides
from intentmesh.v1 import extension_service_pb2 as ext_pb2
from intentmesh.v1 import intent_pb2, interaction_pb2
from intentmesh.v1 import manifest_pb2
from intentmesh.v1 import types_pb2 as types
from intentmesh.v1 import view_pb2

import support as s

Code = grpc.StatusCode
LIMIT = 4 * 1024 * 1024  # --max-message-bytes, the default of every service and of the gateway
OVERSIZED = 5 * 1024 * 1024

# Every intent of every domain: class → (service, payload message type).
INTENTS = {
    "INSendMessageIntent": ("messaging-service", chat.SendMessageIntent),
    "INSearchForMessagesIntent": ("messaging-service", chat.SearchForMessagesIntent),
    "INSetMessageAttributeIntent": ("messaging-service", chat.SetMessageAttributeIntent),
    "INGetVisualCodeIntent": ("messaging-service", chat.GetVisualCodeIntent),
    "INSendPaymentIntent": ("payments-service", pay.SendPaymentIntent),
    "INRequestPaymentIntent": ("payments-service", pay.RequestPaymentIntent),
    "INSearchForAccountsIntent": ("payments-service", pay.SearchForAccountsIntent),
    "INTransferMoneyIntent": ("payments-service", pay.TransferMoneyIntent),
    "INSearchForBillsIntent": ("payments-service", pay.SearchForBillsIntent),
    "INPayBillIntent": ("payments-service", pay.PayBillIntent),
    "INListRideOptionsIntent": ("ridebooking-service", rides.ListRideOptionsIntent),
    "INRequestRideIntent": ("ridebooking-service", rides.RequestRideIntent),
    "INGetRideStatusIntent": ("ridebooking-service", rides.GetRideStatusIntent),
    "INCancelRideIntent": ("ridebooking-service", rides.CancelRideIntent),
    "INSendRideFeedbackIntent": ("ridebooking-service", rides.SendRideFeedbackIntent),
    "INCreateNoteIntent": ("notes-service", notes.CreateNoteIntent),
    "INAppendToNoteIntent": ("notes-service", notes.AppendToNoteIntent),
    "INCreateTaskListIntent": ("notes-service", notes.CreateTaskListIntent),
    "INAddTasksIntent": ("notes-service", notes.AddTasksIntent),
    "INSetTaskAttributeIntent": ("notes-service", notes.SetTaskAttributeIntent),
    "INSearchForNotebookItemsIntent": ("notes-service", notes.SearchForNotebookItemsIntent),
}
# IntentsRestrictedWhileLocked of each manifest (every payments intent, also Siri's own rule).
RESTRICTED = ["INSendMessageIntent", "INSendPaymentIntent", "INRequestPaymentIntent", "INSearchForAccountsIntent",
              "INTransferMoneyIntent", "INSearchForBillsIntent", "INPayBillIntent", "INRequestRideIntent",
              "INCancelRideIntent", "INSearchForNotebookItemsIntent"]
UNRESTRICTED = [name for name in INTENTS if name not in RESTRICTED]
SERVICES = ["messaging-service", "payments-service", "ridebooking-service", "notes-service"]
TARGETS = SERVICES + ["gateway"]
# One intent per domain, for checks that need not run on all 21.
SAMPLES = {"messaging-service": "INSendMessageIntent", "payments-service": "INSendPaymentIntent",
           "ridebooking-service": "INRequestRideIntent", "notes-service": "INCreateNoteIntent"}


def target_of(stack, intent_class, via):
    return stack.extension(INTENTS[intent_class][0] if via == "direct" else "gateway")


def full_name(message_type):
    return message_type.DESCRIPTOR.full_name


def another_payload(intent_class):
    """A payload of another intent's type (of another domain)."""
    service = INTENTS[intent_class][0]
    return pay.PayBillIntent() if service != "payments-service" else chat.SendMessageIntent(content="hi")


def still_answers(stack, target):
    """The connection the bad request came on carries the next call: the error was an answer, not a
    reset connection."""
    if target == "gateway":
        assert stack.gateway_api().ListRoutes(gw.ListRoutesRequest(), timeout=s.TIMEOUT).routes
    else:
        assert stack.extension(target).Describe(ext_pb2.DescribeRequest(), timeout=s.TIMEOUT).manifest.intents


def resolve_call(extension, the_intent, user_context=None, **fields):
    return lambda: extension.Resolve(
        ext_pb2.ResolveRequest(context=user_context or s.context(), intent=the_intent, **fields), timeout=s.TIMEOUT)


# --- unknown intent class -------------------------------------------------------------------------

@pytest.mark.parametrize("target", TARGETS)
def test_an_unknown_intent_class_is_not_found(stack, target):
    extension = stack.extension(target)
    unknown = s.intent("INOrderPizzaIntent", chat.SendMessageIntent())
    mentions = ["no domain handles"] if target == "gateway" else ["no handler for intent class"]
    s.expect_status(resolve_call(extension, unknown), Code.NOT_FOUND, "INOrderPizzaIntent", *mentions)
    s.expect_status(lambda: extension.Handle(ext_pb2.HandleRequest(context=s.context(), intent=unknown),
                                             timeout=s.TIMEOUT), Code.NOT_FOUND, "INOrderPizzaIntent")
    s.expect_status(resolve_call(extension, intent_pb2.Intent()), Code.NOT_FOUND, "intent_class is empty")


def test_the_gateway_names_the_apps_that_handle_a_class(stack):
    gateway = stack.extension("gateway")
    named = s.intent("INSendMessageIntent", chat.SendMessageIntent(), app_name="UnicornPay")
    s.expect_status(resolve_call(gateway, named), Code.NOT_FOUND, "UnicornPay", "INSendMessageIntent", "UnicornChat")


# --- payload of another type ----------------------------------------------------------------------

@pytest.mark.parametrize("intent_class", list(INTENTS))
def test_a_payload_of_another_type_is_invalid(stack, via, intent_class):
    extension = target_of(stack, intent_class, via)
    wrong = another_payload(intent_class)
    the_intent = s.intent(intent_class, wrong)
    s.expect_status(resolve_call(extension, the_intent), Code.INVALID_ARGUMENT,
                    full_name(INTENTS[intent_class][1]), full_name(type(wrong)))
    s.expect_status(lambda: extension.Handle(ext_pb2.HandleRequest(context=s.context(), intent=the_intent),
                                             timeout=s.TIMEOUT), Code.INVALID_ARGUMENT, full_name(INTENTS[intent_class][1]))


# --- locked device -----------------------------------------------------------------------------------

@pytest.mark.parametrize("intent_class", RESTRICTED)
def test_a_restricted_intent_on_a_locked_device_is_refused(stack, via, intent_class):
    extension = target_of(stack, intent_class, via)
    the_intent = s.intent(intent_class, INTENTS[intent_class][1]())
    locked = s.context(locked=True)
    for call in (
        resolve_call(extension, the_intent, locked),
        lambda: extension.Confirm(ext_pb2.ConfirmRequest(context=locked, intent=the_intent), timeout=s.TIMEOUT),
        lambda: extension.Handle(ext_pb2.HandleRequest(context=locked, intent=the_intent), timeout=s.TIMEOUT),
    ):
        s.expect_status(call, Code.FAILED_PRECONDITION, intent_class, "restricted while locked", "unlock")


@pytest.mark.parametrize("intent_class", UNRESTRICTED)
def test_an_unrestricted_intent_runs_on_a_locked_device(stack, via, intent_class):
    extension = target_of(stack, intent_class, via)
    resolved = s.resolve(extension, s.context(locked=True), s.intent(intent_class, INTENTS[intent_class][1]()))
    assert resolved.resolved_intent.intent_class == intent_class


def test_the_gateway_refuses_locked_intents_in_interact(stack):
    gateway = stack.gateway_api()
    request = gw.InteractRequest(context=s.context(locked=True),
                                 intent=s.intent("INSearchForAccountsIntent", pay.SearchForAccountsIntent()))
    s.expect_status(lambda: gateway.Interact(request, timeout=s.TIMEOUT), Code.FAILED_PRECONDITION,
                    "INSearchForAccountsIntent", "restricted while locked")


# --- a required value missing: data, not a status -----------------------------------------------------

MISSING = [
    ("INSendMessageIntent", "recipients", "To whom?"),
    ("INSendPaymentIntent", "payee", "Who do you want to pay?"),
    ("INRequestRideIntent", "pickupLocation", "Where should the driver pick you up?"),
    ("INCreateNoteIntent", "title", "What do you want to call it?"),
]


#: Intents whose handler needs the user's confirmation: Handle takes Confirm's token.
NEEDS_YES = {"INSendMessageIntent", "INSendPaymentIntent", "INRequestRideIntent"}


@pytest.mark.parametrize("intent_class, parameter, prompt", MISSING, ids=[m[0] for m in MISSING])
def test_a_missing_required_value_is_needs_value_and_handle_fails(stack, via, intent_class, parameter, prompt):
    extension = target_of(stack, intent_class, via)
    user_context = s.context(user="diana" if intent_class != "INCreateNoteIntent" else "contract-missing-values")
    the_intent = s.intent(intent_class, INTENTS[intent_class][1]())
    resolved = s.resolve(extension, user_context, the_intent)
    assert not resolved.complete
    result = s.results(resolved)[parameter]
    assert [s.kind(r) for r in result] == ["needs_value"]
    assert result[0].needs_value.prompt == prompt
    # Handle anyway: the intent's own failure code, not a gRPC error (and no effect) — or, when the
    # intent needs the user's yes and Confirm refused it (so gave no token), FAILED_PRECONDITION.
    confirmed = s.confirm(extension, user_context, the_intent)
    if intent_class in NEEDS_YES and not confirmed.confirmation_token:
        s.expect_status(lambda: s.handle(extension, user_context, the_intent), Code.FAILED_PRECONDITION,
                        "confirm first")
    else:
        handled = s.handle(extension, user_context, the_intent)
        assert handled.response.code_name.startswith("failure")
        assert handled.interaction.intent_handling_status in (s.FAILURE, s.DEFERRED_TO_APPLICATION)
    if via == "gateway":
        turn = stack.gateway_api().Interact(gw.InteractRequest(context=user_context, intent=the_intent),
                                            timeout=s.TIMEOUT)
        assert (turn.stage, turn.parameter, turn.prompt) == (
            gw.InteractResponse.Stage.STAGE_NEEDS_PARAMETER, parameter, prompt)


# --- malformed bytes ----------------------------------------------------------------------------------

GARBAGE = b"\xff\xff\xff\xff\x0f\x01 this is not a protobuf message"
EXTENSION_METHODS = [("Resolve", "ResolveRequest"), ("Confirm", "ConfirmRequest"), ("Handle", "HandleRequest"),
                     ("ConfigureView", "ConfigureViewRequest"), ("SetUserVocabulary", "SetUserVocabularyRequest"),
                     ("StartSendingUpdates", "StartSendingUpdatesRequest")]


@pytest.mark.parametrize("method, message", EXTENSION_METHODS, ids=[m[0] for m in EXTENSION_METHODS])
@pytest.mark.parametrize("target", TARGETS)
def test_request_bytes_that_do_not_decode_are_invalid(stack, target, method, message):
    channel = stack.channel(target)
    path = f"/intentmesh.v1.IntentsExtension/{method}"
    # Bytes name no user: the call carries Diana's token itself, and still the bytes are refused.
    auth = [("authorization", f"Bearer {stack.token('diana')}")]
    if method == "StartSendingUpdates":
        raw = channel.unary_stream(path, request_serializer=None, response_deserializer=None)
        s.expect_status(lambda: list(raw(GARBAGE, timeout=s.TIMEOUT, metadata=auth)), Code.INVALID_ARGUMENT, message)
    else:
        raw = channel.unary_unary(path, request_serializer=None, response_deserializer=None)
        s.expect_status(lambda: raw(GARBAGE, timeout=s.TIMEOUT, metadata=auth), Code.INVALID_ARGUMENT, message)
    still_answers(stack, target)


@pytest.mark.parametrize("method, message", [("Interact", "InteractRequest"), ("Layout", "LayoutRequest"),
                                             ("ListRoutes", "ListRoutesRequest")])
def test_gateway_request_bytes_that_do_not_decode_are_invalid(stack, method, message):
    raw = stack.channel("gateway").unary_unary(f"/intentmesh.gateway.v1.Gateway/{method}",
                                               request_serializer=None, response_deserializer=None)
    auth = [("authorization", f"Bearer {stack.token('diana')}")]
    s.expect_status(lambda: raw(GARBAGE, timeout=s.TIMEOUT, metadata=auth), Code.INVALID_ARGUMENT, message)


@pytest.mark.parametrize("service", SERVICES)
def test_payload_bytes_that_do_not_decode_are_invalid(stack, via, service):
    intent_class = SAMPLES[service]
    extension = stack.extension(service if via == "direct" else "gateway")
    the_intent = s.intent(intent_class)
    the_intent.payload.type_url = "type.googleapis.com/" + full_name(INTENTS[intent_class][1])
    the_intent.payload.value = b"\xff\xff\xff\xff"
    s.expect_status(resolve_call(extension, the_intent), Code.INVALID_ARGUMENT,
                    "does not decode", full_name(INTENTS[intent_class][1]))


# --- oversized messages -------------------------------------------------------------------------------

def oversized_intent():
    return s.intent("INSendMessageIntent", chat.SendMessageIntent(
        recipients=[types.Person(display_name="Celestra")], content="x" * OVERSIZED))


OVERSIZED_CALLS = {
    "Resolve": lambda ext: ext.Resolve(ext_pb2.ResolveRequest(context=s.context(), intent=oversized_intent()),
                                       timeout=s.TIMEOUT),
    "Handle": lambda ext: ext.Handle(ext_pb2.HandleRequest(context=s.context(), intent=oversized_intent()),
                                     timeout=s.TIMEOUT),
    "StartSendingUpdates": lambda ext: list(ext.StartSendingUpdates(
        ext_pb2.StartSendingUpdatesRequest(context=s.context(), intent=oversized_intent()), timeout=s.TIMEOUT)),
    "Confirm": lambda ext: ext.Confirm(ext_pb2.ConfirmRequest(context=s.context(), intent=oversized_intent()),
                                       timeout=s.TIMEOUT),
    "ConfigureView": lambda ext: ext.ConfigureView(view_pb2.ConfigureViewRequest(
        context=s.context(), interaction=interaction_pb2.Interaction(intent=oversized_intent())), timeout=s.TIMEOUT),
}


@pytest.mark.parametrize("method", list(OVERSIZED_CALLS))
@pytest.mark.parametrize("target", ["messaging-service", "gateway"])
def test_an_oversized_request_is_resource_exhausted_with_a_message(stack, target, method):
    extension = stack.extension(target)
    s.expect_status(lambda: OVERSIZED_CALLS[method](extension), Code.RESOURCE_EXHAUSTED,
                    f"IntentsExtension/{method}", str(LIMIT), "max-message-bytes")
    still_answers(stack, target)


# Each domain's sample intent with one 5 MiB value.
OVERSIZED_INTENTS = {
    "payments-service": lambda: pay.SendPaymentIntent(payee=types.Person(display_name="Buttercup"), note="x" * OVERSIZED),
    "ridebooking-service": lambda: rides.RequestRideIntent(
        ride_option_name=types.SpeakableString(spoken_phrase="x" * OVERSIZED)),
    "notes-service": lambda: notes.CreateNoteIntent(title=types.SpeakableString(spoken_phrase="x" * OVERSIZED)),
}


@pytest.mark.parametrize("service", list(OVERSIZED_INTENTS))
def test_every_domain_answers_an_oversized_request_with_resource_exhausted(stack, via, service):
    extension = stack.extension(service if via == "direct" else "gateway")
    the_intent = s.intent(SAMPLES[service], OVERSIZED_INTENTS[service]())
    s.expect_status(resolve_call(extension, the_intent), Code.RESOURCE_EXHAUSTED, str(LIMIT), "max-message-bytes")
    still_answers(stack, service if via == "direct" else "gateway")


def test_the_gateway_answers_an_oversized_interact_with_resource_exhausted(stack):
    gateway = stack.gateway_api()
    s.expect_status(lambda: gateway.Interact(gw.InteractRequest(context=s.context(), intent=oversized_intent()),
                                             timeout=s.TIMEOUT),
                    Code.RESOURCE_EXHAUSTED, "Gateway/Interact", str(LIMIT), "max-message-bytes")
    s.expect_status(lambda: gateway.Layout(gw.LayoutRequest(
        context=s.context(), interactions=[interaction_pb2.Interaction(intent=oversized_intent())]), timeout=s.TIMEOUT),
        Code.RESOURCE_EXHAUSTED, "Gateway/Layout", str(LIMIT))


def test_the_gateway_passes_on_a_large_answer_as_the_domain_gave_it(stack):
    """A request under the limit whose answer is over it (Resolve echoes the 1.5 MiB content in the
    resolved intent and in the content's result, value and display text): the domain answers it; the
    gateway must pass the domain's answer on, or refuse it with RESOURCE_EXHAUSTED and a message —
    not INTERNAL."""
    message = chat.SendMessageIntent(recipients=[types.Person(display_name="Celestra")], content="x" * (1536 * 1024))
    the_intent = s.intent("INSendMessageIntent", message)
    request = ext_pb2.ResolveRequest(context=s.context(), intent=the_intent)

    def big_client(name):
        from intentmesh.v1 import extension_service_pb2_grpc
        channel = stack.channel(name, **{"grpc.max_receive_message_length": 64 * 1024 * 1024})
        return extension_service_pb2_grpc.IntentsExtensionStub(channel)

    direct = big_client("messaging-service").Resolve(request, timeout=30)
    assert direct.complete and direct.ByteSize() > LIMIT
    try:
        through = big_client("gateway").Resolve(request, timeout=30)
    except grpc.RpcError as error:
        assert error.code() == Code.RESOURCE_EXHAUSTED, f"{error.code().name}: {error.details()!r}"
        assert error.details()
    else:
        assert through == direct


# --- the rest of the errors table -----------------------------------------------------------------

@pytest.mark.parametrize("service", SERVICES)
def test_a_request_without_a_user_is_unauthenticated(stack, via, service):
    extension = stack.extension(service if via == "direct" else "gateway")
    the_intent = s.intent(SAMPLES[service], INTENTS[SAMPLES[service]][1]())
    s.expect_status(resolve_call(extension, the_intent, intent_pb2.RequestContext(user_id="  ")),
                    Code.UNAUTHENTICATED, "authorization: Bearer")
    if via == "gateway":
        s.expect_status(lambda: stack.gateway_api().Interact(gw.InteractRequest(intent=the_intent), timeout=s.TIMEOUT),
                        Code.UNAUTHENTICATED, "authorization: Bearer")


def test_handle_with_effects_needs_an_identifier(stack, via):
    extension = stack.extension("notes-service" if via == "direct" else "gateway")
    the_intent = s.intent("INCreateNoteIntent", notes.CreateNoteIntent(
        title=types.SpeakableString(spoken_phrase="No identifier")), identifier="")
    the_intent.identifier = ""
    s.expect_status(lambda: extension.Handle(ext_pb2.HandleRequest(context=s.context(user="contract-no-id"),
                                                                   intent=the_intent), timeout=s.TIMEOUT),
                    Code.INVALID_ARGUMENT, "identifier")


def test_an_identifier_reused_with_another_intent_is_refused(stack, via, fresh_user):
    extension = stack.extension("notes-service" if via == "direct" else "gateway")
    first = s.intent("INCreateNoteIntent", notes.CreateNoteIntent(title=types.SpeakableString(spoken_phrase="One")))
    assert s.handle(extension, s.context(user=fresh_user), first).response.code_name == "success"
    second = s.intent("INCreateNoteIntent", notes.CreateNoteIntent(title=types.SpeakableString(spoken_phrase="Two")),
                      identifier=first.identifier)
    s.expect_status(lambda: extension.Handle(ext_pb2.HandleRequest(context=s.context(user=fresh_user), intent=second),
                                             timeout=s.TIMEOUT), Code.FAILED_PRECONDITION, first.identifier)


def test_an_unknown_parameter_or_time_zone_is_invalid(stack, via):
    extension = stack.extension("messaging-service" if via == "direct" else "gateway")
    the_intent = s.intent("INSendMessageIntent", chat.SendMessageIntent())
    s.expect_status(resolve_call(extension, the_intent, parameters=["colour"]), Code.INVALID_ARGUMENT,
                    '"colour"', "recipients")
    s.expect_status(resolve_call(extension, the_intent, s.context(time_zone="Mars/Olympus_Mons")),
                    Code.INVALID_ARGUMENT, "Mars/Olympus_Mons")


def configure_view_call(stack, via, parameter_class, key_path):
    extension = stack.extension("messaging-service" if via == "direct" else "gateway")
    message = chat.SendMessageIntent(recipients=[types.Person(display_name="Celestra")], content="hi")
    interaction = s.confirm(extension, s.context(), s.intent("INSendMessageIntent", message)).interaction
    return lambda: extension.ConfigureView(view_pb2.ConfigureViewRequest(
        context=s.context(), interaction=interaction,
        parameters=[view_pb2.Parameter(parameter_class=parameter_class, key_path=key_path)]), timeout=s.TIMEOUT)


def test_configure_view_of_a_malformed_key_path_or_another_class_is_invalid(stack, via):
    s.expect_status(configure_view_call(stack, via, "INSendMessageIntent", "recipients["), Code.INVALID_ARGUMENT,
                    "malformed key path", "recipients[")
    s.expect_status(configure_view_call(stack, via, "INPayBillIntent", "billPayee"), Code.INVALID_ARGUMENT,
                    "INPayBillIntent", "INSendMessageIntent")


def test_configure_view_of_an_unknown_key_path_is_invalid(stack, via):
    # The errors table: "an unknown parameter key path, a malformed key path … INVALID_ARGUMENT".
    s.expect_status(configure_view_call(stack, via, "INSendMessageIntent", "colour"), Code.INVALID_ARGUMENT, "colour")


def test_vocabulary_of_a_type_the_domain_does_not_use_is_invalid(stack, via):
    extension = stack.extension("messaging-service" if via == "direct" else "gateway")
    request = ext_pb2.SetUserVocabularyRequest(
        context=s.context(user="nobody"), vocabulary_type=manifest_pb2.VOCABULARY_STRING_TYPE_PHOTO_TAG,
        strings=["Unicorn yoga"])
    mentions = ["photoTag"] + (["contactName"] if via == "direct" else [])
    s.expect_status(lambda: extension.SetUserVocabulary(request, timeout=s.TIMEOUT), Code.INVALID_ARGUMENT, *mentions)


@pytest.mark.parametrize("intent_class", ["INSendMessageIntent", "INListRideOptionsIntent", "INCreateNoteIntent"])
def test_live_updates_of_an_intent_without_them_are_unimplemented(stack, via, intent_class):
    extension = target_of(stack, intent_class, via)
    request = ext_pb2.StartSendingUpdatesRequest(context=s.context(),
                                                 intent=s.intent(intent_class, INTENTS[intent_class][1]()))
    s.expect_status(lambda: list(extension.StartSendingUpdates(request, timeout=s.TIMEOUT)), Code.UNIMPLEMENTED,
                    intent_class, "no live updates")


def test_a_layout_of_nothing_is_invalid(stack):
    s.expect_status(lambda: stack.gateway_api().Layout(gw.LayoutRequest(context=s.context()), timeout=s.TIMEOUT),
                    Code.INVALID_ARGUMENT, "interactions")
