"""Confirm, Handle and the view sequence for the profile's samples: typed responses with the
intent's own codes and SiriKit's default user activity; exactly one effect per (user, identifier);
a reused identifier with another intent refused; the user's yes required where declared; the
configureView sequence's rules; and one user's identifiers and answers invisible to another."""
import uuid

import grpc
import pytest
from intentmesh.v1 import extension_service_pb2 as ext, interaction_pb2, view_pb2

from kit import refused, type_name

S = interaction_pb2


def handled_samples(domain):
    found = [s for s in domain.samples() if s.get("handle")]
    if not found:
        pytest.skip("the profile has no sample to handle")
    return found


def resolved(domain, sample, user, identifier=None, answered=None):
    intent = domain.sample_intent(sample, identifier, answered)
    answer = domain.extension.Resolve(ext.ResolveRequest(intent=intent), metadata=domain.md(user), timeout=10)
    return answer.resolved_intent


def check_response(domain, intent, response, interaction):
    declaration = domain.declaration(intent.intent_class)
    assert response.intent_class == intent.intent_class
    assert type_name(response.payload) == declaration.response_type, "the typed response is the declared type"
    typed = domain.reflection.new(declaration.response_type)
    assert response.payload.Unpack(typed)
    code = typed.DESCRIPTOR.fields_by_name["code"]
    assert response.code == getattr(typed, "code"), "IntentResponse.code is the typed response's code"
    assert code.enum_type.values_by_number.get(response.code) is not None
    assert response.code_name and response.code_name[0].islower(), f"code_name is SiriKit's name: {response.code_name!r}"
    assert response.user_activity.activity_type, "a response always has a user activity (default: the intent class)"
    assert interaction.intent.intent_class == intent.intent_class
    assert interaction.intent.identifier == intent.identifier
    assert interaction.intent_handling_status != S.INTENT_HANDLING_STATUS_UNSPECIFIED
    assert interaction.intent_response.code == response.code
    # SiriKit's cycle (the interaction's response's activity is that interaction), cut once.
    assert response.user_activity.interaction == interaction, "the response's activity carries the interaction"
    assert not interaction.intent_response.HasField("user_activity"), "the interaction's response has no activity"


def confirm(domain, intent, user=None):
    return domain.extension.Confirm(ext.ConfirmRequest(intent=intent), metadata=domain.md(user), timeout=10)


def handle(domain, intent, token="", user=None):
    return domain.extension.Handle(
        ext.HandleRequest(intent=intent, confirmation_token=token), metadata=domain.md(user), timeout=15
    )


def test_confirm_then_handle_once_and_replay(domain):
    for sample in handled_samples(domain):
        user = domain.sample_user()
        intent = resolved(domain, sample, user)
        declaration = domain.declaration(intent.intent_class)
        confirmed = confirm(domain, intent, user)
        check_response(domain, intent, confirmed.response, confirmed.interaction)
        status = confirmed.interaction.intent_handling_status
        assert status in (S.INTENT_HANDLING_STATUS_READY, S.INTENT_HANDLING_STATUS_USER_CONFIRMATION_REQUIRED), (
            f"sample {sample.get('name')}: Confirm answered {confirmed.response.code_name}"
        )
        if declaration.requires_user_confirmation:
            assert status == S.INTENT_HANDLING_STATUS_USER_CONFIRMATION_REQUIRED
            assert confirmed.confirmation_token, "an intent that needs the user's yes gets a confirmation token"
        first = handle(domain, intent, confirmed.confirmation_token, user)
        check_response(domain, intent, first.response, first.interaction)
        assert not first.replayed
        assert first.interaction.intent_handling_status in (
            S.INTENT_HANDLING_STATUS_SUCCESS, S.INTENT_HANDLING_STATUS_IN_PROGRESS,
            S.INTENT_HANDLING_STATUS_DEFERRED_TO_APPLICATION,
        ), f"sample {sample.get('name')}: Handle answered {first.response.code_name}"
        again = handle(domain, intent, confirmed.confirmation_token, user)
        assert again.replayed, "a retried Handle with the same identifier is the stored answer"
        assert again.response == first.response, "the replay is the first answer, unchanged"
        run_followups(domain, sample, user, first)


def handled_sample(domain, sample, user):
    """The sample resolved, confirmed and handled once as `user`: (intent, Confirm's answer, Handle's)."""
    intent = resolved(domain, sample, user)
    confirmed = confirm(domain, intent, user)
    return intent, confirmed, handle(domain, intent, confirmed.confirmation_token, user)


def run_followups(domain, sample, user, handled):
    """Steps that go on from a handled sample (pause, resume and end the workout it started; cancel
    the ride it booked), each from the answer before it."""
    answered = domain.typed_response(handled.response)
    for followup in sample.get("then", []):
        intent = resolved(domain, followup, user, answered=answered)
        confirmed = confirm(domain, intent, user)
        answer = handle(domain, intent, confirmed.confirmation_token, user)
        assert answer.interaction.intent_handling_status == S.INTENT_HANDLING_STATUS_SUCCESS, (
            f"follow-up {followup.get('name')}: {answer.response.code_name}"
        )
        answered = domain.typed_response(answer.response)


def test_identifier_reused_with_another_intent_is_failed_precondition(domain):
    sample = handled_samples(domain)[0]
    user = domain.sample_user()
    intent, confirmed, first = handled_sample(domain, sample, user)
    other = domain.intent(intent.intent_class, identifier=intent.identifier)  # the same identifier, an empty payload
    refused(lambda: handle(domain, other, confirmed.confirmation_token, user), grpc.StatusCode.FAILED_PRECONDITION)
    run_followups(domain, sample, user, first)


