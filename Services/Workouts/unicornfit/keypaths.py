"""SiriKit-style key paths ("workoutName", "workout.workoutName.spokenPhrase", "items[1]") read out
of any message by its proto3 JSON names, as the Swift runtime reads them: one reader, no per-type code."""
import re

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor

from .errors import invalid_argument

_SEGMENT = re.compile(r"^([A-Za-z0-9_]+)(?:\[(\d+)\])?$")


def parse(key_path):
    """[(name, index or None)]; INVALID_ARGUMENT for an empty name or a malformed index."""
    segments = []
    for part in key_path.split("."):
        match = _SEGMENT.match(part)
        if not match:
            raise invalid_argument(f'malformed key path "{key_path}"')
        segments.append((match.group(1), int(match.group(2)) if match.group(2) is not None else None))
    return segments


def schema_problem(segments, descriptor):
    """Why the key path does not name a field of `descriptor`'s messages, or None."""
    current = descriptor
    for position, (name, index) in enumerate(segments):
        if current is None:
            return f'"{segments[position - 1][0]}" has no fields'
        field = next((f for f in current.fields if f.json_name == name), None)
        if field is None:
            return f"{current.full_name} has no field {name}"
        repeated = is_repeated(field)
        if index is not None and not repeated:
            return f"{name} is not a list"
        if repeated and index is None and position < len(segments) - 1:
            return f"{name} is a list: name an element, e.g. {name}[0]"
        current = field.message_type if field.type == FieldDescriptor.TYPE_MESSAGE else None
    return None


def is_repeated(field):
    """Whether a field is a list (protobuf 5 to 7: `is_repeated`; older: its label)."""
    repeated = getattr(field, "is_repeated", None)
    return repeated if repeated is not None else field.label == FieldDescriptor.LABEL_REPEATED


def tree(message):
    """The message as its proto3 JSON tree (lowerCamelCase names, defaults left out)."""
    return json_format.MessageToDict(message)


def value_at(key_path, message_tree):
    """The JSON value at `key_path`, or None when absent."""
    current = message_tree
    for name, index in parse(key_path):
        if not isinstance(current, dict):
            return None
        current = current.get(name)
        if index is not None:
            if not isinstance(current, list) or index >= len(current):
                return None
            current = current[index]
    return current


def number_text(number):
    """Every digit a number has, and no more: 1000000, 1234.567, 5.5 (not 1e+06 or 1234.57)."""
    if isinstance(number, float) and number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return repr(number) if isinstance(number, float) else str(number)


def display_text(value):
    """How a host shows a value: a phrase, a name, "85.00 USD", a list joined by commas."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return number_text(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ", ".join(text for text in (display_text(item) for item in value) if text)
    if "currencyCode" in value and ("units" in value or "nanos" in value):
        units = int(value.get("units", 0))
        nanos = int(value.get("nanos", 0))
        return f"{units + nanos / 1e9:.2f} {value['currencyCode']}"
    for key in ("displayName", "spokenPhrase", "name", "title", "text", "content", "person"):
        if key in value:
            text = display_text(value[key])
            if text:
                return text
    return ", ".join(text for text in (display_text(value[key]) for key in sorted(value)) if text)
