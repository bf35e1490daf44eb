"""The error table of the contract: who calls is a verified token's subject, and every bad input
gets its status — before any handler or store is touched."""
import time

import grpc
import pytest
from google.protobuf import any_pb2
from intentmesh.v1 import extension_service_pb2 as ext, intent_pb2, manifest_pb2, types_pb2, view_pb2

from kit import refused

UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED


def first_class(domain):
    return domain.manifest.intents[0].intent_class


def calls(domain, metadata, context=None):
    """Every intent RPC of the domain's first intent, with `metadata`."""
    context = context or intent_pb2.RequestContext()
    intent = domain.intent(first_class(domain))
    interaction_request = view_pb2.ConfigureViewRequest(context=context)
    interaction_request.interaction.intent.CopyFrom(intent)
    return {
        "Resolve": lambda: domain.extension.Resolve(ext.ResolveRequest(context=context, intent=intent), metadata=metadata, timeout=10),
        "Confirm": lambda: domain.extension.Confirm(ext.ConfirmRequest(context=context, intent=intent), metadata=metadata, timeout=10),
        "Handle": lambda: domain.extension.Handle(ext.HandleRequest(context=context, intent=intent), metadata=metadata, timeout=10),
        "ConfigureView": lambda: domain.extension.ConfigureView(interaction_request, metadata=metadata, timeout=10),
        "SetUserVocabulary": lambda: domain.extension.SetUserVocabulary(
            ext.SetUserVocabularyRequest(
                context=context,
                vocabulary_type=(list(domain.manifest.vocabulary_types) or [manifest_pb2.VOCABULARY_STRING_TYPE_CONTACT_NAME])[0],
                strings=["x"],
            ),
            metadata=metadata, timeout=10,
        ),
        "StartSendingUpdates": lambda: list(
            domain.extension.StartSendingUpdates(ext.StartSendingUpdatesRequest(context=context, intent=intent), metadata=metadata, timeout=10)
        ),
    }


METHODS = ["Resolve", "Confirm", "Handle", "ConfigureView", "SetUserVocabulary", "StartSendingUpdates"]


@pytest.mark.parametrize("method", METHODS)
def test_no_token_is_unauthenticated(domain, method):
    refused(calls(domain, [])[method], UNAUTHENTICATED)


@pytest.mark.parametrize(
    "header",
    ["Bearer", "Bearer not.a.jwt", "Basic ZGlhbmE6c2VjcmV0", "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJkaWFuYSJ9."],
    ids=["empty", "garbage", "basic", "alg-none"],
)
def test_a_token_that_is_no_token_is_unauthenticated(domain, header):
    refused(calls(domain, [("authorization", header)])["Resolve"], UNAUTHENTICATED)


def needs_signing(domain):
    if not domain.tokens.can_sign:
        pytest.skip("forged tokens need --identity (the signing key)")


def test_expired_token_is_unauthenticated(domain):
    needs_signing(domain)
    token = domain.tokens.signed(domain.tokens.claims(domain.user, ttl=60, now=time.time() - 3600))
    refused(calls(domain, [("authorization", f"Bearer {token}")])["Resolve"], UNAUTHENTICATED)


def test_token_for_another_issuer_or_audience_is_unauthenticated(domain):
    needs_signing(domain)
    for claim, value in (("iss", "someone-else"), ("aud", ["another-api"])):
        claims = domain.tokens.claims(domain.user)
        claims[claim] = value
        token = domain.tokens.signed(claims)
        refused(calls(domain, [("authorization", f"Bearer {token}")])["Resolve"], UNAUTHENTICATED)


def test_token_signed_by_a_key_the_jwks_does_not_hold_is_unauthenticated(domain):
    needs_signing(domain)
    from cryptography.hazmat.primitives.asymmetric import ec

    foreign = ec.generate_private_key(ec.SECP256R1())
    claims = domain.tokens.claims(domain.user)
    # The right key id, the wrong key: a forgery; and a key id the JWKS does not have.
    for kid in (None, "not-a-key-of-theirs"):
        token = domain.tokens.signed(claims, kid=kid, key=foreign)
        refused(calls(domain, [("authorization", f"Bearer {token}")])["Resolve"], UNAUTHENTICATED)


def test_token_without_subject_is_unauthenticated(domain):
    needs_signing(domain)
    claims = domain.tokens.claims(domain.user)
    del claims["sub"]
    refused(calls(domain, [("authorization", f"Bearer {domain.tokens.signed(claims)}")])["Resolve"], UNAUTHENTICATED)


@pytest.mark.parametrize("method", ["Resolve", "Confirm", "Handle", "ConfigureView", "SetUserVocabulary"])
def test_context_naming_another_user_is_permission_denied(domain, method):
    context = intent_pb2.RequestContext(user_id=domain.other_user)
    refused(calls(domain, domain.md(), context)[method], grpc.StatusCode.PERMISSION_DENIED)


def test_unknown_intent_class_is_not_found_naming_it(domain):
    intent = intent_pb2.Intent(intent_class="INOrderPizzaIntent", identifier="conformance-pizza")
    refused(
        lambda: domain.extension.Resolve(ext.ResolveRequest(intent=intent), metadata=domain.md(), timeout=10),
        grpc.StatusCode.NOT_FOUND, "INOrderPizzaIntent",
    )


