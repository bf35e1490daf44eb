"""`intentmesh.v1.IntentsExtension` for any set of Python handlers: who calls, which handler, whether
the device must be unlocked, exactly-once Handle, SiriKit's defaults for responses and user
activities, the view sequence's checks and default displays, and user vocabulary. The same rules,
and the same statuses, as the Swift runtime (IntentsKit): the conformance kit checks both."""
import logging
import time
import uuid
import zoneinfo

import grpc
from google.protobuf import any_pb2, message as protobuf_message, timestamp_pb2
from intentmesh.v1 import (
    extension_service_pb2 as service,
    extension_service_pb2_grpc as service_grpc,
    interaction_pb2,
    manifest_pb2,
    view_pb2,
)

from . import keypaths, ledger, vocabulary
from .errors import Refusal, failed_precondition, invalid_argument, not_found, unimplemented
from .identity import acting_user
from .intents import IntentContext
from .results import case_name

log = logging.getLogger("unicornfit")

#: The statuses a response code names outright; the others follow from its prefix.
NAMED_STATUSES = {
    "ready": interaction_pb2.INTENT_HANDLING_STATUS_READY,
    "inProgress": interaction_pb2.INTENT_HANDLING_STATUS_IN_PROGRESS,
    "success": interaction_pb2.INTENT_HANDLING_STATUS_SUCCESS,
    "continueInApp": interaction_pb2.INTENT_HANDLING_STATUS_DEFERRED_TO_APPLICATION,
    "handleInApp": interaction_pb2.INTENT_HANDLING_STATUS_DEFERRED_TO_APPLICATION,
}


def handling_status(code_name):
    """INIntentHandlingStatus from a response code's name, as SiriKit derives it."""
    if code_name in NAMED_STATUSES:
        return NAMED_STATUSES[code_name]
    if code_name.startswith("failureRequiringAppLaunch"):
        return interaction_pb2.INTENT_HANDLING_STATUS_DEFERRED_TO_APPLICATION
    if code_name.startswith("failure"):
        return interaction_pb2.INTENT_HANDLING_STATUS_FAILURE
    return interaction_pb2.INTENT_HANDLING_STATUS_UNSPECIFIED


def packed(message):
    value = any_pb2.Any()
    value.Pack(message)
    return value


