"""What every example shares: stubs on a channel, a request context, and the SiriKit round of
resolve → confirm → handle for one intent, printing each parameter's result."""
import os
import sys
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "generated"))

import grpc  # noqa: E402
from intentmesh.v1 import extension_service_pb2, extension_service_pb2_grpc, intent_pb2  # noqa: E402


def add_token_argument(parser):
    """`--token`, defaulting to $INTENTMESH_TOKEN: the user's bearer token (`intentmesh token --user diana`)."""
    parser.add_argument("--token", default=os.environ.get("INTENTMESH_TOKEN", ""),
                        help="bearer token of the user (default $INTENTMESH_TOKEN; `intentmesh token --user diana`)")


def token(given=None):
    """The bearer token every call carries: `given` (--token), else $INTENTMESH_TOKEN."""
    value = (given or os.environ.get("INTENTMESH_TOKEN", "")).strip()
    if not value:
        sys.exit("no token: pass --token or export INTENTMESH_TOKEN=$(intentmesh token --user diana)")
    return value


class _Bearer(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    """Adds `authorization: Bearer <token>` to every call."""

    def __init__(self, bearer):
        self._header = ("authorization", f"Bearer {bearer}")

    def _with_token(self, details):
        metadata = list(details.metadata or []) + [self._header]
        return with_metadata(details, metadata)

    def intercept_unary_unary(self, continuation, details, request):
        return continuation(self._with_token(details), request)

    def intercept_unary_stream(self, continuation, details, request):
        return continuation(self._with_token(details), request)


def with_metadata(details, metadata):
    """`details` of a call, with `metadata` instead of its own (for client interceptors)."""
    return details._replace(metadata=metadata) if hasattr(details, "_replace") else _Details(details, metadata)


class _Details(grpc.ClientCallDetails):
    def __init__(self, details, metadata):
        self.method = details.method
        self.timeout = details.timeout
        self.metadata = metadata
        self.credentials = details.credentials
        self.wait_for_ready = getattr(details, "wait_for_ready", None)
        self.compression = getattr(details, "compression", None)


def channel(target, bearer=None):
    """A channel to `target` whose calls carry the bearer token (`bearer`, else $INTENTMESH_TOKEN)."""
    return grpc.intercept_channel(grpc.insecure_channel(target), _Bearer(token(bearer)))


def stub(target, bearer=None):
    return extension_service_pb2_grpc.IntentsExtensionStub(channel(target, bearer))


def context(time_zone="Europe/Zurich"):
    """Who the user is comes from the token; the context says where and how."""
    return intent_pb2.RequestContext(time_zone=time_zone)


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
    # The user's yes travels as Confirm's confirmation token, bound to exactly this intent.
    handled = extension.Handle(
        extension_service_pb2.HandleRequest(
            context=request_context, intent=resolved.resolved_intent,
            confirmation_token=confirmed.confirmation_token))
    response = response_type()
    handled.response.payload.Unpack(response)
    print(f"handle: {handled.response.code_name}")
    return (0 if handled.response.code_name == "success" else 4), response
