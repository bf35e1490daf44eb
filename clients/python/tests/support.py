"""What the contract tests share: request contexts, intents in their envelope, the SiriKit round
(resolve → confirm → handle) with its checks, assertions on gRPC statuses, and gRPC spoken frame by
frame over raw HTTP/2 (the `h2` package)."""
import socket
import struct
import time
import urllib.parse
import uuid

import grpc
import h2.config
import h2.connection
import h2.events
import pytest
from google.protobuf import any_pb2
from intentmesh.v1 import extension_service_pb2 as ext_pb2
from intentmesh.ridebooking.v1 import ridebooking_pb2 as rides
from intentmesh.v1 import intent_pb2, interaction_pb2
from intentmesh_client import describe

#: Every unary call carries a deadline, so a hang fails a test instead of the suite.
TIMEOUT = 15

DOMAIN_OF = {
    "messaging": "messaging-service",
    "payments": "payments-service",
    "ridebooking": "ridebooking-service",
    "notes": "notes-service",
}

READY = interaction_pb2.INTENT_HANDLING_STATUS_READY
SUCCESS = interaction_pb2.INTENT_HANDLING_STATUS_SUCCESS
FAILURE = interaction_pb2.INTENT_HANDLING_STATUS_FAILURE
DEFERRED_TO_APPLICATION = interaction_pb2.INTENT_HANDLING_STATUS_DEFERRED_TO_APPLICATION
USER_CONFIRMATION_REQUIRED = interaction_pb2.INTENT_HANDLING_STATUS_USER_CONFIRMATION_REQUIRED


def context(user="diana", time_zone="Europe/Zurich", locked=False):
    return intent_pb2.RequestContext(user_id=user, time_zone=time_zone, device_locked=locked, locale="en-US")


def intent(intent_class, message=None, app_name="", identifier=None):
    made = intent_pb2.Intent(
        intent_class=intent_class, identifier=identifier or f"contract-{uuid.uuid4()}", app_name=app_name
    )
    if message is not None:
        made.payload.Pack(message)
    return made


def unpack(any_message, message_type):
    message = message_type()
    assert any_message.Unpack(message), f"expected {message_type.DESCRIPTOR.full_name}, got {any_message.type_url}"
    return message


def kind(result):
    return result.WhichOneof("kind")


def results(resolved):
    """{parameter: [ResolutionResult, …]} of a ResolveResponse."""
    return {resolution.parameter: list(resolution.results) for resolution in resolved.resolutions}


def describe_resolutions(resolved):
    return "\n".join(
        f"{resolution.parameter}: {describe(result)}" for resolution in resolved.resolutions for result in resolution.results
    )


def resolve(extension, request_context, the_intent, parameters=()):
    return extension.Resolve(
        ext_pb2.ResolveRequest(context=request_context, intent=the_intent, parameters=list(parameters)),
        timeout=TIMEOUT,
    )


def confirm(extension, request_context, the_intent):
    return extension.Confirm(ext_pb2.ConfirmRequest(context=request_context, intent=the_intent), timeout=TIMEOUT)


def handle(extension, request_context, the_intent):
    """Handle as a client that asked the user does it: Confirm first, then Handle with Confirm's
    confirmation token (none when the intent needs no yes or Confirm refused it)."""
    try:
        token = confirm(extension, request_context, the_intent).confirmation_token
    except grpc.RpcError:
        token = ""  # Handle answers the same error, or its own
    return extension.Handle(
        ext_pb2.HandleRequest(context=request_context, intent=the_intent, confirmation_token=token), timeout=TIMEOUT)


class Round:
    """The outcome of one SiriKit round: what resolve, confirm and handle answered."""

    def __init__(self, resolved, confirmed, handled, response):
        self.resolved = resolved
        self.confirmed = confirmed
        self.handled = handled
        self.response = response

    @property
    def results(self):
        return results(self.resolved)


def sirikit_round(extension, request_context, the_intent, response_type, needs_user_confirmation=None):
    """Resolve (must be complete), confirm (must be ready), handle (must succeed); the typed response.

    `needs_user_confirmation` checks what confirm's interaction says: True → USER_CONFIRMATION_REQUIRED
    (the intent waits for the user's yes), False → READY.
    """
    resolved = resolve(extension, request_context, the_intent)
    assert resolved.complete, f"resolve not complete:\n{describe_resolutions(resolved)}"
    assert resolved.resolved_intent.intent_class == the_intent.intent_class
    assert resolved.resolved_intent.identifier == the_intent.identifier
    confirmed = confirm(extension, request_context, resolved.resolved_intent)
    assert confirmed.response.code_name == "ready", (
        f"confirm answered {confirmed.response.code_name}: {dict(confirmed.response.user_activity.user_info)}"
    )
    if needs_user_confirmation is not None:
        expected = USER_CONFIRMATION_REQUIRED if needs_user_confirmation else READY
        assert confirmed.interaction.intent_handling_status == expected
    handled = extension.Handle(
        ext_pb2.HandleRequest(context=request_context, intent=resolved.resolved_intent,
                              confirmation_token=confirmed.confirmation_token), timeout=TIMEOUT)
    assert handled.response.code_name == "success", (
        f"handle answered {handled.response.code_name}: {dict(handled.response.user_activity.user_info)}"
    )
    assert handled.interaction.intent_handling_status == SUCCESS
    assert handled.response.intent_class == the_intent.intent_class
    assert not handled.replayed
    return Round(resolved, confirmed, handled, unpack(handled.response.payload, response_type))