@pytest.mark.parametrize("rpc", ["Resolve", "Confirm", "Handle"])
def test_payload_of_another_type_is_invalid_argument_naming_the_expected_type(domain, rpc):
    declaration = domain.manifest.intents[0]
    intent = intent_pb2.Intent(intent_class=declaration.intent_class, identifier="conformance-wrong-type")
    intent.payload.Pack(types_pb2.SpeakableString(spoken_phrase="not a payload"))
    request = {"Resolve": ext.ResolveRequest, "Confirm": ext.ConfirmRequest, "Handle": ext.HandleRequest}[rpc](intent=intent)
    refused(
        lambda: getattr(domain.extension, rpc)(request, metadata=domain.md(), timeout=10),
        grpc.StatusCode.INVALID_ARGUMENT, declaration.payload_type,
    )


def test_payload_bytes_that_do_not_decode_are_invalid_argument(domain):
    declaration = domain.manifest.intents[0]
    intent = intent_pb2.Intent(intent_class=declaration.intent_class, identifier="conformance-bad-bytes")
    intent.payload.CopyFrom(any_pb2.Any(type_url=f"type.googleapis.com/{declaration.payload_type}", value=b"\x0a\xff\xff\xff"))
    refused(
        lambda: domain.extension.Resolve(ext.ResolveRequest(intent=intent), metadata=domain.md(), timeout=10),
        grpc.StatusCode.INVALID_ARGUMENT,
    )


def test_restricted_while_locked_is_failed_precondition_naming_the_intent(domain):
    restricted = list(domain.manifest.intents_restricted_while_locked)
    if not restricted:
        pytest.skip("the domain restricts no intent while locked")
    for intent_class in restricted:
        request = ext.ResolveRequest(context=intent_pb2.RequestContext(device_locked=True), intent=domain.intent(intent_class))
        refused(
            lambda: domain.extension.Resolve(request, metadata=domain.md(), timeout=10),
            grpc.StatusCode.FAILED_PRECONDITION, intent_class,
        )
        # Unlocked, the same intent is not refused for the lock.
        domain.extension.Resolve(ext.ResolveRequest(intent=request.intent), metadata=domain.md(), timeout=10)


def test_unrestricted_intents_resolve_on_a_locked_device(domain):
    restricted = set(domain.manifest.intents_restricted_while_locked)
    for declaration in domain.manifest.intents:
        if declaration.intent_class in restricted:
            continue
        request = ext.ResolveRequest(
            context=intent_pb2.RequestContext(device_locked=True), intent=domain.intent(declaration.intent_class)
        )
        domain.extension.Resolve(request, metadata=domain.md(), timeout=10)


def test_unknown_parameter_is_invalid_argument_naming_it(domain):
    request = ext.ResolveRequest(intent=domain.intent(first_class(domain)), parameters=["colour"])
    refused(
        lambda: domain.extension.Resolve(request, metadata=domain.md(), timeout=10),
        grpc.StatusCode.INVALID_ARGUMENT, "colour",
    )


def test_bad_time_zone_is_invalid_argument(domain):
    request = ext.ResolveRequest(
        context=intent_pb2.RequestContext(time_zone="Mars/Olympus_Mons"), intent=domain.intent(first_class(domain))
    )
    refused(
        lambda: domain.extension.Resolve(request, metadata=domain.md(), timeout=10),
        grpc.StatusCode.INVALID_ARGUMENT, "Mars/Olympus_Mons",
    )


def test_vocabulary_of_a_type_the_domain_does_not_use_is_invalid_argument(domain):
    used = set(domain.manifest.vocabulary_types)
    unused = next(t for t in manifest_pb2.VocabularyStringType.values() if t and t not in used)
    refused(
        lambda: domain.extension.SetUserVocabulary(
            ext.SetUserVocabularyRequest(vocabulary_type=unused, strings=["x"]), metadata=domain.md(), timeout=10
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
    )


def test_vocabulary_of_each_declared_type_is_stored(domain):
    for vocabulary_type in domain.manifest.vocabulary_types:
        answer = domain.extension.SetUserVocabulary(
            ext.SetUserVocabularyRequest(vocabulary_type=vocabulary_type, strings=["Conformance One", "x" * 1025]),
            metadata=domain.md(domain.other_user), timeout=10,
        )
        assert (answer.stored_count, answer.discarded_count) == (1, 1), answer
        cleared = domain.extension.SetUserVocabulary(
            ext.SetUserVocabularyRequest(vocabulary_type=vocabulary_type), metadata=domain.md(domain.other_user), timeout=10
        )
        assert cleared.stored_count == 0


def test_live_updates_of_an_intent_without_them_are_unimplemented(domain):
    plain = [d for d in domain.manifest.intents if not d.supports_live_updates]
    if not plain:
        pytest.skip("every intent has live updates")
    for declaration in plain:
        request = ext.StartSendingUpdatesRequest(intent=domain.intent(declaration.intent_class))
        refused(
            lambda: list(domain.extension.StartSendingUpdates(request, metadata=domain.md(), timeout=10)),
            grpc.StatusCode.UNIMPLEMENTED,
        )


def test_handle_without_identifier_is_invalid_argument(domain):
    handled = [s for s in domain.samples() if s.get("handle")]
    if not handled:
        pytest.skip("the profile has no sample to handle")
    intent = domain.sample_intent(handled[0])
    intent.identifier = ""
    refused(
        lambda: domain.extension.Handle(ext.HandleRequest(intent=intent), metadata=domain.md(), timeout=10),
        grpc.StatusCode.INVALID_ARGUMENT,
    )


def test_app_services_need_a_token(domain):
    if not domain.manifest.app_services:
        pytest.skip("the domain declares no app service")
    for name in domain.manifest.app_services:
        service = domain.reflection.service(name)
        for method in service.methods:
            if method.client_streaming or method.server_streaming:
                continue
            request = domain.reflection.new(method.input_type.full_name)
            refused(
                lambda: domain.unary(f"/{name}/{method.name}", request, method.output_type.full_name),
                UNAUTHENTICATED,
            )
