"""Resolve's semantics, for every intent (empty) and every sample of the profile: one resolution
per asked parameter in declared order; array parameters one result per element, except needs_value
and not_required, which come alone and speak for the whole parameter; successful values of the
declared type written back into resolved_intent; complete exactly when every result is settled."""
import pytest
from intentmesh.v1 import extension_service_pb2 as ext, intent_pb2

from kit import type_name

SETTLED = ("success", "not_required")
WHOLE = ("needs_value", "not_required")


def check_resolution(domain, intent, answer, asked=None):
    declaration = domain.declaration(intent.intent_class)
    declared = [p.key_path for p in declaration.parameters]
    expected = asked if asked else declared
    assert [r.parameter for r in answer.resolutions] == expected, (
        f"{intent.intent_class}: resolutions for {[r.parameter for r in answer.resolutions]}, asked {expected}"
    )
    payload = domain.reflection.new(declaration.payload_type)
    assert intent.payload.Unpack(payload)
    for resolution in answer.resolutions:
        parameter = next(p for p in declaration.parameters if p.key_path == resolution.parameter)
        assert resolution.is_array == parameter.is_array, f"{resolution.parameter}: is_array"
        kinds = [result.WhichOneof("kind") for result in resolution.results]
        assert kinds and None not in kinds, f"{resolution.parameter}: a result with no kind, or none: {kinds}"
        if any(kind in WHOLE for kind in kinds):
            assert len(kinds) == 1, f"{resolution.parameter}: {kinds[0]} speaks for the whole parameter, alone: {kinds}"
        elif parameter.is_array:
            sent = getattr(payload, next(f.name for f in payload.DESCRIPTOR.fields if f.json_name == parameter.key_path))
            assert len(kinds) == len(sent), (
                f"{resolution.parameter}: {len(sent)} elements sent, {len(kinds)} results (one per element)"
            )
        else:
            assert len(kinds) == 1, f"{resolution.parameter} is not an array: one result, not {kinds}"
        for result in resolution.results:
            kind = result.WhichOneof("kind")
            if kind == "success":
                assert type_name(result.success.value.value) == parameter.value_type, (
                    f"{resolution.parameter}: success value is a {type_name(result.success.value.value)},"
                    f" declared {parameter.value_type}"
                )
            elif kind == "disambiguation":
                assert len(result.disambiguation.options) >= 2, f"{resolution.parameter}: disambiguation needs options"
                for option in result.disambiguation.options:
                    assert type_name(option.value) == parameter.value_type
            elif kind == "confirmation_required":
                assert type_name(result.confirmation_required.value.value) == parameter.value_type
    complete = all(r.WhichOneof("kind") in SETTLED for res in answer.resolutions for r in res.results)
    assert answer.complete == complete, f"{intent.intent_class}: complete={answer.complete}, results say {complete}"
    resolved = answer.resolved_intent
    assert resolved.intent_class == intent.intent_class
    assert resolved.identifier == intent.identifier, "resolved_intent keeps the identifier"
    assert type_name(resolved.payload) == declaration.payload_type, "resolved_intent keeps the payload type"


def resolve(domain, intent, parameters=(), user=None):
    return domain.extension.Resolve(
        ext.ResolveRequest(context=intent_pb2.RequestContext(), intent=intent, parameters=list(parameters)),
        metadata=domain.md(user), timeout=10,
    )


def test_every_intent_resolves_when_empty(domain):
    for declaration in domain.manifest.intents:
        intent = domain.intent(declaration.intent_class)
        check_resolution(domain, intent, resolve(domain, intent))


def test_one_parameter_at_a_time(domain):
    for declaration in domain.manifest.intents:
        for parameter in declaration.parameters:
            intent = domain.intent(declaration.intent_class)
            check_resolution(domain, intent, resolve(domain, intent, [parameter.key_path]), [parameter.key_path])


def samples(domain):
    found = domain.samples()
    if not found:
        pytest.skip("the profile has no samples")
    return found


def test_samples_resolve_complete_and_stay_complete(domain):
    for sample in samples(domain):
        user = domain.sample_user()
        intent = domain.sample_intent(sample)
        answer = resolve(domain, intent, user=user)
        check_resolution(domain, intent, answer)
        if sample.get("complete", True):
            assert answer.complete, f"sample {sample.get('name', sample['intent_class'])} should resolve complete: {answer}"
            again = resolve(domain, answer.resolved_intent, user=user)
            check_resolution(domain, answer.resolved_intent, again)
            assert again.complete, "resolving a resolved intent again must stay complete"


def test_successful_values_are_written_back(domain):
    for sample in samples(domain):
        intent = domain.sample_intent(sample)
        answer = resolve(domain, intent, user=domain.sample_user())
        declaration = domain.declaration(intent.intent_class)
        resolved = domain.reflection.new(declaration.payload_type)
        assert answer.resolved_intent.payload.Unpack(resolved)
        for resolution in answer.resolutions:
            parameter = next(p for p in declaration.parameters if p.key_path == resolution.parameter)
            if parameter.is_array or "." in parameter.key_path:
                continue
            result = resolution.results[0]
            if result.WhichOneof("kind") != "success":
                continue
            field = next(f for f in resolved.DESCRIPTOR.fields if f.json_name == parameter.key_path)
            value = result.success.value.value
            if field.message_type is not None:
                expected = domain.reflection.new(field.message_type.full_name)
                assert value.Unpack(expected) or type_name(value) == field.message_type.full_name
                assert getattr(resolved, field.name) == expected, (
                    f"{intent.intent_class}.{parameter.key_path}: resolved_intent holds"
                    f" {getattr(resolved, field.name)}, the success value was {expected}"
                )


def test_disambiguation_options_resolve_when_picked(domain):
    """A sample with "pick": the parameter disambiguates; each option, written back, resolves."""
    picks = [s for s in domain.samples() if s.get("pick")]
    if not picks:
        pytest.skip("the profile has no disambiguation sample")
    for sample in picks:
        user = domain.sample_user()
        intent = domain.sample_intent(sample)
        answer = resolve(domain, intent, [sample["pick"]], user)
        result = answer.resolutions[0].results[0]
        assert result.WhichOneof("kind") == "disambiguation", f"{sample['pick']}: expected a disambiguation: {result}"
        declaration = domain.declaration(intent.intent_class)
        for option in result.disambiguation.options:
            payload = domain.reflection.new(declaration.payload_type)
            assert intent.payload.Unpack(payload)
            field = next(f for f in payload.DESCRIPTOR.fields if f.json_name == sample["pick"])
            assert option.value.Unpack(getattr(payload, field.name))
            picked = domain.intent(intent.intent_class, payload, intent.identifier)
            again = resolve(domain, picked, [sample["pick"]], user).resolutions[0].results[0]
            assert again.WhichOneof("kind") == "success", f"picking {option.display_text!r} must settle it: {again}"
