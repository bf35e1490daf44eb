"""A request whose gRPC message END_STREAM cuts short, to every method the gateway serves and every
method each domain serves (found by server reflection, not listed by hand): three bytes of a 5-byte
length prefix, or ten of the hundred bytes a prefix promised. On grpc-swift (the gateway's own server
and the Swift domains) each call must end with INTERNAL and the message that says how the request
was cut (CUTS) — in a trailers-only answer or in trailers after headers — never OK (as if the client
had sent nothing), never a reset or a hang; and the connection it came on, and the service, still
answer a whole call.

Each service's calls, both cuts, go as streams of one HTTP/2 connection (`support.RawGrpc`), at
once, and must all be answered within `support.ANSWER_WITHIN` seconds.

UnicornFit (workouts-service) is served by grpcio, whose transport cannot tell a request cut short
from one without a message (see GRPCIO_ANSWERS): its methods, on its own port and relayed by the
gateway (which passes a domain's frames through as they came), are checked for grpcio's answer."""
import re

import pytest
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2

import support as s

REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"
REFLECTION_V1ALPHA = "grpc.reflection.v1alpha.ServerReflection"
HEALTH = "grpc.health.v1.Health"
EXTENSION = "intentmesh.v1.IntentsExtension"
APP_SERVICES = {
    "messaging-service": "intentmesh.messaging.v1.UnicornChatApp",
    "payments-service": "intentmesh.payments.v1.UnicornPayApp",
    "ridebooking-service": "intentmesh.ridebooking.v1.UnicornRidesApp",
    "notes-service": "intentmesh.notebook.v1.UnicornNoteApp",
    "workouts-service": "intentmesh.workouts.v1.UnicornFitApp",
}
#: What each endpoint must list at least (so that a reflection answering little cannot make the
#: checks below pass by checking little).
EXPECTED_SERVICES = {
    "gateway": {REFLECTION_V1, REFLECTION_V1ALPHA, HEALTH, EXTENSION, "intentmesh.gateway.v1.Gateway",
                *APP_SERVICES.values()},
    **{domain: {REFLECTION_V1, REFLECTION_V1ALPHA, HEALTH, EXTENSION, app} for domain, app in APP_SERVICES.items()},
}
#: The methods of the standard services, for one that an endpoint lists but cannot describe.
STANDARD_METHODS = {
    REFLECTION_V1: [("ServerReflectionInfo", "bidi")],
    REFLECTION_V1ALPHA: [("ServerReflectionInfo", "bidi")],
    HEALTH: [("Check", "unary"), ("Watch", "server-streaming")],
}

SWIFT_TARGETS = ["gateway", "messaging-service", "payments-service", "ridebooking-service", "notes-service"]
KINDS = ["unary", "server-streaming", "bidi"]

#: The two cuts, the request's bytes before END_STREAM and grpc-swift's grpc-message for them: three
#: bytes into a message's 5-byte prefix, and ten bytes into a message whose prefix promised a hundred.
CUTS = {
    "prefix-3-of-5": (
        b"\x00\x00\x00",
        "Incomplete request message: the request ended 3 of 5 bytes into a message's length prefix"),
    "body-10-of-100": (
        b"\x00\x00\x00\x00\x64" + b"\x2a" * 10,
        "Incomplete request message: the request ended 10 bytes into a message whose prefix promised 100 bytes"),
}

HEALTH_CHECK = f"/{HEALTH}/Check"
SERVING = b"\x08\x01"  # grpc.health.v1.HealthCheckResponse{status: SERVING}

#: What grpcio (workouts-service) answers a request cut short, by kind of method: (grpc-status, a
#: pattern the whole grpc-message matches). Not the contract's INTERNAL, and not UnicornFit's to
#: change: grpcio's HTTP/2 transport (grpc-core chttp2, grpc_chttp2_maybe_complete_recv_message)
#: throws away a partial message once the request's side of the stream has closed and reports the
#: end of the stream, so the call looks to the Python server exactly like one whose client sent no
#: message — no Python code, not even a method's request_deserializer, sees a byte of it. A method
#: that takes one request then answers UNIMPLEMENTED in grpcio's words ('"<method>" requires exactly
#: one request message.', the method printed as grpcio has it, b''), and ServerReflectionInfo ends
#: OK with no answer: what test_interop.py's EMPTY_ANSWERS has grpcio answer a request without one.
GRPCIO_ANSWERS = {
    "unary": ("12", re.compile(r'".*" requires exactly one request message\.')),
    "server-streaming": ("12", re.compile(r'".*" requires exactly one request message\.')),
    "bidi": ("0", re.compile("")),
}


def kind_of(client_streaming, server_streaming):
    return {(False, False): "unary", (False, True): "server-streaming", (True, False): "client-streaming",
            (True, True): "bidi"}[(client_streaming, server_streaming)]


class Catalog:
    """An endpoint's methods as its reflection gives them: (path, kind), the services it lists, and
    those of them it lists but cannot describe (their methods taken from STANDARD_METHODS)."""

    def __init__(self, listed, methods, undescribed):
        self.listed = listed
        self.methods = methods
        self.undescribed = undescribed

    def paths(self, kind=None, where=lambda path: True):
        return [path for path, method_kind in self.methods if (kind is None or method_kind == kind) and where(path)]


