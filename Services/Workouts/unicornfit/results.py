"""Resolution results (INIntentResolutionResult) and the declarations a handler makes about its
intent, in the contract's messages."""
from dataclasses import dataclass

from google.protobuf import any_pb2, wrappers_pb2
from intentmesh.v1 import resolution_pb2


def packed(message):
    value = any_pb2.Any()
    value.Pack(message)
    return value


def resolved_value(message, display_text):
    return resolution_pb2.ResolvedValue(value=packed(message), display_text=display_text)


def success(message, display_text):
    return resolution_pb2.ResolutionResult(
        success=resolution_pb2.ResolutionResult.Success(value=resolved_value(message, display_text))
    )


def disambiguation(options, prompt):
    """`options`: [(message, display_text)]."""
    return resolution_pb2.ResolutionResult(
        disambiguation=resolution_pb2.ResolutionResult.Disambiguation(
            options=[resolved_value(message, text) for message, text in options], prompt=prompt
        )
    )


def confirmation_required(message, display_text, prompt):
    return resolution_pb2.ResolutionResult(
        confirmation_required=resolution_pb2.ResolutionResult.ConfirmationRequired(
            value=resolved_value(message, display_text), prompt=prompt
        )
    )


def needs_value(prompt):
    return resolution_pb2.ResolutionResult(needs_value=resolution_pb2.ResolutionResult.NeedsValue(prompt=prompt))


def not_required():
    return resolution_pb2.ResolutionResult(not_required=resolution_pb2.ResolutionResult.NotRequired())


def unsupported(name, message):
    return resolution_pb2.ResolutionResult(
        unsupported=resolution_pb2.ResolutionResult.Unsupported(
            reason=resolution_pb2.Reason(name=name, message=message)
        )
    )


def enum_value(number):
    """An enum parameter's value on the wire: its number in a google.protobuf.Int32Value."""
    return wrappers_pb2.Int32Value(value=number)


def case_name(enum_descriptor, number):
    """SiriKit's name of an enum case: WORKOUT_LOCATION_TYPE_OUTDOOR → "outdoor",
    CODE_FAILURE_NO_MATCHING_WORKOUT → "failureNoMatchingWorkout"."""
    value = enum_descriptor.values_by_number.get(number)
    if value is None:
        return f"unrecognized({number})"
    prefix = _common_prefix(enum_descriptor)
    words = value.name[len(prefix):].lower().split("_")
    return words[0] + "".join(word.capitalize() for word in words[1:])


def _common_prefix(enum_descriptor):
    names = [value.name for value in enum_descriptor.values]
    unspecified = next((name for name in names if name.endswith("_UNSPECIFIED")), None)
    return unspecified[: -len("UNSPECIFIED")] if unspecified else ""


@dataclass(frozen=True)
class Parameter:
    """A parameter of an intent: its key path, wire type, the host's prompt and a label."""

    key_path: str
    value_type: str
    label: str
    prompt: str = ""
    is_array: bool = False
