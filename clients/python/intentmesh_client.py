"""What every example shares: stubs on a channel, a request context, and the SiriKit round of
resolve → confirm → handle for one intent, printing each parameter's result."""
import os
import sys
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "generated"))

import grpc  # noqa: E402
from intentmesh.v1 import extension_service_pb2, extension_service_pb2_grpc, intent_pb2  # noqa: E402


def stub(target):
    return extension_service_pb2_grpc.IntentsExtensionStub(grpc.insecure_channel(target))


def context(user="diana", time_zone="Europe/Zurich"):
    return intent_pb2.RequestContext(user_id=user, time_zone=time_zone)


def intent(intent_class, message, app_name=""):
    made = intent_pb2.Intent(intent_class=intent_class, identifier=str(uuid.uuid4()), app_name=app_name)
    made.payload.Pack(message)
    return made


def describe(result):
    kind = result.WhichOneof("kind")
    detail = {
        "success": lambda: result.success.value.display_text,
        "disambiguation": lambda: " / ".join(o.display_text for o in result.disambiguation.options),
        "confirmation_required": lambda: result.confirmation_required.prompt,
        "needs_value": lambda: result.needs_value.prompt,
        "unsupported": lambda: result.unsupported.reason.message,
    }.get(kind, lambda: "")()
    return f"{kind} {detail}".rstrip()


def run(extension, request_context, the_intent, response_type):
    """Resolve until complete, confirm, handle. Returns (exit status, typed response or None)."""
    resolved = extension.Resolve(extension_service_pb2.ResolveRequest(context=request_context, intent=the_intent))
    for resolution in resolved.resolutions:
        for result in resolution.results:
            print(f"{resolution.parameter}: {describe(result)}")
    if not resolved.complete:
        print("not complete: answer the prompts above and try again")
        return 2, None
    confirmed = extension.Confirm(
        extension_service_pb2.ConfirmRequest(context=request_context, intent=resolved.resolved_intent))
    print(f"confirm: {confirmed.response.code_name}")
    if confirmed.response.code_name != "ready":
        print(dict(confirmed.response.user_activity.user_info))
        return 3, None
    handled = extension.Handle(
        extension_service_pb2.HandleRequest(context=request_context, intent=resolved.resolved_intent))
    response = response_type()
    handled.response.payload.Unpack(response)
    print(f"handle: {handled.response.code_name}")
    return (0 if handled.response.code_name == "success" else 4), response