def reflect(stack, target):
    info = stack.raw_channel(target).stream_stream(
        f"/{REFLECTION_V1}/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
    [listing] = info(iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=s.TIMEOUT)
    listed = sorted(service.name for service in listing.list_services_response.service)
    described = info(iter([reflection_pb2.ServerReflectionRequest(file_containing_symbol=name) for name in listed]),
                     timeout=s.TIMEOUT)
    methods, undescribed = [], []
    for name, answer in zip(listed, described):
        found = None
        for raw in answer.file_descriptor_response.file_descriptor_proto:
            file = descriptor_pb2.FileDescriptorProto.FromString(raw)
            for service in file.service:
                if f"{file.package}.{service.name}" == name:
                    found = [(method.name, kind_of(method.client_streaming, method.server_streaming))
                             for method in service.method]
        if found is None:
            undescribed.append(name)
            found = STANDARD_METHODS.get(name, [])
        methods += [(f"/{name}/{method}", kind) for method, kind in found]
    return Catalog(listed, methods, undescribed)


@pytest.fixture(scope="module")
def catalogs(stack):
    """Each endpoint's Catalog, read once."""
    known = {}

    def catalog(target):
        if target not in known:
            known[target] = reflect(stack, target)
        return known[target]

    return catalog


def answered_by_grpcio(target, path):
    return target == "workouts-service" or path.startswith("/intentmesh.workouts.")


@pytest.fixture(scope="module")
def cut_short(stack, catalogs):
    """Per endpoint, once: every method it serves called with each cut, all at once on one
    connection, then a whole health check on it; {(cut, path): answer} and the health check's answer."""
    known = {}

    def calls(target):
        if target not in known:
            paths = catalogs(target).paths()
            client = s.RawGrpc(stack.endpoints[target], token=stack.token("diana"))
            try:
                started = {(cut, path): client.start(path, body) for cut, (body, _) in CUTS.items() for path in paths}
                answered = dict(zip(started, client.wait(list(started.values()))))
                health = client.call(HEALTH_CHECK, s.grpc_frame(b""))
            finally:
                client.close()
            known[target] = answered, health
        return known[target]

    return calls


def assert_each_answered(target, answers, expected, what):
    """Each answer ended, was not reset and has the (grpc-status, pattern of the whole grpc-message)
    `expected(answer)`; `what` says what was expected."""
    def as_expected(answer):
        status, message = expected(answer)
        return (answer.ended and answer.reset is None and answer.status == status
                and message.fullmatch(answer.message) is not None)

    wrong = [answer for answer in answers if not as_expected(answer)]
    assert not wrong, (
        f"{len(wrong)} of {len(answers)} calls to {target} cut short were not answered {what} within "
        f"{s.ANSWER_WITHIN} s:\n" + "\n".join(map(repr, wrong)))


def assert_the_service_still_answers(stack, target, health):
    assert (health.status, health.messages()) == ("0", [SERVING]), f"the connection no longer serves: {health!r}"
    # A new connection too.
    check = stack.raw_channel(target).unary_unary(HEALTH_CHECK, request_serializer=None, response_deserializer=None)
    assert check(b"", timeout=s.TIMEOUT) == SERVING


@pytest.mark.parametrize("target", ["gateway", *APP_SERVICES])
def test_reflection_lists_and_describes_every_service(catalogs, target):
    catalog = catalogs(target)
    assert EXPECTED_SERVICES[target] <= set(catalog.listed), f"{target} lists {catalog.listed}"
    assert catalog.undescribed == [], (
        f"{target} lists {catalog.undescribed} but file_containing_symbol does not describe them")
    for service in catalog.listed:
        assert catalog.paths(where=lambda path: path.startswith(f"/{service}/")), f"{service} has no methods"
    assert {kind for _, kind in catalog.methods} <= set(KINDS), catalog.methods  # no kind left unchecked


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("cut", list(CUTS))
@pytest.mark.parametrize("target", SWIFT_TARGETS)
def test_a_request_cut_short_is_internal_incomplete_request_message(stack, catalogs, cut_short, target, cut, kind):
    paths = catalogs(target).paths(kind, where=lambda path: not answered_by_grpcio(target, path))
    assert paths, f"{target} serves no {kind} method"
    answered, health = cut_short(target)
    message = CUTS[cut][1]
    assert_each_answered(target, [answered[(cut, path)] for path in paths],
                         lambda answer: ("13", re.compile(re.escape(message))), f"INTERNAL {message!r}")
    assert_the_service_still_answers(stack, target, health)


@pytest.mark.parametrize("cut", list(CUTS))
@pytest.mark.parametrize("target", ["workouts-service", "gateway"])
def test_the_python_domain_answers_a_request_cut_short_as_grpcio_does(stack, catalogs, cut_short, target, cut):
    """grpcio's answer to a request without a message (GRPCIO_ANSWERS), on UnicornFit's port and
    relayed by the gateway: documented behaviour of the Python domain, not the contract's INTERNAL."""
    catalog = catalogs(target)
    kinds = dict(catalog.methods)
    paths = catalog.paths(where=lambda path: answered_by_grpcio(target, path))
    assert paths, f"{target} serves no method of the Python domain"
    if target == "workouts-service":
        assert {kinds[path] for path in paths} == set(KINDS), catalog.methods  # every kind of GRPCIO_ANSWERS seen
    answered, health = cut_short(target)
    answers = [answered[(cut, path)] for path in paths]
    assert_each_answered(target, answers, lambda answer: GRPCIO_ANSWERS[kinds[answer.path]],
                         "as grpcio answers a request without a message")
    assert all(answer.messages() == [] for answer in answers), answers
    assert_the_service_still_answers(stack, target, health)