class IntentsExtension(service_grpc.IntentsExtensionServicer):
    def __init__(self, handlers, manifest, store, verifier, clock=time.time):
        self.handlers = handlers
        self.manifest = manifest
        self.store = store
        self.verifier = verifier
        self.clock = clock
        self.restricted = set(manifest.intents_restricted_while_locked)

    # -- the checks every intent RPC makes, in SiriKit's order -------------------------------------

    def _enter(self, grpc_context, request_context, intent):
        user = acting_user(self.verifier, grpc_context.invocation_metadata(), request_context)
        handler = self.handlers.get(intent.intent_class)
        if handler is None:
            raise not_found(f"no handler for intent class {intent.intent_class} in this service")
        if request_context.device_locked and intent.intent_class in self.restricted:
            raise failed_precondition(
                f"{intent.intent_class} is restricted while locked: the user must unlock the device first"
            )
        zone = zoneinfo.ZoneInfo("UTC")
        if request_context.time_zone:
            try:
                zone = zoneinfo.ZoneInfo(request_context.time_zone)
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                raise invalid_argument(f'context.time_zone "{request_context.time_zone}" is not an IANA time zone')
        context = IntentContext(
            user_id=user,
            locale=request_context.locale or "en-US",
            time_zone=zone,
            device_locked=request_context.device_locked,
            identifier=intent.identifier,
            now_ms=int(self.clock() * 1000),
        )
        return handler, context

    @staticmethod
    def _payload(handler, any_payload, what="intent.payload"):
        decoded = handler.payload_type()
        if not any_payload.type_url and not any_payload.value:
            return decoded
        expected = handler.payload_type.DESCRIPTOR.full_name
        if any_payload.type_url.rsplit("/", 1)[-1] != expected:
            raise invalid_argument(f"{what} must be {expected}, not {any_payload.type_url or 'an empty type'}")
        try:
            decoded.ParseFromString(any_payload.value)
        except protobuf_message.DecodeError as error:
            raise invalid_argument(f"{what} does not decode as {expected}: {error}")
        return decoded

    def _built(self, intent, answer, now_ms, status=None):
        """The response and interaction SiriKit builds: code name, status, default user activity."""
        code = answer.response.code
        code_name = case_name(answer.response.DESCRIPTOR.enum_types_by_name["Code"], code)
        response = interaction_pb2.IntentResponse(
            intent_class=intent.intent_class, code=code, code_name=code_name, payload=packed(answer.response)
        )
        date = timestamp_pb2.Timestamp()
        date.FromMilliseconds(now_ms)
        interaction = interaction_pb2.Interaction(
            identifier=str(uuid.uuid4()),
            intent=intent,
            intent_response=response,
            intent_handling_status=status if status is not None else handling_status(code_name),
            direction=interaction_pb2.INTERACTION_DIRECTION_OUTGOING,
            date=date,
        )
        # SiriKit's cycle cut once: the interaction carries the response without its user activity;
        # the response's activity carries the interaction.
        response.user_activity.CopyFrom(
            interaction_pb2.UserActivity(
                activity_type=intent.intent_class, user_info=answer.user_info, interaction=interaction
            )
        )
        return response, interaction

    def _guarded(self, method, grpc_context, body):
        try:
            return body()
        except Refusal as refusal:
            grpc_context.abort(refusal.code, refusal.message)
        except Exception:  # anything unexpected: logged, and INTERNAL without internals
            request_id = uuid.uuid4().hex[:12]
            log.exception("%s failed (request %s)", method, request_id)
            grpc_context.abort(grpc.StatusCode.INTERNAL, f"internal error (request {request_id})")

    # -- the RPCs ----------------------------------------------------------------------------------

    def Describe(self, request, context):
        return service.DescribeResponse(manifest=self.manifest)

    def Resolve(self, request, context):
        def body():
            handler, intent_context = self._enter(context, request.context, request.intent)
            intent = self._payload(handler, request.intent.payload)
            resolutions, resolved = self.store.read(
                lambda database: handler.resolve(intent, list(request.parameters), intent_context, database)
            )
            settled = ("success", "not_required")
            response = service.ResolveResponse(
                resolutions=resolutions,
                complete=all(r.WhichOneof("kind") in settled for res in resolutions for r in res.results),
            )
            response.resolved_intent.CopyFrom(request.intent)
            response.resolved_intent.payload.CopyFrom(packed(resolved))
            return response

        return self._guarded("Resolve", context, body)

    def Confirm(self, request, context):
        def body():
            handler, intent_context = self._enter(context, request.context, request.intent)
            intent = self._payload(handler, request.intent.payload)
            answer = self.store.read(lambda database: handler.confirm(intent, intent_context, database))
            response, interaction = self._built(request.intent, answer, intent_context.now_ms)
            return service.ConfirmResponse(response=response, interaction=interaction)

        return self._guarded("Confirm", context, body)

    def Handle(self, request, context):
        def body():
            handler, intent_context = self._enter(context, request.context, request.intent)
            intent = self._payload(handler, request.intent.payload)
            if not request.intent.identifier:
                raise invalid_argument(
                    f"Handle of {request.intent.intent_class} needs intent.identifier: it is the key that makes"
                    " a retried Handle take effect once"
                )
            payload_bytes = request.intent.payload.SerializeToString(deterministic=True)

            def handled(database):
                earlier = ledger.entry(intent_context.user_id, request.intent.identifier, database)
                if earlier is not None:
                    if earlier.intent_class != request.intent.intent_class or not self._same_payload(
                        handler, earlier.payload, request.intent.payload
                    ):
                        raise failed_precondition(
                            f"intent identifier {request.intent.identifier} was already handled with a different"
                            f" {request.intent.intent_class}; use a new identifier"
                        )
                    replay = service.HandleResponse.FromString(earlier.response)
                    replay.replayed = True
                    return replay
                answer = handler.handle(intent, intent_context, database)
                response, interaction = self._built(request.intent, answer, intent_context.now_ms)
                answered = service.HandleResponse(response=response, interaction=interaction)
                entry = ledger.Entry(request.intent.intent_class, payload_bytes, answered.SerializeToString())
                ledger.record(intent_context.user_id, request.intent.identifier, entry, intent_context.now_ms, database)
                return answered

            return self.store.write(handled)

        return self._guarded("Handle", context, body)

    @staticmethod
    def _same_payload(handler, stored, current):
        """The same intent: equal messages, whatever the field order of their encodings."""
        earlier = any_pb2.Any.FromString(stored)
        try:
            return IntentsExtension._payload(handler, earlier) == IntentsExtension._payload(handler, current)
        except Refusal:
            return False

    def ConfigureView(self, request, context):
        def body():
            interaction = request.interaction
            handler, intent_context = self._enter(context, request.context, interaction.intent)
            response_class = handler.intent_class + "Response"
            for parameter in request.parameters:
                self._validate_view_parameter(handler, parameter, response_class)
            intent = self._payload(handler, interaction.intent.payload)
            response = None
            if interaction.intent_response.HasField("payload"):
                response = handler.response_type()
                if not interaction.intent_response.payload.Unpack(response):
                    raise invalid_argument(
                        f"interaction.intent_response.payload must be {handler.response_type.DESCRIPTOR.full_name}"
                    )
            configuration = handler.configure_view(
                list(request.parameters), intent, response, interaction.intent_handling_status, intent_context
            )
            shown = list(request.parameters)
            if configuration.configured:
                shown += [claimed for claimed in configuration.parameters if claimed not in shown]
            answer = view_pb2.ConfigureViewResponse(
                configured=configuration.configured,
                configured_parameters=configuration.parameters if configuration.configured else [],
                display_values=self._displays(handler, shown, intent, response),
            )
            if configuration.configured:
                answer.desired_size.width = configuration.width
                answer.desired_size.height = configuration.height
                if configuration.view is not None:
                    answer.view.CopyFrom(configuration.view)
            return answer

        return self._guarded("ConfigureView", context, body)

    @staticmethod
    def _validate_view_parameter(handler, parameter, response_class):
        segments = keypaths.parse(parameter.key_path)
        if parameter.parameter_class == handler.intent_class:
            descriptor = handler.payload_type.DESCRIPTOR
        elif parameter.parameter_class == response_class:
            descriptor = handler.response_type.DESCRIPTOR
        else:
            raise invalid_argument(
                f"parameter class {parameter.parameter_class} is neither {handler.intent_class} nor {response_class}"
            )
        problem = keypaths.schema_problem(segments, descriptor)
        if problem:
            raise invalid_argument(
                f'unknown parameter key path "{parameter.key_path}" of {parameter.parameter_class}: {problem}'
            )

    @staticmethod
    def _displays(handler, parameters, intent, response):
        trees = {handler.intent_class: keypaths.tree(intent)}
        if response is not None:
            trees[handler.intent_class + "Response"] = keypaths.tree(response)
        labels = {parameter.key_path: parameter.label for parameter in handler.parameters}
        displays, seen = [], set()
        for parameter in parameters:
            key = (parameter.parameter_class, parameter.key_path)
            if key in seen:
                continue
            seen.add(key)
            tree = trees.get(parameter.parameter_class)
            value = keypaths.value_at(parameter.key_path, tree) if tree is not None else None
            root = keypaths.parse(parameter.key_path)[0][0]
            text = handler.display(parameter, intent, response)
            displays.append(
                view_pb2.ParameterDisplay(
                    parameter=parameter,
                    label=labels.get(root, "") if parameter.parameter_class == handler.intent_class else "",
                    display_text=text if text is not None else _enum_text(handler, parameter, value),
                )
            )
        return displays

    def SetUserVocabulary(self, request, context):
        def body():
            user = acting_user(self.verifier, context.invocation_metadata(), request.context)
            declared = list(self.manifest.vocabulary_types)
            if request.vocabulary_type not in declared:
                names = ", ".join(_vocabulary_type_name(t) for t in declared)
                raise invalid_argument(
                    f"{self.manifest.app_name} takes user vocabulary of types {names},"
                    f" not {_vocabulary_type_name(request.vocabulary_type)}"
                )
            kept, discarded = vocabulary.entries(request)
            self.store.write(lambda database: vocabulary.replace(user, request.vocabulary_type, kept, database))
            return service.SetUserVocabularyResponse(stored_count=len(kept), discarded_count=discarded)

        return self._guarded("SetUserVocabulary", context, body)

    def StartSendingUpdates(self, request, context):
        def body():
            handler, _ = self._enter(context, request.context, request.intent)
            self._payload(handler, request.intent.payload)
            raise unimplemented(f"{request.intent.intent_class} has no live updates")

        self._guarded("StartSendingUpdates", context, body)
        return iter(())


def _enum_text(handler, parameter, value):
    """A declared enum parameter shows its case name ("outdoor"); anything else its display text."""
    if parameter.parameter_class == handler.intent_class and isinstance(value, str):
        field = next((f for f in handler.payload_type.DESCRIPTOR.fields if f.json_name == parameter.key_path), None)
        if field is not None and field.enum_type is not None and value in field.enum_type.values_by_name:
            return case_name(field.enum_type, field.enum_type.values_by_name[value].number)
    return keypaths.display_text(value)


def _vocabulary_type_name(number):
    try:
        return manifest_pb2.VocabularyStringType.Name(number)
    except ValueError:
        return str(number)
