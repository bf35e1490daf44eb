"""The interaction model Describe serves (Manifest/InteractionModel.json: how people say each
intent, with slots naming its parameters), checked at start as the Swift domains check theirs: a
model for every intent, every slot one of its intent's parameters, its kind fitting the type its
value lands in (the slot's `path` followed through the parameter's type), an enum slot naming an
enum that exists, every {slot} of a sample declared and its brackets balanced. A problem stops the
service with the reason."""
import json
import os
import re

from google.protobuf import descriptor_pool
from intentmesh.v1 import manifest_pb2

KINDS = {
    "person": manifest_pb2.SLOT_KIND_PERSON,
    "money": manifest_pb2.SLOT_KIND_MONEY,
    "date": manifest_pb2.SLOT_KIND_DATE,
    "place": manifest_pb2.SLOT_KIND_PLACE,
    "text": manifest_pb2.SLOT_KIND_TEXT,
    "vocabulary": manifest_pb2.SLOT_KIND_VOCABULARY,
    "enum": manifest_pb2.SLOT_KIND_ENUM,
    "number": manifest_pb2.SLOT_KIND_NUMBER,
}

# The types each kind's value may land in (as the Swift domains' check has them).
_WORDS = {"google.protobuf.StringValue", "string", "intentmesh.v1.SpeakableString"}
ACCEPTED = {
    "person": _WORDS | {"intentmesh.v1.Person"},
    "text": _WORDS,
    "place": _WORDS | {"intentmesh.v1.Placemark"},
    "vocabulary": _WORDS,
    "money": {"intentmesh.v1.CurrencyAmount"},
    "date": {"intentmesh.v1.DateComponentsRange", "intentmesh.v1.DateComponents"},
    "number": {"google.protobuf.Int32Value", "google.protobuf.Int64Value", "google.protobuf.DoubleValue",
               "google.protobuf.FloatValue", "google.protobuf.UInt32Value", "int32", "int64", "double", "float",
               "uint32"},
    "enum": {"google.protobuf.Int32Value", "int32"},
}

_SCALARS = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 8: "bool", 9: "string", 13: "uint32"}


def _field_type(message_name, field_name):
    """The type of `message_name`'s field (by JSON or proto name), or None."""
    try:
        message = descriptor_pool.Default().FindMessageTypeByName(message_name)
    except KeyError:
        return None
    field = message.fields_by_camelcase_name.get(field_name) or message.fields_by_name.get(field_name)
    if field is None:
        return None
    if field.message_type is not None:
        return field.message_type.full_name
    if field.enum_type is not None:
        return field.enum_type.full_name
    return _SCALARS.get(field.type, str(field.type))


def _enum_exists(name):
    try:
        descriptor_pool.Default().FindEnumTypeByName(name)
        return True
    except KeyError:
        return False


def problems(models, manifest):
    """What is wrong with `models` (the JSON's intents) against `manifest`'s declared intents."""
    found = []
    declared = {intent.intent_class: intent for intent in manifest.intents}
    modelled = set()
    for model in models:
        name = model.get("intent", "")
        intent = declared.get(name)
        if intent is None:
            found.append(f"{name}: no such intent is declared")
            continue
        modelled.add(name)
        parameters = {parameter.key_path: parameter for parameter in intent.parameters}
        slots = {}
        for slot in model.get("slots", []):
            at = f"{name}.{slot.get('name')}"
            kind = slot.get("kind")
            if kind not in KINDS:
                found.append(f"{at}: kind {kind!r} is none of {sorted(KINDS)}")
                continue
            parameter = parameters.get(slot.get("name"))
            if parameter is None:
                found.append(f"{at}: not a parameter of {name} (its parameters: {', '.join(parameters)})")
                continue
            slots[slot["name"]] = kind
            type_name = parameter.value_type
            for step in filter(None, slot.get("path", "").split(".")):
                next_type = _field_type(type_name, step)
                if next_type is None:
                    found.append(f"{at}: {type_name} has no field {step}")
                    type_name = None
                    break
                type_name = next_type
            if type_name is None:
                continue
            if kind == "enum":
                enum_type = slot.get("enumType", "")
                if not enum_type or not _enum_exists(enum_type):
                    found.append(f"{at}: an enum slot names an enum that exists (enumType {enum_type!r})")
                    continue
                if type_name == enum_type:
                    continue
            if type_name not in ACCEPTED[kind]:
                found.append(f"{at}: a {kind} slot cannot fill {type_name}")
        samples = model.get("samples", [])
        if not samples:
            found.append(f"{name}: no samples")
        for sample in samples:
            for slot in re.findall(r"\{([^}]*)\}", sample):
                if slot not in slots:
                    found.append(f"{name}: sample {sample!r} names {{{slot}}}, which is not a declared slot")
            for opening, closing in ("()", "[]", "{}"):
                if sample.count(opening) != sample.count(closing):
                    found.append(f"{name}: sample {sample!r} has unbalanced {opening}{closing}")
    for intent in manifest.intents:
        if intent.intent_class not in modelled:
            found.append(f"{intent.intent_class}: no interaction model (how people say it)")
    return found


def add(folder, manifest):
    """Reads Manifest/InteractionModel.json into `manifest.interaction_models`; stops the service
    when it does not fit the intents."""
    path = os.path.join(folder, "InteractionModel.json")
    with open(path, encoding="utf-8") as file:
        models = json.load(file).get("intents", [])
    found = problems(models, manifest)
    if found:
        raise SystemExit(f"{path} does not fit the intents:\n  " + "\n  ".join(found))
    for model in models:
        entry = manifest.interaction_models.add(intent_class=model["intent"], samples=model["samples"])
        for slot in model.get("slots", []):
            added = entry.slots.add(
                name=slot["name"], kind=KINDS[slot["kind"]], enum_type=slot.get("enumType", ""),
                path=slot.get("path", ""))
            for value, phrases in (slot.get("synonyms") or {}).items():
                added.synonyms.add(value=value, phrases=phrases)
