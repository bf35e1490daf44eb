"""What every intent handler is made of, whatever its domain: the context a request gives it, its
answer to confirm and handle, and the resolve loop that writes settled values back to the intent."""
import math
from dataclasses import dataclass, field

from google.protobuf.descriptor import FieldDescriptor
from intentmesh.v1 import resolution_pb2

from .errors import invalid_argument


@dataclass(frozen=True)
class IntentContext:
    """Who asks (the verified user), from what device, when, and about which intent identifier."""

    user_id: str
    locale: str
    time_zone: object
    device_locked: bool
    identifier: str
    now_ms: int


@dataclass
class Answer:
    """A confirm or handle answer: the typed response and the user activity's user_info."""

    response: object
    user_info: dict = field(default_factory=dict)


@dataclass
class ViewConfiguration:
    """One step's answer of configureView: drawn by the app (parameters, view, size) or declined."""

    configured: bool
    parameters: list = field(default_factory=list)
    view: object = None
    width: float = 0.0
    height: float = 0.0


DECLINED = ViewConfiguration(configured=False)


class IntentHandler:
    """An intent class's handler. Subclasses set the class attributes, a `resolvers` map from key
    path to method name, and `confirm`/`handle`; `configure_view` declines unless overridden."""

    intent_class = ""
    payload_type = None
    response_type = None
    parameters = ()
    requires_user_confirmation = False
    supports_live_updates = False
    confirmation_prompt = ""
    resolvers = {}

    def view_parameters(self):
        """The order a UI lays the parameters out: the intent's, in declared order."""
        return [(self.intent_class, parameter.key_path) for parameter in self.parameters]

    def resolve(self, intent, asked, context, database):
        """[(ParameterResolution)], and the intent with each success written back."""
        declared = [parameter.key_path for parameter in self.parameters]
        for name in asked:
            if name not in declared:
                raise invalid_argument(
                    f'{self.intent_class} has no parameter "{name}"; its parameters are: {", ".join(declared)}'
                )
        resolved = self.payload_type()
        resolved.CopyFrom(intent)
        resolutions = []
        for parameter in self.parameters:
            if asked and parameter.key_path not in asked:
                continue
            results = getattr(self, self.resolvers[parameter.key_path])(intent, context, database)
            for result in results:
                if result.WhichOneof("kind") == "success":
                    _write_back(resolved, parameter.key_path, result.success.value.value)
            resolutions.append(
                resolution_pb2.ParameterResolution(
                    parameter=parameter.key_path, is_array=parameter.is_array, results=results
                )
            )
        return resolutions, resolved

    def confirm(self, intent, context, database):
        raise NotImplementedError

    def handle(self, intent, context, database):
        raise NotImplementedError

    def configure_view(self, asked, intent, response, status, context):
        return DECLINED

    def display(self, parameter, intent, response):
        """The text a host shows for `parameter` when the generic reading of its value is not the
        right one; None: read by key path."""
        return None


def _write_back(message, key_path, value):
    """Puts a resolved value (an Any) into the top-level field named `key_path`."""
    descriptor = next(f for f in message.DESCRIPTOR.fields if f.json_name == key_path)
    if descriptor.type == FieldDescriptor.TYPE_ENUM:
        from google.protobuf import wrappers_pb2

        number = wrappers_pb2.Int32Value()
        value.Unpack(number)
        setattr(message, descriptor.name, number.value)
    elif descriptor.type == FieldDescriptor.TYPE_MESSAGE:
        target = getattr(message, descriptor.name)
        if not value.Unpack(target):
            raise invalid_argument(f"{key_path} must be a {descriptor.message_type.full_name}")


def finite_positive(number):
    return math.isfinite(number) and number > 0