def handled_response(extension, request_context, the_intent, response_type, code_name="success"):
    """Handle alone (set-up and checks around the intent under test), with the code it must answer."""
    handled = handle(extension, request_context, the_intent)
    assert handled.response.code_name == code_name, (
        f"{the_intent.intent_class} handle answered {handled.response.code_name} "
        f"{dict(handled.response.user_activity.user_info)}, expected {code_name}"
    )
    return unpack(handled.response.payload, response_type)


# Statuses that mean the server did not answer the request as the contract says: a crash, a reset
# stream, a transport failure.
NOT_A_CONTRACT_ANSWER = {
    grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL, grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE,
}


def expect_status(call, code, *mentions):
    """Runs `call`, which must fail with `code` and a details message mentioning each of `mentions`
    (case-insensitive). Returns the error."""
    try:
        result = call()
        # A server stream fails on iteration, not on the call.
        if hasattr(result, "__next__"):
            result = next(result)
    except grpc.RpcError as raised:
        error = raised
    else:
        text = str(result)
        pytest.fail(f"expected {code.name}, got an answer instead:\n{text[:1500]}")
    details = error.details() or ""
    assert error.code() == code, f"expected {code.name}, got {error.code().name}: {details!r}"
    assert details.strip(), f"{code.name} came with an empty message"
    for mention in mentions:
        assert mention.lower() in details.lower(), f"{code.name} message {details!r} does not mention {mention!r}"
    return error


def money_cents(amount):
    """A CurrencyAmount or BalanceAmount in minor units (exact)."""
    return amount.units * 100 + amount.nanos // 10_000_000


def any_of(message):
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


RUNNING_RIDE_PHASES = {
    rides.RIDE_PHASE_RECEIVED, rides.RIDE_PHASE_CONFIRMED, rides.RIDE_PHASE_APPROACHING_PICKUP,
    rides.RIDE_PHASE_PICKUP, rides.RIDE_PHASE_ONGOING,
}


def ride_status(extension, user="diana"):
    """(code name, GetRideStatusIntentResponse) of the user's running or last ride."""
    handled = handle(extension, context(user=user), intent("INGetRideStatusIntent", rides.GetRideStatusIntent()))
    return handled.response.code_name, unpack(handled.response.payload, rides.GetRideStatusIntentResponse)


def settle_rides(extension, timeout=20):
    """Leaves Diana without a running ride (she may have one at a time): cancels it, or waits for it
    to end once she is on board."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        code, answer = ride_status(extension)
        if code != "success" or answer.ride_status.phase not in RUNNING_RIDE_PHASES:
            return
        if answer.ride_status.phase != rides.RIDE_PHASE_ONGOING:
            cancel = rides.CancelRideIntent(ride_identifier=answer.ride_status.ride_identifier)
            handle(extension, context(), intent("INCancelRideIntent", cancel))
        else:
            time.sleep(0.2)
    pytest.fail("Diana's ride is still running")


# --- gRPC over raw HTTP/2 ----------------------------------------------------------------------------
# For requests no gRPC library sends (a message cut short, END_STREAM on the request's HEADERS) and
# for the bytes of an answer as they travel (a percent-encoded grpc-message): h2c with prior knowledge,
# each call a stream of its own on one connection, the answers read as their frames come.

#: How long a call made frame by frame may take to be answered before it counts as a hang.
ANSWER_WITHIN = 5


def grpc_frame(payload, compressed=False):
    """One gRPC length-prefixed message: the compressed flag, a 4-byte big-endian length, the bytes."""
    return struct.pack(">BI", 1 if compressed else 0, len(payload)) + payload


class RawGrpcAnswer:
    """What came back on one stream: response headers, DATA bytes, trailers (None for a trailers-only
    answer, whose status is in its headers), whether it ended, and a RST_STREAM's error code."""

    def __init__(self, path):
        self.path = path
        self.headers = None
        self.data = b""
        self.trailers = None
        self.ended = False
        self.reset = None

    def _status_block(self):
        if self.trailers is not None:
            return dict(self.trailers)
        return dict(self.headers or [])

    @property
    def trailers_only(self):
        return self.trailers is None and "grpc-status" in dict(self.headers or [])

    @property
    def status(self):
        """grpc-status as sent (a string), or None when none came."""
        return self._status_block().get("grpc-status")

    @property
    def raw_message(self):
        """grpc-message as it travelled (percent-encoded), or None."""
        return self._status_block().get("grpc-message")

    @property
    def message(self):
        """grpc-message decoded (percent-decoding, UTF-8); "" when none came."""
        return urllib.parse.unquote(self.raw_message or "", errors="strict")

    def messages(self):
        """The payloads of the gRPC messages in the DATA bytes (uncompressed ones)."""
        found, position = [], 0
        while position < len(self.data):
            assert len(self.data) - position >= 5, f"a message prefix cut short in the answer: {self.data!r}"
            _, length = struct.unpack(">BI", self.data[position:position + 5])
            found.append(self.data[position + 5:position + 5 + length])
            position += 5 + length
        return found

    def __repr__(self):
        if self.reset is not None:
            return f"{self.path}: RST_STREAM {self.reset!r}"
        if not self.ended:
            return f"{self.path}: no answer (headers {self.headers}, {len(self.data)} bytes of data)"
        shape = "trailers-only" if self.trailers_only else "headers, data, trailers"
        return (f"{self.path}: grpc-status {self.status} grpc-message {self.raw_message!r} ({shape}, "
                f"{len(self.data)} bytes of data)")


