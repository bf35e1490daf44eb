"""Describe, health and reflection: open without a token, and consistent with each other — every
declared type is served by reflection, every parameter and view parameter is a real key path, and
the manifest follows SiriKit's Info.plist rules."""
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from intentmesh.v1 import extension_service_pb2, manifest_pb2

from kit import WRAPPERS, is_repeated, key_path_problem, value_type_of

EXTENSION = "intentmesh.v1.IntentsExtension"


def test_describe_needs_no_token_and_names_the_app(domain):
    manifest = domain.extension.Describe(extension_service_pb2.DescribeRequest(), timeout=10).manifest
    assert manifest.app_name.strip(), "the manifest must name the app (CFBundleDisplayName)"
    assert manifest.intents, "the manifest must list at least one intent (IntentsSupported)"
    assert len(manifest.alternative_app_names) <= 3, "SiriKit allows at most three alternative app names"
    assert all(name.name.strip() for name in manifest.alternative_app_names)


def test_intent_classes_are_unique_and_restrictions_name_them(domain):
    classes = [d.intent_class for d in domain.manifest.intents]
    assert len(classes) == len(set(classes)), f"an intent class is listed twice: {classes}"
    assert all(c.strip() and " " not in c for c in classes)
    restricted = set(domain.manifest.intents_restricted_while_locked)
    assert restricted <= set(classes), f"restricted classes not handled: {restricted - set(classes)}"
    for declaration in domain.manifest.intents:
        assert declaration.restricted_while_locked == (declaration.intent_class in restricted), (
            f"{declaration.intent_class}: restricted_while_locked disagrees with intents_restricted_while_locked"
        )


def test_health_serves_the_server_and_the_extension(domain):
    health = health_pb2_grpc.HealthStub(domain.channel)
    for service in ("", EXTENSION):
        status = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10).status
        assert status == health_pb2.HealthCheckResponse.SERVING, f"health of {service!r}: {status}"


def test_reflection_lists_the_extension_and_the_app_services(domain):
    services = domain.reflection.services()
    assert EXTENSION in services, f"reflection does not list {EXTENSION}: {services}"
    for app_service in domain.manifest.app_services:
        assert app_service in services, f"reflection does not list the app service {app_service}: {services}"
        assert domain.reflection.service(app_service).methods, f"{app_service} has no methods"


def test_every_payload_and_response_type_is_served_by_reflection(domain):
    for declaration in domain.manifest.intents:
        for name in (declaration.payload_type, declaration.response_type):
            assert name, f"{declaration.intent_class} declares no payload or response type"
            descriptor = domain.reflection.message(name)
            assert descriptor.full_name == name
        response = domain.reflection.message(declaration.response_type)
        code = response.fields_by_name.get("code")
        assert code is not None and code.enum_type is not None, (
            f"{declaration.response_type} must have an enum field `code` (the intent's response codes)"
        )
        names = [value.name for value in code.enum_type.values]
        assert any(name.endswith("READY") for name in names), f"{declaration.response_type}.code has no ready"


def test_parameters_are_fields_of_the_payload_with_their_value_type(domain):
    for declaration in domain.manifest.intents:
        payload = domain.reflection.message(declaration.payload_type)
        seen = set()
        for parameter in declaration.parameters:
            assert parameter.key_path not in seen, f"{declaration.intent_class}.{parameter.key_path} is declared twice"
            seen.add(parameter.key_path)
            problem = key_path_problem(parameter.key_path, payload)
            assert problem is None, f"{declaration.intent_class}.{parameter.key_path}: {problem}"
            field = next(f for f in payload.fields if f.json_name == parameter.key_path.split(".")[0])
            if "." not in parameter.key_path:
                assert parameter.is_array == is_repeated(field), (
                    f"{declaration.intent_class}.{parameter.key_path}: is_array must say whether the field repeats"
                )
                assert parameter.value_type == value_type_of(field), (
                    f"{declaration.intent_class}.{parameter.key_path}: value_type {parameter.value_type!r},"
                    f" the field holds {value_type_of(field)!r}"
                )
            if parameter.value_type.startswith("google.protobuf."):
                assert parameter.value_type in WRAPPERS.values(), f"{parameter.value_type} is not a scalar wrapper"
            else:
                assert domain.reflection.message(parameter.value_type), parameter.value_type


def test_view_parameters_name_the_intent_or_its_response(domain):
    for declaration in domain.manifest.intents:
        for parameter in declaration.view_parameters:
            if parameter.parameter_class == declaration.intent_class:
                message = domain.reflection.message(declaration.payload_type)
            else:
                assert parameter.parameter_class == declaration.intent_class + "Response", (
                    f"{declaration.intent_class}: view parameter of {parameter.parameter_class}"
                )
                message = domain.reflection.message(declaration.response_type)
            problem = key_path_problem(parameter.key_path, message)
            assert problem is None, f"{declaration.intent_class} view parameter {parameter.key_path}: {problem}"


def test_vocabulary_types_are_real_and_phrases_name_handled_intents(domain):
    manifest = domain.manifest
    for vocabulary_type in manifest.vocabulary_types:
        assert vocabulary_type != manifest_pb2.VOCABULARY_STRING_TYPE_UNSPECIFIED
    classes = {d.intent_class for d in manifest.intents}
    for phrases in manifest.intent_phrases:
        assert phrases.intent_name in classes, f"IntentPhrases names {phrases.intent_name}, which is not handled"
    for vocabulary in manifest.parameter_vocabularies:
        for name in vocabulary.parameter_names:
            intent_class, _, key_path = name.partition(".")
            assert intent_class in classes, f"ParameterVocabularies names {name}: {intent_class} is not handled"
            payload = domain.reflection.message(domain.declaration(intent_class).payload_type)
            assert key_path_problem(key_path, payload) is None, f"ParameterVocabularies names {name}"
        for item in vocabulary.items:
            assert item.identifier and item.synonyms, "a vocabulary item needs an identifier and a phrase"


def test_describe_answers_the_same_twice(domain):
    first = domain.extension.Describe(extension_service_pb2.DescribeRequest(), timeout=10).manifest
    again = domain.extension.Describe(extension_service_pb2.DescribeRequest(), timeout=10).manifest
    assert first == again


def test_a_method_the_contract_does_not_have_is_unimplemented(domain):
    call = domain.channel.unary_unary("/intentmesh.v1.IntentsExtension/NoSuchMethod")
    try:
        call(b"", timeout=10)
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.UNIMPLEMENTED, error
    else:
        raise AssertionError("an unknown method answered")
