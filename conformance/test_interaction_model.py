"""How people say the intents: Describe's interaction models, one per intent, each slot one of its
intent's parameters with a kind that fits the parameter's type, every sample parseable with the
grammar the gateway's Understand reads (words, {slot}, [optional], (alternative|words)) and naming
only declared slots, and no two free slots side by side. A domain in any language declares one."""
import re

from intentmesh.v1 import manifest_pb2

from kit import value_type_of

KINDS = manifest_pb2.SlotKind
WORDS = {"google.protobuf.StringValue", "string", "intentmesh.v1.SpeakableString"}
ACCEPTED = {
    KINDS.SLOT_KIND_PERSON: WORDS | {"intentmesh.v1.Person"},
    KINDS.SLOT_KIND_TEXT: WORDS,
    KINDS.SLOT_KIND_PLACE: WORDS | {"intentmesh.v1.Placemark"},
    KINDS.SLOT_KIND_VOCABULARY: WORDS,
    KINDS.SLOT_KIND_MONEY: {"intentmesh.v1.CurrencyAmount"},
    KINDS.SLOT_KIND_DATE: {"intentmesh.v1.DateComponentsRange", "intentmesh.v1.DateComponents"},
    KINDS.SLOT_KIND_NUMBER: {"google.protobuf.Int32Value", "google.protobuf.Int64Value", "google.protobuf.DoubleValue",
                             "google.protobuf.FloatValue", "google.protobuf.UInt32Value", "int32", "int64", "double",
                             "float", "uint32"},
    KINDS.SLOT_KIND_ENUM: {"google.protobuf.Int32Value", "int32"},
}
# Kinds whose words say where they end: only these may stand beside another slot.
SELF_DELIMITING = {KINDS.SLOT_KIND_MONEY, KINDS.SLOT_KIND_DATE, KINDS.SLOT_KIND_VOCABULARY, KINDS.SLOT_KIND_ENUM,
                   KINDS.SLOT_KIND_NUMBER}


def expand(sample):
    """Every sequence of words and {slots} `sample` stands for; raises ValueError when it does not parse."""
    tokens = re.findall(r"\{[^}]*\}|[\[\]()|]|[^\s\[\]()|{}]+", sample)
    if "".join(tokens).replace(" ", "") != re.sub(r"\s+", "", sample):
        raise ValueError("stray characters")
    position = 0

    def sequence(closing):
        nonlocal position
        forms = [[]]
        while position < len(tokens):
            token = tokens[position]
            if token in ("|",) + ((closing,) if closing else ()):
                return forms
            if token in "|)]" and len(token) == 1:
                raise ValueError(f"{token} outside a group")
            position += 1
            if token in ("(", "["):
                options = alternatives(")" if token == "(" else "]")
                if token == "(" and any(not option for option in options):
                    raise ValueError("an empty alternative in ( )")
                choices = ([[]] if token == "[" else []) + options
                forms = [head + tail for head in forms for tail in choices]
            else:
                forms = [form + [token] for form in forms]
            if len(forms) > 256:
                raise ValueError("more than 256 sentences")
        if closing:
            raise ValueError(f"a group is not closed with {closing}")
        return forms

    def alternatives(closing):
        nonlocal position
        options = []
        while True:
            options += sequence(closing)
            if position >= len(tokens):
                raise ValueError(f"a group is not closed with {closing}")
            stop = tokens[position]
            position += 1
            if stop == closing:
                return options

    forms = sequence(None)
    if position != len(tokens):
        raise ValueError("unbalanced")
    return forms


def test_every_intent_has_a_model_with_samples(domain):
    modelled = [model.intent_class for model in domain.manifest.interaction_models]
    assert len(modelled) == len(set(modelled)), f"an intent is modelled twice: {modelled}"
    for declaration in domain.manifest.intents:
        assert declaration.intent_class in modelled, f"{declaration.intent_class} has no interaction model"
    for model in domain.manifest.interaction_models:
        assert model.intent_class in {d.intent_class for d in domain.manifest.intents}, (
            f"a model for {model.intent_class}, which the domain does not declare")
        assert model.samples, f"{model.intent_class}: no samples"


def test_slots_are_parameters_and_fit_their_types(domain):
    for model in domain.manifest.interaction_models:
        declaration = domain.declaration(model.intent_class)
        parameters = {parameter.key_path: parameter for parameter in declaration.parameters}
        for slot in model.slots:
            at = f"{model.intent_class}.{slot.name}"
            assert slot.kind != KINDS.SLOT_KIND_UNSPECIFIED, f"{at}: no kind"
            assert slot.name in parameters, f"{at}: not a parameter (its parameters: {sorted(parameters)})"
            type_name = parameters[slot.name].value_type
            for step in filter(None, slot.path.split(".")):
                message = domain.reflection.message(type_name)
                field = next((f for f in message.fields if step in (f.json_name, f.name)), None)
                assert field is not None, f"{at}: {type_name} has no field {step}"
                type_name = value_type_of(field)
            if slot.kind == KINDS.SLOT_KIND_ENUM:
                assert slot.enum_type, f"{at}: an enum slot names its enum"
                assert domain.reflection.enum(slot.enum_type) is not None
                if type_name == slot.enum_type:
                    continue
            assert type_name in ACCEPTED[slot.kind], f"{at}: a {KINDS.Name(slot.kind)} slot cannot fill {type_name}"


def test_samples_parse_and_name_only_declared_slots(domain):
    for model in domain.manifest.interaction_models:
        kinds = {slot.name: slot.kind for slot in model.slots}
        for sample in model.samples:
            try:
                forms = expand(sample)
            except ValueError as error:
                raise AssertionError(f"{model.intent_class}: sample {sample!r} does not parse: {error}") from None
            for form in forms:
                slots = [token[1:-1] for token in form if token.startswith("{")]
                assert len(form) > len(slots), f"{model.intent_class}: {sample!r} has a form of slots only"
                for name in slots:
                    assert name in kinds, f"{model.intent_class}: {sample!r} names {{{name}}}, not a declared slot"
                assert len(slots) == len(set(slots)), f"{model.intent_class}: {sample!r} names a slot twice"
                for left, right in zip(form, form[1:]):
                    if left.startswith("{") and right.startswith("{"):
                        assert kinds[left[1:-1]] in SELF_DELIMITING or kinds[right[1:-1]] in SELF_DELIMITING, (
                            f"{model.intent_class}: {sample!r} puts {left} and {right} side by side")