class RawGrpc:
    """One h2c connection that speaks gRPC frame by frame. `start` opens a call and sends exactly the
    frames it is told to; `wait` reads until the calls have ended or time is up."""

    def __init__(self, address, token=None):
        host, port = address.rsplit(":", 1)
        self.authority = address
        self.token = token
        self.socket = socket.create_connection((host, int(port)), timeout=ANSWER_WITHIN)
        self.connection = h2.connection.H2Connection(
            h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.connection.initiate_connection()
        self.socket.sendall(self.connection.data_to_send())
        self.answers = {}

    def start(self, path, body=None, headers=()):
        """Starts a call on `path`; its stream id. `body` None: HEADERS with END_STREAM and no DATA;
        bytes (maybe empty): HEADERS, then those bytes in one DATA frame with END_STREAM."""
        deadline = time.monotonic() + ANSWER_WITHIN
        while self.connection.open_outbound_streams >= self.connection.remote_settings.max_concurrent_streams:
            assert time.monotonic() < deadline, "no stream closed to make room for another within its time"
            self._pump(deadline)
        stream_id = self.connection.get_next_available_stream_id()
        request_headers = [(":method", "POST"), (":scheme", "http"), (":authority", self.authority), (":path", path),
                           ("content-type", "application/grpc"), ("te", "trailers")]
        if self.token:
            request_headers.append(("authorization", f"Bearer {self.token}"))
        request_headers += list(headers)
        self.answers[stream_id] = RawGrpcAnswer(path)
        self.connection.send_headers(stream_id, request_headers, end_stream=body is None)
        if body is not None:
            self.connection.send_data(stream_id, body, end_stream=True)
        self.socket.sendall(self.connection.data_to_send())
        return stream_id

    def _pump(self, deadline):
        """Reads what came until `deadline`; False when nothing came in time."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        self.socket.settimeout(remaining)
        try:
            data = self.socket.recv(65536)
        except socket.timeout:
            return False
        if not data:
            raise ConnectionError(f"{self.authority} closed the HTTP/2 connection")
        for event in self.connection.receive_data(data):
            if isinstance(event, h2.events.ConnectionTerminated):
                raise ConnectionError(f"GOAWAY from {self.authority}: {event}")
            answer = self.answers.get(getattr(event, "stream_id", None))
            if answer is None:
                continue
            if isinstance(event, h2.events.ResponseReceived):
                answer.headers = list(event.headers)
            elif isinstance(event, h2.events.DataReceived):
                answer.data += event.data
                self.connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.TrailersReceived):
                answer.trailers = list(event.headers)
            elif isinstance(event, h2.events.StreamEnded):
                answer.ended = True
            elif isinstance(event, h2.events.StreamReset):
                if not answer.ended:  # RST_STREAM(NO_ERROR) after a whole answer leaves it whole
                    answer.reset = event.error_code
                answer.ended = True
        pending = self.connection.data_to_send()
        if pending:
            self.socket.sendall(pending)
        return True

    def wait(self, stream_ids, within=ANSWER_WITHIN):
        """The answers on `stream_ids` once all have ended, or as they stand after `within` seconds."""
        deadline = time.monotonic() + within
        while not all(self.answers[stream_id].ended for stream_id in stream_ids):
            if not self._pump(deadline):
                break
        return [self.answers[stream_id] for stream_id in stream_ids]

    def call(self, path, body=None, headers=(), within=ANSWER_WITHIN):
        return self.wait([self.start(path, body, headers)], within)[0]

    def close(self):
        try:
            self.connection.close_connection()
            self.socket.sendall(self.connection.data_to_send())
        except OSError:
            pass
        finally:
            self.socket.close()