def test_an_intent_that_needs_a_yes_is_not_handled_without_it(domain):
    asking = [s for s in handled_samples(domain) if domain.declaration(s["intent_class"]).requires_user_confirmation]
    if not asking:
        pytest.skip("no sample intent needs the user's confirmation")
    for sample in asking:
        user = domain.sample_user()
        intent = resolved(domain, sample, user)
        refused(lambda: handle(domain, intent, "", user), grpc.StatusCode.FAILED_PRECONDITION, "confirm")
        refused(lambda: handle(domain, intent, "forged-token", user), grpc.StatusCode.FAILED_PRECONDITION)
        # A token for another identifier is no token for this one.
        elsewhere = resolved(domain, sample, user)
        token = confirm(domain, elsewhere, user).confirmation_token
        refused(lambda: handle(domain, intent, token, user), grpc.StatusCode.FAILED_PRECONDITION)


def test_identifiers_are_per_user(domain):
    """Another user handling the same identifier never gets the first user's stored answer."""
    sample = handled_samples(domain)[0]
    user = domain.sample_user()
    intent, _, first = handled_sample(domain, sample, user)
    try:
        theirs = domain.extension.Confirm(
            ext.ConfirmRequest(intent=intent), metadata=domain.md(domain.other_user), timeout=10
        )
        answer = handle(domain, intent, theirs.confirmation_token, user=domain.other_user)
    except grpc.RpcError as error:
        assert error.code() != grpc.StatusCode.INTERNAL, error
    else:
        assert not answer.replayed, "another user's Handle replayed the first user's answer"
        assert answer.response.payload != first.response.payload or first.response.payload.value == b""
        if answer.interaction.intent_handling_status == S.INTENT_HANDLING_STATUS_SUCCESS:
            run_followups(domain, sample, domain.other_user, answer)
    run_followups(domain, sample, user, first)


def view_sequence(domain, interaction, user=None):
    """Runs configureView as a host does; returns the answers, first (empty set) first."""
    declaration = domain.declaration(interaction.intent.intent_class)
    request = view_pb2.ConfigureViewRequest(
        interaction=interaction,
        hosted_view_context=view_pb2.HOSTED_VIEW_CONTEXT_SIRI_SNIPPET,
        minimum_size=view_pb2.Size(width=100, height=40),
        maximum_size=view_pb2.Size(width=400, height=800),
    )
    answers = [domain.extension.ConfigureView(request, metadata=domain.md(user), timeout=10)]
    drawn = {(p.parameter_class, p.key_path) for p in answers[0].configured_parameters}
    for parameter in declaration.view_parameters:
        if (parameter.parameter_class, parameter.key_path) in drawn:
            continue
        step = view_pb2.ConfigureViewRequest()
        step.CopyFrom(request)
        step.parameters.append(parameter)
        answer = domain.extension.ConfigureView(step, metadata=domain.md(user), timeout=10)
        answers.append((parameter, answer))
        drawn |= {(p.parameter_class, p.key_path) for p in answer.configured_parameters}
    return answers


def check_step(asked, answer):
    if answer.configured:
        assert answer.HasField("view") and answer.view.HasField("root"), "a configured step carries its view"
        assert answer.desired_size.width >= 0 and answer.desired_size.height > 0, "a configured step asks for a size"
    else:
        assert not answer.configured_parameters, "a declined step claims no parameters"
    shown = [(p.parameter_class, p.key_path) for p in asked] + [
        (p.parameter_class, p.key_path) for p in (answer.configured_parameters if answer.configured else [])
    ]
    displayed = [(d.parameter.parameter_class, d.parameter.key_path) for d in answer.display_values]
    for parameter in shown:
        assert parameter in displayed, f"display_values lacks {parameter}: {displayed}"


def test_view_sequence_of_a_handled_intent(domain):
    for sample in handled_samples(domain):
        user = domain.sample_user()
        _, _, answer = handled_sample(domain, sample, user)
        steps = view_sequence(domain, answer.interaction, user)
        check_step([], steps[0])
        for parameter, step in steps[1:]:
            check_step([parameter], step)
        run_followups(domain, sample, user, answer)


def test_view_of_a_draft_needs_no_response(domain):
    for declaration in domain.manifest.intents:
        interaction = interaction_pb2.Interaction(
            identifier=str(uuid.uuid4()), intent=domain.intent(declaration.intent_class),
            intent_handling_status=S.INTENT_HANDLING_STATUS_READY,
        )
        steps = view_sequence(domain, interaction)
        check_step([], steps[0])


def test_view_of_an_unknown_key_path_is_invalid_argument(domain):
    declaration = domain.manifest.intents[0]
    interaction = interaction_pb2.Interaction(intent=domain.intent(declaration.intent_class))
    for parameter in (
        view_pb2.Parameter(parameter_class=declaration.intent_class, key_path="colour"),
        view_pb2.Parameter(parameter_class=declaration.intent_class, key_path="a..b"),
        view_pb2.Parameter(parameter_class="INSomeOtherIntent", key_path="x"),
    ):
        request = view_pb2.ConfigureViewRequest(interaction=interaction, parameters=[parameter])
        refused(
            lambda: domain.extension.ConfigureView(request, metadata=domain.md(), timeout=10),
            grpc.StatusCode.INVALID_ARGUMENT,
        )
