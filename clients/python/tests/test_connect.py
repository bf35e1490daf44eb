"""The gateway's public port as a web client sees it: the Connect protocol (unary calls in JSON or
binary, server streams in envelopes ending with an end-of-stream object) and gRPC-Web (frames, the
status in a trailers frame), over HTTP/1.1 — the requests curl and browsers send — and over HTTP/2
with prior knowledge (h2c), for every method the gateway serves (its own API, the IntentsExtension
it routes, health) and for a domain's app service it relays. Errors are Connect's error object
with the HTTP status of its code, and say what the gRPC call says. No CORS origin is configured
by `intentmesh up`: a preflight from elsewhere is refused, same-origin calls need no CORS headers.

Requests are made with the standard library (http.client) and, for HTTP/2, the `h2` package on a
plain socket; messages are built and read with the generated stubs (json_format for JSON)."""
import base64
import gzip
import http.client
import json
import re
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
from google.protobuf import json_format
from google.protobuf import timestamp_pb2, wrappers_pb2
from google.rpc import error_details_pb2, status_pb2
from intentmesh.gateway.v1 import gateway_pb2 as gw
from intentmesh.gateway.v1 import gateway_pb2_grpc as gw_grpc
from intentmesh.messaging.v1 import app_pb2 as chat_app
from intentmesh.messaging.v1 import app_pb2_grpc as chat_app_grpc
from intentmesh.messaging.v1 import messaging_pb2 as chat
from intentmesh.notebook.v1 import notebook_pb2
from intentmesh.payments.v1 import payments_pb2 as pay
from intentmesh.ridebooking.v1 import ridebooking_pb2
from intentmesh.v1 import extension_service_pb2 as ext_pb2
from intentmesh.v1 import extension_service_pb2_grpc as ext_grpc
from intentmesh.v1 import types_pb2 as types
from intentmesh.v1 import view_pb2
from intentmesh.workouts.v1 import app_pb2 as fit_app
from intentmesh.workouts.v1 import workouts_pb2 as fit

import support as s

#: Types an Any in a JSON answer may hold: json_format finds them in the default pool once imported.
TYPES_IN_ANYS = (timestamp_pb2, wrappers_pb2, notebook_pb2, ridebooking_pb2, pay, chat, fit)

GATEWAY = "/intentmesh.gateway.v1.Gateway/"
EXTENSION = "/intentmesh.v1.IntentsExtension/"
HEALTH = "/grpc.health.v1.Health/"
CHAT_APP = "/intentmesh.messaging.v1.UnicornChatApp/"
FIT_APP = "/intentmesh.workouts.v1.UnicornFitApp/"

#: grpc.health.v1.HealthCheckResponse{status: SERVING} in binary (the health stubs are not generated here).
SERVING = b"\x08\x01"

JSON = "application/json"
PROTO = "application/proto"
CONNECT_JSON = "application/connect+json"
CONNECT_PROTO = "application/connect+proto"
GRPC_WEB = "application/grpc-web+proto"
GRPC_WEB_JSON = "application/grpc-web+json"

#: --max-message-bytes of `intentmesh up`'s gateway (its default, as in test_errors.py).
LIMIT = 4 * 1024 * 1024

COMPRESSED = 0x01  # an envelope's compressed-message flag
END_STREAM = 0x02  # Connect's end-of-stream envelope
TRAILERS = 0x80  # gRPC-Web's trailers frame

#: Connect's HTTP status of each error code (connectrpc.com/docs/protocol, "Error Codes").
HTTP_STATUS = {
    "canceled": 499, "unknown": 500, "invalid_argument": 400, "deadline_exceeded": 504, "not_found": 404,
    "already_exists": 409, "permission_denied": 403, "resource_exhausted": 429, "failed_precondition": 400,
    "aborted": 409, "out_of_range": 400, "unimplemented": 501, "internal": 500, "unavailable": 503,
    "data_loss": 500, "unauthenticated": 401,
}
#: The Connect name of each gRPC status.
CONNECT_CODE = {code: ("canceled" if code == grpc.StatusCode.CANCELLED else code.name.lower())
                for code in grpc.StatusCode}


# --- framing and requests -------------------------------------------------------------------------

def envelope(payload, flags=0):
    """One enveloped message (Connect streaming, gRPC-Web): flags, 4-byte big-endian length, bytes."""
    return struct.pack(">BI", flags, len(payload)) + payload


def envelopes(body):
    """The (flags, payload) envelopes of a whole body; fails on a cut-short one."""
    found, position = [], 0
    while position < len(body):
        assert len(body) - position >= 5, f"an envelope header cut short at byte {position}: {body!r}"
        flags, length = struct.unpack(">BI", body[position:position + 5])
        payload = body[position + 5:position + 5 + length]
        assert len(payload) == length, f"an envelope of {length} bytes has {len(payload)}: {body!r}"
        found.append((flags, payload))
        position += 5 + length
    return found


def is_json(content_type):
    return content_type.split(";")[0].strip().endswith("json")


def is_enveloped(content_type):
    return content_type.startswith("application/connect+") or content_type.startswith("application/grpc-web")


def encoded(body, content_type):
    """The request body of `body` for `content_type`: bytes as they are; a protobuf message as JSON
    or binary, a dict or str as JSON; in one envelope for the streaming and gRPC-Web types."""
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        payload = body.encode()
    elif isinstance(body, (dict, list)):
        payload = json.dumps(body).encode()
    elif is_json(content_type):
        payload = json_format.MessageToJson(body).encode()
    else:
        payload = body.SerializeToString()
    return envelope(payload) if is_enveloped(content_type) else payload


class Answer:
    """An HTTP answer: status, headers (lower-case names, in order), body and, on HTTP/2, trailers."""

    def __init__(self, status, headers, body, trailers=()):
        self.status = status
        self.headers = [(name.lower(), value) for name, value in headers]
        self.body = body
        self.trailers = list(trailers)

    def header(self, name):
        values = [value for key, value in self.headers if key == name]
        return ", ".join(values) if values else None

    @property
    def content_type(self):
        return self.header("content-type")

    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return f"HTTP {self.status} {self.headers} {self.body[:3000]!r}"


def bearer(stack, user="diana"):
    return {"authorization": f"Bearer {stack.token(user)}"}


#: The transport the web calls of a test go over: "http1" (curl, browsers on http://) or "h2c"
#: (HTTP/2 with prior knowledge, as Connect and gRPC-Web clients and browsers over TLS speak it).
#: Every test of this module runs over each (the `transport` fixture).
TRANSPORT = {"name": "http1"}


@pytest.fixture(autouse=True, params=["http1", "h2c"])
def transport(request):
    TRANSPORT["name"] = request.param
    yield request.param
    TRANSPORT["name"] = "http1"


def connect_call(stack, path, body=b"", headers=None, content_type=JSON, method="POST"):
    """One request on a fresh connection to the gateway's public port: HTTP/1.1 as curl sends it
    (Host, Content-Length, the given headers), or h2c (`TRANSPORT`); the whole answer."""
    if TRANSPORT["name"] == "h2c":
        client = H2Client(stack.gateway)
        try:
            return client.answer(client.send(path, body, headers=headers, content_type=content_type, method=method))
        finally:
            client.close()
    host, port = stack.gateway.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=s.TIMEOUT)
    try:
        sent = dict(headers or {})
        if content_type is not None:
            sent["content-type"] = content_type
        connection.request(method, path, body=encoded(body, content_type or JSON), headers=sent)
        response = connection.getresponse()
        return Answer(response.status, response.getheaders(), response.read())
    finally:
        connection.close()


def OpenStream(stack, path, body, headers=None, content_type=CONNECT_JSON, timeout=s.TIMEOUT):
    """A streaming request on its own connection (`TRANSPORT`), its answer read envelope by envelope."""
    if TRANSPORT["name"] == "h2c":
        return OpenH2Stream(stack, path, body, headers, content_type, timeout)
    return OpenHTTP1Stream(stack, path, body, headers, content_type, timeout)


class OpenHTTP1Stream:
    """A streaming request on its own HTTP/1.1 connection, its answer read envelope by envelope."""

    def __init__(self, stack, path, body, headers=None, content_type=CONNECT_JSON, timeout=s.TIMEOUT):
        host, port = stack.gateway.rsplit(":", 1)
        self.connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
        self.connection.request("POST", path, body=encoded(body, content_type),
                                headers={"content-type": content_type, **(headers or {})})
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.headers = [(name.lower(), value) for name, value in self.response.getheaders()]

    def header(self, name):
        return dict(self.headers).get(name)

    def next(self):
        """The next (flags, payload), or None at the end of the body."""
        head = self.response.read(5)
        if not head:
            return None
        assert len(head) == 5, f"an envelope header cut short: {head!r}"
        flags, length = struct.unpack(">BI", head)
        payload = self.response.read(length)
        assert len(payload) == length, f"an envelope of {length} bytes has {len(payload)}"
        return flags, payload

    def close(self):
        self.connection.close()


class OpenH2Stream:
    """A streaming request on its own h2c connection, its answer read envelope by envelope."""

    def __init__(self, stack, path, body, headers=None, content_type=CONNECT_JSON, timeout=s.TIMEOUT):
        self.client = H2Client(stack.gateway, timeout=timeout)
        self.stream_id = self.client.send(path, body, headers=headers, content_type=content_type)
        stream = self.client.streams[self.stream_id]
        while stream.status is None and not stream.ended:
            self.client._pump()
        self.status = stream.status
        self.headers = stream.headers
        self.position = 0

    def header(self, name):
        return dict(self.headers).get(name)

    def _read(self, count):
        stream = self.client.first_bytes(self.stream_id, self.position + count)
        chunk = stream.body[self.position:self.position + count]
        self.position += len(chunk)
        return chunk

    def next(self):
        """The next (flags, payload), or None at the end of the body."""
        head = self._read(5)
        if not head:
            return None
        assert len(head) == 5, f"an envelope header cut short: {head!r}"
        flags, length = struct.unpack(">BI", head)
        payload = self._read(length)
        assert len(payload) == length, f"an envelope of {length} bytes has {len(payload)}"
        return flags, payload

    @property
    def response(self):
        """What is left of the body, read as HTTP/1.1's response is (for messages in asserts)."""
        outer = self

        class Rest:
            def read(self, count):
                return outer._read(count)
        return Rest()

    def close(self):
        self.client.close()


def parsed(answer, message_type):
    """The answer's body as `message_type`: strict proto3 JSON for a JSON answer, else binary."""
    if is_json(answer.content_type):
        return json_format.Parse(answer.body, message_type())
    return message_type.FromString(answer.body)


#: Fields each call fills anew (so two calls never agree on them): by message type.
PER_CALL = {
    "intentmesh.v1.Interaction": ("identifier", "date"),
    "intentmesh.gateway.v1.InteractionLayout": ("interaction_identifier",),
    "intentmesh.workouts.v1.Workout": ("active_seconds",),
}


def repeated(field):
    """Whether a field is repeated (`is_repeated` since protobuf 5.29; `label` before, gone in 7)."""
    if hasattr(field, "is_repeated"):
        return field.is_repeated
    return field.label == field.LABEL_REPEATED


def without_per_call_fields(message):
    """A copy of `message` with the PER_CALL fields cleared, at any depth."""
    copy = type(message)()
    copy.CopyFrom(message)

    def clear(inner):
        for name in PER_CALL.get(inner.DESCRIPTOR.full_name, ()):
            inner.ClearField(name)
        for field, value in inner.ListFields():
            if field.message_type is None or field.message_type.GetOptions().map_entry:
                continue
            for item in (value if repeated(field) else [value]):
                clear(item)

    clear(copy)
    return copy


def as_json(message):
    """A message in proto3 JSON, as a dict (the body a web client sends)."""
    return json_format.MessageToDict(message)


def b64decode_unpadded(value):
    assert re.fullmatch(r"[A-Za-z0-9+/]*", value), f"not unpadded standard base64: {value!r}"
    return base64.b64decode(value + "=" * (-len(value) % 4))


def expect_error(answer, code, *mentions):
    """A unary Connect error: the HTTP status of `code`, a JSON error object with `code` and a
    message that mentions each of `mentions`. Returns the object."""
    assert answer.status == HTTP_STATUS[code], answer
    assert answer.content_type == JSON, answer
    error = answer.json()
    assert error["code"] == code, error
    message = error.get("message", "")
    assert message.strip(), f"{code} came with an empty message: {error}"
    for mention in mentions:
        assert mention.lower() in message.lower(), f"{code} message {message!r} does not mention {mention!r}"
    return error


def error_info(error):
    """(reason, domain) of each google.rpc.ErrorInfo detail of a Connect error object, checked two
    ways: the base64 `value` decoded with the stubs, and the `debug` JSON the gateway adds."""
    infos = []
    for detail in error.get("details", []):
        assert set(detail) >= {"type", "value"}, detail
        if detail["type"] != "google.rpc.ErrorInfo":
            continue
        info = error_details_pb2.ErrorInfo.FromString(b64decode_unpadded(detail["value"]))
        assert detail["debug"] == as_json(info), detail
        infos.append((info.reason, info.domain))
    return infos


def grpc_status_details(error):
    """(reason, domain) of the ErrorInfo details of a gRPC error's grpc-status-details-bin."""
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            infos = []
            for any_detail in status.details:
                info = error_details_pb2.ErrorInfo()
                if any_detail.Unpack(info):
                    infos.append((info.reason, info.domain))
            return infos
    return []


def grpc_call(stack, path, request, response_type, token_user=None, metadata=()):
    """The same method called over gRPC on the gateway (no token unless `token_user`)."""
    sent = list(metadata)
    if token_user:
        sent.append(("authorization", f"Bearer {stack.token(token_user)}"))
    call = stack.raw_channel("gateway").unary_unary(
        path, request_serializer=lambda message: message.SerializeToString(),
        response_deserializer=response_type.FromString)
    return call(request, metadata=sent, timeout=s.TIMEOUT)


def grpc_error(stack, path, request, token_user=None, metadata=()):
    """The gRPC error the same call answers over gRPC."""
    with pytest.raises(grpc.RpcError) as raised:
        grpc_call(stack, path, request, ext_pb2.DescribeResponse, token_user, metadata)
    return raised.value


def grpc_web_trailers(payload):
    """The lines of a gRPC-Web trailers frame as {name: value} (names lower-case)."""
    text = payload.decode("ascii")
    assert text.endswith("\r\n"), f"trailer lines end with CRLF: {text!r}"
    lines = text[:-2].split("\r\n")
    found = {}
    for line in lines:
        name, separator, value = line.partition(":")
        assert separator, f"not a header line: {line!r}"
        found[name.strip().lower()] = value.strip()
    return found


# --- HTTP/2 with prior knowledge --------------------------------------------------------------------

class H2Stream:
    def __init__(self):
        self.status = None
        self.headers = []
        self.body = b""
        self.trailers = []
        self.ended = False
        self.reset = None


class H2Client:
    """One h2c connection with prior knowledge (as `curl --http2-prior-knowledge` opens): each
    request on a stream of its own, the answers read as their frames come, in any order."""

    def __init__(self, address, timeout=s.TIMEOUT):
        host, port = address.rsplit(":", 1)
        self.authority = address
        self.socket = socket.create_connection((host, int(port)), timeout=timeout)
        self.connection = h2.connection.H2Connection(
            h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.connection.initiate_connection()
        self.socket.sendall(self.connection.data_to_send())
        self.streams = {}

    def send(self, path, body=b"", headers=None, content_type=JSON, method="POST"):
        """Starts a request; its stream id."""
        stream_id = self.connection.get_next_available_stream_id()
        request_headers = [(":method", method), (":scheme", "http"), (":authority", self.authority), (":path", path)]
        if content_type is not None:
            request_headers.append(("content-type", content_type))
        request_headers += [(name.lower(), value) for name, value in (headers or {}).items()]
        data = encoded(body, content_type or JSON)
        self.streams[stream_id] = H2Stream()
        self.connection.send_headers(stream_id, request_headers, end_stream=not data)
        self.socket.sendall(self.connection.data_to_send())
        while data:  # in frames the peer takes, within its flow-control window
            room = min(self.connection.local_flow_control_window(stream_id), self.connection.max_outbound_frame_size)
            if room <= 0:
                self._pump()  # wait for a WINDOW_UPDATE
                continue
            chunk, data = data[:room], data[room:]
            self.connection.send_data(stream_id, chunk, end_stream=not data)
            self.socket.sendall(self.connection.data_to_send())
        return stream_id

    def _pump(self):
        data = self.socket.recv(65536)
        if not data:
            raise ConnectionError("the gateway closed the HTTP/2 connection")
        for event in self.connection.receive_data(data):
            stream = self.streams.get(getattr(event, "stream_id", None))
            if isinstance(event, h2.events.ConnectionTerminated):
                raise ConnectionError(f"GOAWAY from the gateway: {event}")
            if stream is None:
                continue
            if isinstance(event, h2.events.ResponseReceived):
                headers = list(event.headers)
                stream.status = int(dict(headers)[":status"])
                stream.headers = [(name, value) for name, value in headers if not name.startswith(":")]
            elif isinstance(event, h2.events.DataReceived):
                stream.body += event.data
                self.connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.TrailersReceived):
                stream.trailers = list(event.headers)
            elif isinstance(event, h2.events.StreamEnded):
                stream.ended = True
            elif isinstance(event, h2.events.StreamReset):
                if not stream.ended:  # RST_STREAM(NO_ERROR) after a whole answer leaves the answer whole
                    stream.reset = event.error_code
                stream.ended = True
        pending = self.connection.data_to_send()
        if pending:
            self.socket.sendall(pending)

    def answer(self, stream_id):
        """The whole answer on `stream_id`."""
        stream = self.streams[stream_id]
        while not stream.ended:
            self._pump()
        assert stream.reset is None, f"stream {stream_id} reset with {stream.reset!r}"
        return Answer(stream.status, stream.headers, stream.body, stream.trailers)

    def first_bytes(self, stream_id, count):
        """At least `count` bytes of the body on `stream_id` (fewer only if it ended)."""
        stream = self.streams[stream_id]
        while len(stream.body) < count and not stream.ended:
            self._pump()
        return stream

    def cancel(self, stream_id):
        self.connection.reset_stream(stream_id, error_code=8)  # CANCEL
        self.socket.sendall(self.connection.data_to_send())

    def close(self):
        try:
            self.connection.close_connection()
            self.socket.sendall(self.connection.data_to_send())
        finally:
            self.socket.close()


@pytest.fixture
def h2c(stack):
    client = H2Client(stack.gateway)
    try:
        yield client
    finally:
        client.close()


# --- requests the tests share -------------------------------------------------------------------------

def message_to_celestra(content="hello", identifier=None):
    return s.intent("INSendMessageIntent", chat.SendMessageIntent(
        recipients=[types.Person(display_name="Celestra")], content=content), "UnicornChat", identifier=identifier)


def resolve_request(user="diana", the_intent=None):
    return ext_pb2.ResolveRequest(context=s.context(user=user), intent=the_intent or message_to_celestra(
        identifier="contract-connect-resolve"))


def payment(units, identifier=None):
    return s.intent("INSendPaymentIntent", pay.SendPaymentIntent(
        payee=types.Person(display_name="Buttercup"),
        currency_amount=types.CurrencyAmount(currency_code="USD", units=units)), "UnicornPay", identifier=identifier)


# --- 1. every method in Connect JSON over HTTP/1.1 ------------------------------------------------------

def test_list_routes_in_json_needs_no_token(stack):
    answer = connect_call(stack, GATEWAY + "ListRoutes", {})
    assert (answer.status, answer.content_type) == (200, JSON), answer
    assert answer.header("x-request-id"), answer  # response metadata comes as headers
    body = answer.json()
    routes = {route["intentClass"]: route for route in body["routes"]}
    assert routes["INSendMessageIntent"]["appName"] == "UnicornChat"
    assert routes["INSendMessageIntent"]["payloadType"] == "intentmesh.messaging.v1.SendMessageIntent"
    assert routes["INSendPaymentIntent"]["restrictedWhileLocked"] is True
    domains = {domain["appName"]: domain for domain in body["domains"]}
    assert {"UnicornChat", "UnicornPay", "UnicornRides", "UnicornNote", "UnicornFit"} <= set(domains)
    assert domains["UnicornFit"]["health"] == "SERVING"
    assert domains["UnicornChat"]["intentCount"] == 4  # int32: a JSON number
    # Strict proto3 JSON: every member is a field of ListRoutesResponse.
    assert parsed(answer, gw.ListRoutesResponse) == stack.gateway_api().ListRoutes(
        gw.ListRoutesRequest(), timeout=s.TIMEOUT)


def test_health_check_in_json(stack):
    answer = connect_call(stack, HEALTH + "Check", {})
    assert (answer.status, answer.content_type, answer.json()) == (200, JSON, {"status": "SERVING"}), answer
    named = connect_call(stack, HEALTH + "Check", {"service": ""}, headers={"connect-protocol-version": "1"})
    assert (named.status, named.json()) == (200, {"status": "SERVING"}), named


def test_request_headers_are_forwarded_and_response_metadata_comes_back(stack):
    request_id = f"connect-{uuid.uuid4().hex}"
    answer = connect_call(stack, HEALTH + "Check", {}, headers={"x-request-id": request_id})
    assert (answer.status, answer.header("x-request-id")) == (200, request_id), answer
    # Parameters of the content type are no other type.
    charset = connect_call(stack, HEALTH + "Check", {}, content_type="application/json; charset=utf-8")
    assert (charset.status, charset.json()) == (200, {"status": "SERVING"}), charset


def interact_json(stack, request):
    answer = connect_call(stack, GATEWAY + "Interact", request, headers=bearer(stack))
    assert (answer.status, answer.content_type) == (200, JSON), answer
    return answer.json()


def test_interact_in_json_sends_a_message_after_the_users_yes(stack):
    content = f"Connect says hi {uuid.uuid4().hex[:6]}"
    the_intent = as_json(message_to_celestra(content))
    user_context = {"locale": "en-US", "timeZone": "Europe/Zurich"}  # the user is the token's
    asked = interact_json(stack, {"context": user_context, "intent": the_intent})
    assert (asked["stage"], asked["prompt"], asked["response"]["codeName"]) == (
        "STAGE_NEEDS_CONFIRMATION", "Ready to send it?", "ready"), asked
    assert asked["appName"] == "UnicornChat"
    assert asked["confirmationToken"]
    assert [r["parameter"] for r in asked["resolutions"]] == ["recipients", "content", "speakableGroupName"]

    done = interact_json(stack, {"context": user_context, "intent": asked["intent"], "userConfirmed": True,
                                 "confirmationToken": asked["confirmationToken"]})
    assert (done["stage"], done["response"]["codeName"]) == ("STAGE_DONE", "success"), done
    assert done["interaction"]["intentHandlingStatus"] == "INTENT_HANDLING_STATUS_SUCCESS"
    payload = done["response"]["payload"]
    assert payload["@type"] == "type.googleapis.com/intentmesh.messaging.v1.SendMessageIntentResponse"
    sent = payload["sentMessage"]
    assert (sent["content"], [p["customIdentifier"] for p in sent["recipients"]]) == (content, ["celestra"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", sent["dateSent"]), sent  # Timestamp: RFC 3339
    assert [section["view"]["kind"] for section in done["layout"]["sections"]
            if section["kind"] == "KIND_APP"] == ["chat-transcript"]
    # Strict proto3 JSON, and the message is sent: the search on the domain's own port finds it.
    typed = json_format.ParseDict(done, gw.InteractResponse())
    assert typed.stage == gw.InteractResponse.STAGE_DONE
    found = s.handled_response(stack.extension("messaging-service"), s.context(),
                               s.intent("INSearchForMessagesIntent", chat.SearchForMessagesIntent(search_terms=[content])),
                               chat.SearchForMessagesIntentResponse)
    assert [m.identifier for m in found.messages] == [sent["identifier"]]

    # Layout of that interaction: the same in JSON as over gRPC.
    layout_request = {"context": user_context, "interactions": [done["interaction"]],
                      "display": {"maximumSize": {"width": 320, "height": 200}}}
    layout = connect_call(stack, GATEWAY + "Layout", layout_request, headers=bearer(stack))
    assert (layout.status, layout.content_type) == (200, JSON), layout
    layouts = layout.json()["layouts"]
    assert [(each["interactionIdentifier"], each["appName"]) for each in layouts] == [
        (done["interaction"]["identifier"], "UnicornChat")]
    assert layouts[0]["sections"][0]["view"]["kind"] == "chat-transcript"
    over_grpc = grpc_call(stack, GATEWAY + "Layout", json_format.ParseDict(layout_request, gw.LayoutRequest()),
                          gw.LayoutResponse, token_user="diana")
    assert parsed(layout, gw.LayoutResponse) == over_grpc


def test_the_sirikit_round_in_json_through_the_gateway(stack):
    content = f"A round in JSON {uuid.uuid4().hex[:6]}"
    the_intent = as_json(message_to_celestra(content))
    user_context = as_json(s.context())
    auth = bearer(stack)

    resolved = connect_call(stack, EXTENSION + "Resolve", {"context": user_context, "intent": the_intent},
                            headers=auth)
    assert (resolved.status, resolved.content_type) == (200, JSON), resolved
    resolved = resolved.json()
    assert resolved["complete"] is True, resolved
    by_parameter = {r["parameter"]: r["results"] for r in resolved["resolutions"]}
    recipient = by_parameter["recipients"][0]["success"]["value"]
    assert recipient["value"]["@type"] == "type.googleapis.com/intentmesh.v1.Person"
    assert (recipient["value"]["customIdentifier"], recipient["displayText"]) == ("celestra", "Celestra")
    assert by_parameter["content"][0]["success"]["value"]["value"] == {
        "@type": "type.googleapis.com/google.protobuf.StringValue", "value": content}  # a WKT in an Any
    assert by_parameter["speakableGroupName"][0] == {"notRequired": {}}
    final_intent = resolved["resolvedIntent"]
    assert (final_intent["intentClass"], final_intent["identifier"]) == ("INSendMessageIntent", the_intent["identifier"])

    confirmed = connect_call(stack, EXTENSION + "Confirm", {"context": user_context, "intent": final_intent},
                             headers=auth)
    assert confirmed.status == 200, confirmed
    confirmed = confirmed.json()
    assert confirmed["response"]["codeName"] == "ready", confirmed
    assert confirmed["interaction"]["intentHandlingStatus"] == "INTENT_HANDLING_STATUS_USER_CONFIRMATION_REQUIRED"
    assert confirmed["confirmationToken"]

    handled = connect_call(stack, EXTENSION + "Handle", {"context": user_context, "intent": final_intent,
                                                         "confirmationToken": confirmed["confirmationToken"]},
                           headers=auth)
    assert handled.status == 200, handled
    handled = handled.json()
    assert handled["response"]["codeName"] == "success", handled
    assert handled["interaction"]["intentHandlingStatus"] == "INTENT_HANDLING_STATUS_SUCCESS"
    assert handled.get("replayed", False) is False
    sent = json_format.ParseDict(handled, ext_pb2.HandleResponse())
    assert s.unpack(sent.response.payload, chat.SendMessageIntentResponse).sent_message.content == content

    configure = {"context": user_context, "interaction": handled["interaction"],
                 "maximumSize": {"width": 300, "height": 60}}
    view = connect_call(stack, EXTENSION + "ConfigureView", configure, headers=auth)
    assert view.status == 200, view
    assert view.json()["configured"] is True, view
    assert view.json()["view"]["kind"] == "chat-transcript", view
    over_grpc = grpc_call(stack, EXTENSION + "ConfigureView",
                          json_format.ParseDict(configure, view_pb2.ConfigureViewRequest()),
                          view_pb2.ConfigureViewResponse, token_user="diana")
    assert parsed(view, view_pb2.ConfigureViewResponse) == over_grpc

    # The same Handle again is the same message, sent once: replayed.
    again = connect_call(stack, EXTENSION + "Handle", {"context": user_context, "intent": final_intent,
                                                       "confirmationToken": confirmed["confirmationToken"]},
                         headers=auth)
    assert again.status == 200, again
    assert again.json()["replayed"] is True, again
    assert again.json()["response"]["payload"]["sentMessage"]["identifier"] == (
        handled["response"]["payload"]["sentMessage"]["identifier"])


def test_64_bit_integers_are_strings_in_json(stack):
    # CurrencyAmount.units is an int64: written as a string, read as a string or a number.
    for units in ("3", 3):
        request = {"intent": as_json(payment(3))}
        request["intent"]["payload"]["currencyAmount"]["units"] = units
        answer = connect_call(stack, EXTENSION + "Resolve", request, headers=bearer(stack))
        assert answer.status == 200, answer
        amount = answer.json()["resolvedIntent"]["payload"]["currencyAmount"]
        assert amount == {"currencyCode": "USD", "units": "3"}, amount


def test_a_domain_app_service_is_relayed_in_json(stack, fresh_user):
    # UnicornChat's app API: Diana's seeded account.
    account = connect_call(stack, CHAT_APP + "GetAccount", {}, headers=bearer(stack))
    assert (account.status, account.content_type) == (200, JSON), account
    assert account.json() == {"account": {"userId": "diana", "displayName": "Diana Huang",
                                          "handle": "diana@unicorn.chat"}}
    # UnicornFit's (a Python domain, its types known to the gateway by reflection): a fresh user has
    # no workouts; once one is started (Interact in JSON), it is listed, its state by name.
    auth = bearer(stack, fresh_user)
    empty = connect_call(stack, FIT_APP + "ListWorkouts", {}, headers=auth)
    assert (empty.status, empty.json()) == (200, {}), empty
    start = s.intent("INStartWorkoutIntent", fit.StartWorkoutIntent(
        workout_name=types.SpeakableString(spoken_phrase="colorlishus")), "UnicornFit")
    turn = connect_call(stack, GATEWAY + "Interact", {"intent": as_json(start)}, headers=auth)
    assert (turn.status, turn.json()["stage"], turn.json()["response"]["codeName"]) == (
        200, "STAGE_DONE", "success"), turn
    listed = connect_call(stack, FIT_APP + "ListWorkouts", {"states": ["WORKOUT_STATE_ACTIVE"]}, headers=auth)
    assert listed.status == 200, listed
    workouts = listed.json()["workouts"]
    assert [(w["workoutName"]["spokenPhrase"], w["state"]) for w in workouts] == [
        ("Colorlicious", "WORKOUT_STATE_ACTIVE")], workouts
    over_grpc = grpc_call(stack, FIT_APP + "ListWorkouts",
                          fit_app.ListWorkoutsRequest(states=[fit.WORKOUT_STATE_ACTIVE]),
                          fit_app.ListWorkoutsResponse, token_user=fresh_user)
    expected = without_per_call_fields(over_grpc)
    assert without_per_call_fields(parsed(listed, fit_app.ListWorkoutsResponse)) == expected
    # An enum may be sent by number too (WORKOUT_STATE_ACTIVE is 1, ENDED 3); it comes back by name.
    by_number = connect_call(stack, FIT_APP + "ListWorkouts", {"states": [1]}, headers=auth)
    assert by_number.status == 200, by_number
    assert [w["state"] for w in by_number.json()["workouts"]] == ["WORKOUT_STATE_ACTIVE"], by_number
    assert without_per_call_fields(parsed(by_number, fit_app.ListWorkoutsResponse)) == expected
    for ended in (["WORKOUT_STATE_ENDED"], [3]):
        none = connect_call(stack, FIT_APP + "ListWorkouts", {"states": ended}, headers=auth)
        assert (none.status, none.json()) == (200, {}), none


def test_describe_through_the_gateway_is_unimplemented_as_over_grpc(stack):
    answer = connect_call(stack, EXTENSION + "Describe", {})
    error = expect_error(answer, "unimplemented", "ListRoutes")
    over_grpc = grpc_error(stack, EXTENSION + "Describe", ext_pb2.DescribeRequest())
    assert over_grpc.code() == grpc.StatusCode.UNIMPLEMENTED
    assert error["message"] == over_grpc.details()
    assert error_info(error) == grpc_status_details(over_grpc) == [("UNSUPPORTED", "intentmesh.dev")]


# --- 2. binary (application/proto) answers what gRPC answers ---------------------------------------------

def same_everywhere_cases():
    return {
        "health Check": (HEALTH + "Check", None, None, None),
        "ListRoutes": (GATEWAY + "ListRoutes", gw.ListRoutesRequest(), gw.ListRoutesResponse, None),
        "Resolve": (EXTENSION + "Resolve", resolve_request(), ext_pb2.ResolveResponse, "diana"),
        "Resolve a payment": (EXTENSION + "Resolve", ext_pb2.ResolveRequest(
            context=s.context(), intent=payment(7, "contract-connect-payment")), ext_pb2.ResolveResponse, "diana"),
        "Confirm a search": (EXTENSION + "Confirm", ext_pb2.ConfirmRequest(
            context=s.context(), intent=s.intent("INSearchForMessagesIntent", chat.SearchForMessagesIntent(
                senders=[types.Person(display_name="Buttercup")], search_terms=["forest"]), "UnicornChat",
                identifier="contract-connect-search")), ext_pb2.ConfirmResponse, "diana"),
        "UnicornChat ListContacts": (CHAT_APP + "ListContacts", chat_app.ListContactsRequest(),
                                     chat_app.ListContactsResponse, "diana"),
    }


@pytest.mark.parametrize("case", list(same_everywhere_cases()))
def test_binary_and_json_answer_what_grpc_answers(stack, case):
    path, request, response_type, user = same_everywhere_cases()[case]
    headers = bearer(stack, user) if user else {}
    if request is None:  # health: no stubs here, the bytes are known
        proto = connect_call(stack, path, b"", headers=headers, content_type=PROTO)
        assert (proto.status, proto.content_type, proto.body) == (200, PROTO, SERVING), proto
        assert stack.raw_channel("gateway").unary_unary(path)(b"", timeout=s.TIMEOUT) == SERVING
        return
    over_grpc = grpc_call(stack, path, request, response_type, token_user=user)
    proto = connect_call(stack, path, request, headers=headers, content_type=PROTO)
    assert (proto.status, proto.content_type) == (200, PROTO), proto
    assert proto.header("x-request-id"), proto
    expected = without_per_call_fields(over_grpc)
    assert without_per_call_fields(parsed(proto, response_type)) == expected
    in_json = connect_call(stack, path, request, headers=headers, content_type=JSON)
    assert (in_json.status, in_json.content_type) == (200, JSON), in_json
    assert without_per_call_fields(parsed(in_json, response_type)) == expected


def test_interact_in_binary_matches_grpc_but_for_the_confirmation_token(stack):
    request = gw.InteractRequest(context=s.context(), intent=message_to_celestra(
        "binary hello", identifier=f"contract-{uuid.uuid4()}"))
    over_grpc = grpc_call(stack, GATEWAY + "Interact", request, gw.InteractResponse, token_user="diana")
    proto = connect_call(stack, GATEWAY + "Interact", request, headers=bearer(stack), content_type=PROTO)
    assert (proto.status, proto.content_type) == (200, PROTO), proto
    answer = parsed(proto, gw.InteractResponse)
    assert answer.stage == gw.InteractResponse.STAGE_NEEDS_CONFIRMATION
    assert answer.confirmation_token and over_grpc.confirmation_token
    answer.ClearField("confirmation_token")
    over_grpc.ClearField("confirmation_token")
    assert without_per_call_fields(answer) == without_per_call_fields(over_grpc)
    assert answer.intent.identifier == request.intent.identifier


# --- 3. HTTP/2 with prior knowledge ---------------------------------------------------------------------

def test_h2c_carries_connect_calls_side_by_side_with_grpc(stack, h2c):
    routes = h2c.send(GATEWAY + "ListRoutes", {})
    resolved = h2c.send(EXTENSION + "Resolve", resolve_request(), headers=bearer(stack), content_type=PROTO)
    refused = h2c.send(EXTENSION + "Resolve", resolve_request())  # no token
    # Plain gRPC on the same connection: the gateway tells the streams apart.
    health = h2c.send(HEALTH + "Check", envelope(b""), headers={"te": "trailers"}, content_type="application/grpc")

    answer = h2c.answer(routes)
    assert (answer.status, answer.content_type) == (200, JSON), answer
    assert answer.header("x-request-id"), answer
    assert parsed(answer, gw.ListRoutesResponse) == stack.gateway_api().ListRoutes(
        gw.ListRoutesRequest(), timeout=s.TIMEOUT)

    answer = h2c.answer(resolved)
    assert (answer.status, answer.content_type) == (200, PROTO), answer
    assert parsed(answer, ext_pb2.ResolveResponse) == grpc_call(
        stack, EXTENSION + "Resolve", resolve_request(), ext_pb2.ResolveResponse, token_user="diana")

    answer = h2c.answer(refused)
    error = expect_error(answer, "unauthenticated", "missing credentials")
    assert error_info(error) == [("CREDENTIALS_MISSING", "intentmesh.dev")]

    answer = h2c.answer(health)
    assert (answer.status, answer.content_type) == (200, "application/grpc"), answer
    assert envelopes(answer.body) == [(0, SERVING)]
    assert dict(answer.trailers).get("grpc-status") == "0", answer.trailers


def test_h2c_server_stream_and_grpc_web(stack, h2c):
    watch = h2c.send(HEALTH + "Watch", {}, content_type=CONNECT_JSON)
    web = h2c.send(HEALTH + "Check", b"", content_type=GRPC_WEB)  # no envelope: refused below
    web_ok = h2c.send(HEALTH + "Check", envelope(b""), content_type=GRPC_WEB)

    stream = h2c.first_bytes(watch, 5 + len(b'{"status":"SERVING"}'))
    assert (stream.status, dict(stream.headers).get("content-type")) == (200, CONNECT_JSON), stream.headers
    flags, payload = envelopes(stream.body[:5 + struct.unpack(">I", stream.body[1:5])[0]])[0]
    assert (flags, json.loads(payload)) == (0, {"status": "SERVING"})
    h2c.cancel(watch)
    after = h2c.answer(h2c.send(HEALTH + "Check", {}))  # the connection outlives the cancelled stream
    assert (after.status, after.json()) == (200, {"status": "SERVING"}), after

    answer = h2c.answer(web_ok)
    assert (answer.status, answer.content_type) == (200, GRPC_WEB), answer
    frames = envelopes(answer.body)
    assert frames[0] == (0, SERVING)
    assert frames[-1][0] == TRAILERS and grpc_web_trailers(frames[-1][1])["grpc-status"] == "0", frames

    answer = h2c.answer(web)
    frames = envelopes(answer.body)
    assert answer.status == 200 and [flags for flags, _ in frames] == [TRAILERS], answer
    assert grpc_web_trailers(frames[0][1])["grpc-status"] == "3", frames  # INVALID_ARGUMENT


def test_h2c_takes_a_body_of_many_frames_and_windows(stack, h2c):
    """A request of ~1 MB (many DATA frames, past the first flow-control window) through the port's
    hand-off of web streams, answered in full: the resolved content comes back whole."""
    content = " ".join(["unicorn"] * (1 << 17))
    request = ext_pb2.ResolveRequest(context=s.context(), intent=message_to_celestra(
        content, identifier=f"contract-{uuid.uuid4()}"))
    answer = h2c.answer(h2c.send(EXTENSION + "Resolve", request, headers=bearer(stack)))
    assert (answer.status, answer.content_type) == (200, JSON), answer
    resolved = parsed(answer, ext_pb2.ResolveResponse)
    assert resolved.complete
    assert s.unpack(resolved.resolved_intent.payload, chat.SendMessageIntent).content == content


def test_h2c_preflight_from_an_unconfigured_origin_is_refused(stack, h2c):
    answer = h2c.answer(h2c.send(GATEWAY + "ListRoutes", b"", method="OPTIONS", content_type=None, headers={
        "origin": "https://elsewhere.example", "access-control-request-method": "POST"}))
    assert answer.status == 403, answer
    assert answer.header("access-control-allow-origin") is None, answer


# --- 4. errors -------------------------------------------------------------------------------------------

def test_a_call_without_a_token_is_401_with_the_error_info(stack):
    answer = connect_call(stack, EXTENSION + "Resolve", resolve_request())
    error = expect_error(answer, "unauthenticated", "missing credentials")
    assert error["details"][0]["type"] == "google.rpc.ErrorInfo", error
    assert error["details"][0]["debug"] == {"reason": "CREDENTIALS_MISSING", "domain": "intentmesh.dev"}, error
    assert error_info(error) == [("CREDENTIALS_MISSING", "intentmesh.dev")]
    over_grpc = grpc_error(stack, EXTENSION + "Resolve", resolve_request())
    assert (over_grpc.code(), over_grpc.details()) == (grpc.StatusCode.UNAUTHENTICATED, error["message"])
    assert grpc_status_details(over_grpc) == error_info(error)
    # The gateway's own API too, but ListRoutes.
    interact = connect_call(stack, GATEWAY + "Interact", {"intent": as_json(message_to_celestra())})
    expect_error(interact, "unauthenticated", "missing credentials")
    layout = connect_call(stack, GATEWAY + "Layout", {})
    expect_error(layout, "unauthenticated", "missing credentials")
    relayed = connect_call(stack, CHAT_APP + "GetAccount", {})
    expect_error(relayed, "unauthenticated")


def error_cases():
    """name → (path, request, token user or a raw token, Connect code, mentions)."""
    wrong_payload = s.intent("INSendMessageIntent", pay.PayBillIntent())
    locked = gw.InteractRequest(context=s.context(locked=True),
                                intent=s.intent("INSearchForAccountsIntent", pay.SearchForAccountsIntent()))
    stranger = f"contract-{uuid.uuid4().hex[:12]}"
    return {
        "a malformed token": (EXTENSION + "Resolve", resolve_request(), "token:not-a-jwt", "unauthenticated",
                              ["malformed"]),
        "another user than the token's": (EXTENSION + "Resolve", resolve_request(user="scott"), "diana",
                                          "permission_denied", ["not the user of the bearer token"]),
        "an unknown intent class": (EXTENSION + "Resolve", ext_pb2.ResolveRequest(
            context=s.context(), intent=s.intent("INOrderPizzaIntent", chat.SendMessageIntent())), "diana",
            "not_found", ["INOrderPizzaIntent", "no domain handles"]),
        "a payload of another type": (EXTENSION + "Resolve", ext_pb2.ResolveRequest(
            context=s.context(), intent=wrong_payload), "diana", "invalid_argument",
            ["intentmesh.messaging.v1.SendMessageIntent", "intentmesh.payments.v1.PayBillIntent"]),
        "Handle without the user's yes": (EXTENSION + "Handle", ext_pb2.HandleRequest(
            context=s.context(), intent=payment(1, f"contract-{uuid.uuid4()}")), "diana", "failed_precondition",
            ["confirm first"]),
        "a locked device in Interact": (GATEWAY + "Interact", locked, "diana", "failed_precondition",
                                        ["INSearchForAccountsIntent", "restricted while locked"]),
        "an app account that does not exist": (CHAT_APP + "GetAccount", chat_app.GetAccountRequest(), stranger,
                                               "not_found", []),
        "an app handle that is taken": (CHAT_APP + "SignUp", chat_app.SignUpRequest(
            display_name="Thief", handle="diana@unicorn.chat"), stranger, "already_exists", []),
    }


@pytest.mark.parametrize("case", list(error_cases()))
def test_an_error_has_the_connect_code_and_message_of_the_grpc_status(stack, case):
    path, request, who, code, mentions = error_cases()[case]
    token = who[len("token:"):] if who.startswith("token:") else stack.token(who)
    metadata = [("authorization", f"Bearer {token}")]
    for content_type in (JSON, PROTO):
        answer = connect_call(stack, path, request, headers=dict(metadata), content_type=content_type)
        error = expect_error(answer, code, *mentions)  # an error is JSON whatever the request's type
        over_grpc = grpc_error(stack, path, request, metadata=metadata)
        assert CONNECT_CODE[over_grpc.code()] == code, over_grpc
        assert error["message"] == over_grpc.details()
        assert error_info(error) == grpc_status_details(over_grpc)


@pytest.mark.parametrize("path", ["/no.such.Service/Method", GATEWAY + "NoSuchMethod", "/intentmesh.v1.IntentsExtension",
                                  "/not-a-method"])
def test_an_unknown_method_is_501_unimplemented(stack, path):
    answer = connect_call(stack, path, {}, headers=bearer(stack))
    expect_error(answer, "unimplemented")


@pytest.mark.parametrize("body, mentions", [
    ("{not json", []),
    ("[]", []),
    ('{"bogus": 1}', ["bogus"]),
    ('{"userConfirmed": "yes"}', []),
    ('{"elementIndex": 1}', ["elementIndex"]),  # a response field, not the request's
    ('{"display": {"hostedViewContext": "HOSTED_VIEW_CONTEXT_NO_SUCH"}}', []),
    ('{"intent": {"payload": {"@type": "type.googleapis.com/no.such.Message"}}}', ["no.such.Message"]),
    ('{} trailing', []),
], ids=["not JSON", "an array", "an unknown field", "a string for a bool", "a response field", "an unknown enum name",
        "an Any of an unknown type", "bytes after the object"])
def test_json_that_is_not_the_request_message_is_400_invalid_argument(stack, body, mentions):
    answer = connect_call(stack, GATEWAY + "Interact", body, headers=bearer(stack))
    expect_error(answer, "invalid_argument", *mentions)


def test_binary_that_does_not_decode_is_400_invalid_argument(stack):
    garbage = b"\xff\xff\xff\xff\x0f\x01 this is not a protobuf message"
    answer = connect_call(stack, GATEWAY + "Interact", garbage, headers=bearer(stack), content_type=PROTO)
    expect_error(answer, "invalid_argument", "InteractRequest")


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "application/xml",
                                          "application/octet-stream"])
def test_an_unsupported_content_type_is_415_with_accept_post(stack, content_type):
    # application/x-www-form-urlencoded is what `curl -d` sends without -H content-type.
    answer = connect_call(stack, HEALTH + "Check", b"{}", content_type=content_type)
    assert answer.status == 415, answer
    accepted = {kind.strip() for kind in (answer.header("accept-post") or "").split(",")}
    assert {JSON, PROTO, CONNECT_JSON, CONNECT_PROTO, GRPC_WEB, GRPC_WEB_JSON} <= accepted, answer


def test_a_request_without_a_content_type_is_415(stack):
    answer = connect_call(stack, HEALTH + "Check", b"{}", content_type=None)
    assert answer.status == 415 and answer.header("accept-post"), answer


@pytest.mark.parametrize("version", ["2", "0", "1.0", "v1"])
def test_another_connect_protocol_version_is_400(stack, version):
    answer = connect_call(stack, HEALTH + "Check", {}, headers={"connect-protocol-version": version})
    expect_error(answer, "invalid_argument", "connect-protocol-version")


@pytest.mark.parametrize("timeout", ["soon", "-5", "1.5", "12345678901", "10s"])
def test_a_connect_timeout_that_is_not_1_to_10_digits_is_400(stack, timeout):
    answer = connect_call(stack, HEALTH + "Check", {}, headers={"connect-timeout-ms": timeout})
    expect_error(answer, "invalid_argument", "connect-timeout-ms")


def test_a_connect_timeout_of_digits_is_taken(stack):
    answer = connect_call(stack, HEALTH + "Check", {}, headers={"connect-timeout-ms": "9999999999"})
    assert (answer.status, answer.json()) == (200, {"status": "SERVING"}), answer


@pytest.mark.parametrize("path", [HEALTH + "Watch", EXTENSION + "StartSendingUpdates"])
@pytest.mark.parametrize("content_type", [JSON, PROTO])
def test_a_unary_content_type_on_a_server_stream_is_501(stack, path, content_type):
    answer = connect_call(stack, path, b"", headers=bearer(stack), content_type=content_type)
    expect_error(answer, "unimplemented", "application/connect+json")


def test_proto3_json_accepts_proto_field_names_nulls_and_escapes(stack):
    """What every proto3 JSON parser must take: the proto field names as well as the JSON names,
    null as the field's default, and \\u escapes (a surrogate pair too)."""
    by_json_name = {"intent": {"intentClass": "INSearchForAccountsIntent", "identifier": "contract-connect-names",
                               "payload": {"@type": "type.googleapis.com/intentmesh.payments.v1.SearchForAccountsIntent",
                                           "accountNickname": {"spokenPhrase": "Rainbow Checking"}}}}
    by_proto_name = {"intent": {"intent_class": "INSearchForAccountsIntent", "identifier": "contract-connect-names",
                                "payload": {"@type": "type.googleapis.com/intentmesh.payments.v1.SearchForAccountsIntent",
                                            "account_nickname": {"spoken_phrase": "Rainbow Checking"}}}}
    answers = [connect_call(stack, EXTENSION + "Resolve", body, headers=bearer(stack))
               for body in (by_json_name, by_proto_name)]
    assert [a.status for a in answers] == [200, 200], answers
    assert answers[0].json() == answers[1].json()
    nickname = {r["parameter"]: r["results"] for r in answers[0].json()["resolutions"]}["accountNickname"]
    assert nickname[0]["success"]["value"]["displayText"] == "Rainbow Checking", nickname

    with_nulls = {"context": None, "parameters": None, "intent": {
        "intentClass": "INSearchForAccountsIntent", "identifier": "contract-connect-names", "appName": None,
        "payload": {"@type": "type.googleapis.com/intentmesh.payments.v1.SearchForAccountsIntent",
                    "accountNickname": None}}}
    nulls = connect_call(stack, EXTENSION + "Resolve", with_nulls, headers=bearer(stack))
    assert nulls.status == 200, nulls
    assert nulls.json()["resolvedIntent"]["intentClass"] == "INSearchForAccountsIntent"

    escaped = '{"intent": {"intentClass": "INPizza\\u00dc\\ud83e\\udd84", "payload": ' \
              '{"@type": "type.googleapis.com/intentmesh.messaging.v1.SendMessageIntent"}}}'
    error = expect_error(connect_call(stack, EXTENSION + "Resolve", escaped, headers=bearer(stack)), "not_found")
    assert "INPizza\u00dc\U0001f984" in error["message"], error


@pytest.mark.parametrize("value", ["AQID", "AQI=", "AQI", "AQI=,AQID"])
def test_binary_metadata_headers_are_taken_padded_or_not(stack, value):
    answer = connect_call(stack, HEALTH + "Check", {}, headers={"x-probe-bin": value})
    assert (answer.status, answer.json()) == (200, {"status": "SERVING"}), answer


def test_binary_metadata_that_is_not_base64_is_400(stack):
    answer = connect_call(stack, HEALTH + "Check", {}, headers={"x-probe-bin": "!!not base64!!"})
    expect_error(answer, "invalid_argument", "x-probe-bin")


def test_one_http1_connection_carries_many_calls(stack):
    """Keep-alive, as browsers and `curl URL --next URL` use it: answers, errors (each with its whole
    body read by the gateway) and a stream that ends, one after another on one connection."""
    host, port = stack.gateway.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=s.TIMEOUT)
    auth = bearer(stack)
    calls = [
        (HEALTH + "Check", {}, {}, JSON, 200),
        (HEALTH + "Check", b"not JSON either", {}, "text/plain", 415),
        (EXTENSION + "Resolve", resolve_request(), {}, JSON, 401),
        (GATEWAY + "Interact", "{not json", auth, JSON, 400),
        ("/no.such.Service/Method", {}, {}, JSON, 501),
        (HEALTH + "Watch", {}, {"connect-timeout-ms": "200"}, CONNECT_JSON, 200),  # chunked, ends at its deadline
        (EXTENSION + "Resolve", resolve_request(), auth, PROTO, 200),
        (HEALTH + "Check", envelope(b""), {}, GRPC_WEB, 200),
        (GATEWAY + "ListRoutes", {}, {}, JSON, 200),
    ]
    sockets = []
    try:
        for path, body, headers, content_type, status in calls:
            connection.request("POST", path, body=encoded(body, content_type),
                               headers={"content-type": content_type, **headers})
            response = connection.getresponse()
            answer = Answer(response.status, response.getheaders(), response.read())
            assert answer.status == status, (path, content_type, answer)
            assert (answer.header("connection") or "").lower() != "close", (path, answer)
            sockets.append(connection.sock)
            if content_type == CONNECT_JSON:
                flags = [flags for flags, _ in envelopes(answer.body)]
                assert flags == [0, END_STREAM], answer
    finally:
        connection.close()
    assert all(sock is sockets[0] and sock is not None for sock in sockets), "the gateway closed the connection"


def oversized(content_type):
    """A request body just over the gateway's limit, framed for `content_type`."""
    payload = json.dumps({"service": "x" * (LIMIT + 100)}).encode()
    return envelope(payload) if is_enveloped(content_type) else payload


def test_an_oversized_unary_body_is_429_resource_exhausted(stack):
    answer = connect_call(stack, HEALTH + "Check", oversized(JSON))
    expect_error(answer, "resource_exhausted")  # Connect's table: resource_exhausted is HTTP 429


def test_an_oversized_stream_request_ends_with_resource_exhausted(stack):
    # Streaming answers are always HTTP 200, the error in the end-of-stream envelope: a Connect
    # client reading another status infers the code from it (413 would be `unknown`).
    stream = OpenStream(stack, HEALTH + "Watch", oversized(CONNECT_JSON))
    try:
        assert (stream.status, stream.header("content-type")) == (200, CONNECT_JSON), (
            stream.status, stream.headers, stream.response.read(500))
        messages, end = read_end_of_stream(stream, within=s.TIMEOUT)
    finally:
        stream.close()
    assert (messages, end["error"]["code"]) == ([], "resource_exhausted"), end


def test_an_oversized_grpc_web_request_is_grpc_status_8(stack):
    # gRPC-Web clients map an HTTP status without grpc-status to a code (413 would be UNKNOWN).
    answer = connect_call(stack, HEALTH + "Check", oversized(GRPC_WEB_JSON), content_type=GRPC_WEB_JSON)
    assert answer.status == 200, answer
    status = answer.header("grpc-status")  # a trailers-only answer may carry it as a header
    if status is None:
        frames = envelopes(answer.body)
        assert frames and frames[-1][0] == TRAILERS, answer
        status = grpc_web_trailers(frames[-1][1])["grpc-status"]
    assert status == "8", answer  # RESOURCE_EXHAUSTED


def test_an_unsupported_content_encoding_is_501_unimplemented(stack):
    # "If the client uses an unsupported Content-Encoding, servers should return an error with code
    # unimplemented and a message listing the supported encodings" (the Connect protocol).
    answer = connect_call(stack, HEALTH + "Check", gzip.compress(b"{}"), headers={"content-encoding": "gzip"})
    expect_error(answer, "unimplemented")
    # identity is no compression at all.
    plain = connect_call(stack, HEALTH + "Check", {}, headers={"content-encoding": "identity"})
    assert (plain.status, plain.json()) == (200, {"status": "SERVING"}), plain


def test_a_compressed_envelope_is_unimplemented_in_streams_and_grpc_web(stack):
    squeezed = gzip.compress(b"{}")
    stream = OpenStream(stack, HEALTH + "Watch", envelope(squeezed, flags=COMPRESSED),
                        headers={"connect-content-encoding": "gzip"})
    try:
        assert stream.status == 200
        messages, end = read_end_of_stream(stream, within=s.TIMEOUT)
    finally:
        stream.close()
    assert (messages, end["error"]["code"]) == ([], "unimplemented"), end
    answer = connect_call(stack, HEALTH + "Check", envelope(squeezed, flags=COMPRESSED),
                          headers={"grpc-encoding": "gzip"}, content_type=GRPC_WEB_JSON)
    frames = envelopes(answer.body)
    assert answer.status == 200 and [flags for flags, _ in frames] == [TRAILERS], answer
    assert grpc_web_trailers(frames[0][1])["grpc-status"] == "12", frames  # UNIMPLEMENTED


# --- 5. server streams in Connect's envelopes ----------------------------------------------------------

def test_health_watch_streams_serving_in_envelopes(stack):
    for content_type, first in [(CONNECT_JSON, b'{"status":"SERVING"}'), (CONNECT_PROTO, SERVING)]:
        stream = OpenStream(stack, HEALTH + "Watch", envelope(b"{}" if content_type == CONNECT_JSON else b""),
                            content_type=content_type)
        try:
            assert (stream.status, stream.header("content-type")) == (200, content_type), stream.headers
            flags, payload = stream.next()
            assert flags == 0
            if content_type == CONNECT_JSON:
                assert json.loads(payload) == {"status": "SERVING"}
            else:
                assert payload == first
        finally:
            stream.close()


def read_end_of_stream(stream, within):
    """Envelopes until the end-of-stream one (which must be last); (messages, end object)."""
    messages, deadline = [], time.monotonic() + within
    while time.monotonic() < deadline:
        item = stream.next()
        assert item is not None, f"the stream ended without an end-of-stream envelope after {messages}"
        flags, payload = item
        if flags == END_STREAM:
            assert stream.next() is None, "bytes after the end-of-stream envelope"
            return messages, json.loads(payload)
        assert flags == 0, f"flags {flags:#x}"
        messages.append(payload)
    pytest.fail(f"no end-of-stream envelope within {within} s")


def test_connect_timeout_ends_a_stream_with_deadline_exceeded(stack):
    started = time.monotonic()
    stream = OpenStream(stack, HEALTH + "Watch", {}, headers={"connect-timeout-ms": "500"})
    try:
        assert stream.status == 200
        messages, end = read_end_of_stream(stream, within=10)
    finally:
        stream.close()
    assert [json.loads(m) for m in messages] == [{"status": "SERVING"}]
    assert end["error"]["code"] == "deadline_exceeded", end
    assert isinstance(end.get("metadata", {}), dict), end
    assert 0.4 <= time.monotonic() - started < 10


def test_a_stream_without_a_token_ends_with_the_error_in_the_end_of_stream_envelope(stack):
    request = ext_pb2.StartSendingUpdatesRequest(
        context=s.context(), intent=s.intent("INSearchForMessagesIntent", chat.SearchForMessagesIntent()))
    for content_type in (CONNECT_JSON, CONNECT_PROTO):
        stream = OpenStream(stack, EXTENSION + "StartSendingUpdates", request, content_type=content_type)
        try:
            assert (stream.status, stream.header("content-type")) == (200, content_type), stream.headers
            messages, end = read_end_of_stream(stream, within=s.TIMEOUT)
        finally:
            stream.close()
        assert messages == []
        assert end["error"]["code"] == "unauthenticated", end
        assert "missing credentials" in end["error"]["message"]
        assert error_info(end["error"]) == [("CREDENTIALS_MISSING", "intentmesh.dev")]
        assert isinstance(end.get("metadata", {}), dict), end


def test_a_stream_request_that_is_not_one_envelope_ends_with_invalid_argument(stack):
    for body in (b'{"status":', envelope(b"{}") + envelope(b"{}")):
        stream = OpenStream(stack, HEALTH + "Watch", body)
        try:
            assert stream.status == 200
            messages, end = read_end_of_stream(stream, within=s.TIMEOUT)
        finally:
            stream.close()
        assert (messages, end["error"]["code"]) == ([], "invalid_argument"), end


class ChatUser:
    def __init__(self, stack, prefix, name):
        self.id = f"{prefix}-{uuid.uuid4().hex[:10]}"
        self.name = name
        self.handle = f"{self.id}@unicorn.chat"
        self.auth = bearer(stack, self.id)


def send_in_json(stack, sender, to, content):
    """A message sent through the gateway in Connect JSON: Confirm, then Handle with its token."""
    request = {"intent": as_json(s.intent("INSendMessageIntent", chat.SendMessageIntent(
        recipients=[types.Person(display_name=to)], content=content), "UnicornChat"))}
    confirmed = connect_call(stack, EXTENSION + "Confirm", request, headers=sender.auth)
    assert confirmed.status == 200, confirmed
    handled = connect_call(stack, EXTENSION + "Handle",
                           dict(request, confirmationToken=confirmed.json()["confirmationToken"]), headers=sender.auth)
    assert (handled.status, handled.json()["response"]["codeName"]) == (200, "success"), handled
    return handled.json()["response"]["payload"]["sentMessage"]


def search_answer(payload):
    update = json_format.Parse(payload, ext_pb2.LiveUpdate())
    answer = s.unpack(update.response.payload, chat.SearchForMessagesIntentResponse)
    return update.response.code_name, [(m.content, m.sender.display_name) for m in answer.messages]


def test_a_live_message_search_streams_each_new_message(stack):
    ava, ben = ChatUser(stack, "ava", "Ava Stardust"), ChatUser(stack, "ben", "Ben Moonbeam")
    for user in (ava, ben):
        made = connect_call(stack, CHAT_APP + "SignUp", {"displayName": user.name, "handle": user.handle},
                            headers=user.auth)
        assert (made.status, made.json()["account"]["userId"]) == (200, user.id), made
    for user, contact in ((ava, ben), (ben, ava)):
        added = connect_call(stack, CHAT_APP + "AddContact", {"contact": {
            "displayName": contact.name, "handle": contact.handle}}, headers=user.auth)
        assert (added.status, added.json()["contact"]["isUser"]) == (200, True), added
    tag = uuid.uuid4().hex[:6]
    send_in_json(stack, ava, "Ben", f"one {tag}")

    request = {"intent": as_json(s.intent("INSearchForMessagesIntent", chat.SearchForMessagesIntent(
        senders=[types.Person(display_name="Ava")]), "UnicornChat"))}
    stream = OpenStream(stack, EXTENSION + "StartSendingUpdates", request,
                        headers=dict(ben.auth, **{"connect-timeout-ms": "30000"}))
    try:
        assert (stream.status, stream.header("content-type")) == (200, CONNECT_JSON), stream.headers
        flags, payload = stream.next()
        assert flags == 0, payload
        assert search_answer(payload) == ("success", [(f"one {tag}", "Ava Stardust")])
        send_in_json(stack, ava, "Ben", f"two {tag}")
        flags, payload = stream.next()
        assert flags == 0, payload
        assert search_answer(payload) == ("success", [(f"two {tag}", "Ava Stardust")])
    finally:
        stream.close()


# --- 6. gRPC-Web -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("content_type", [GRPC_WEB, "application/grpc-web"])
def test_grpc_web_health_check_answers_a_data_frame_and_trailers(stack, content_type):
    answer = connect_call(stack, HEALTH + "Check", envelope(b""), content_type=content_type)
    assert (answer.status, answer.content_type) == (200, GRPC_WEB), answer
    frames = envelopes(answer.body)
    assert [flags for flags, _ in frames] == [0, TRAILERS], frames
    assert frames[0][1] == SERVING
    trailers = grpc_web_trailers(frames[1][1])
    assert trailers["grpc-status"] == "0", trailers
    assert trailers.get("grpc-message", "") == "", trailers


def test_grpc_web_json_health_check(stack):
    answer = connect_call(stack, HEALTH + "Check", envelope(b"{}"), content_type=GRPC_WEB_JSON)
    assert (answer.status, answer.content_type) == (200, GRPC_WEB_JSON), answer
    frames = envelopes(answer.body)
    assert [flags for flags, _ in frames] == [0, TRAILERS], frames
    assert json.loads(frames[0][1]) == {"status": "SERVING"}
    assert grpc_web_trailers(frames[1][1])["grpc-status"] == "0"


def test_grpc_web_resolve_matches_grpc(stack):
    answer = connect_call(stack, EXTENSION + "Resolve", resolve_request(), headers=bearer(stack),
                          content_type=GRPC_WEB)
    assert answer.status == 200, answer
    frames = envelopes(answer.body)
    assert [flags for flags, _ in frames] == [0, TRAILERS], frames
    assert ext_pb2.ResolveResponse.FromString(frames[0][1]) == grpc_call(
        stack, EXTENSION + "Resolve", resolve_request(), ext_pb2.ResolveResponse, token_user="diana")
    assert grpc_web_trailers(frames[1][1])["grpc-status"] == "0"


def test_grpc_web_error_is_a_trailers_frame_with_status_and_message(stack):
    answer = connect_call(stack, EXTENSION + "Resolve", resolve_request(), content_type=GRPC_WEB)
    assert (answer.status, answer.content_type) == (200, GRPC_WEB), answer
    frames = envelopes(answer.body)
    assert [flags for flags, _ in frames] == [TRAILERS], frames
    trailers = grpc_web_trailers(frames[0][1])
    assert trailers["grpc-status"] == "16", trailers
    over_grpc = grpc_error(stack, EXTENSION + "Resolve", resolve_request())
    assert urllib.parse.unquote(trailers["grpc-message"]) == over_grpc.details()


def test_grpc_web_message_is_percent_encoded(stack):
    # The message names the class: a '%' and a non-ASCII letter must travel percent-encoded.
    odd = s.intent("INPizza%Ü Intent", chat.SendMessageIntent())
    request = ext_pb2.ResolveRequest(context=s.context(), intent=odd)
    answer = connect_call(stack, EXTENSION + "Resolve", request, headers=bearer(stack), content_type=GRPC_WEB)
    assert answer.status == 200, answer
    frames = envelopes(answer.body)
    assert [flags for flags, _ in frames] == [TRAILERS], frames
    trailers = grpc_web_trailers(frames[0][1])
    assert trailers["grpc-status"] == "5", trailers  # NOT_FOUND
    raw = trailers["grpc-message"]
    assert all(0x20 <= ord(c) <= 0x7e for c in raw), raw
    assert "INPizza%25%C3%9C Intent" in raw, raw
    over_grpc = grpc_error(stack, EXTENSION + "Resolve", request, token_user="diana")
    assert over_grpc.code() == grpc.StatusCode.NOT_FOUND
    assert urllib.parse.unquote(raw) == over_grpc.details()
    assert "INPizza%Ü Intent" in over_grpc.details()


# --- 7. CORS -----------------------------------------------------------------------------------------------

def test_a_preflight_from_an_unconfigured_origin_is_403(stack):
    for path in (GATEWAY + "ListRoutes", HEALTH + "Check"):
        answer = connect_call(stack, path, b"", method="OPTIONS", content_type=None, headers={
            "origin": "https://elsewhere.example", "access-control-request-method": "POST",
            "access-control-request-headers": "content-type, connect-protocol-version"})
        assert answer.status == 403, answer
        assert not [name for name, _ in answer.headers if name.startswith("access-control-")], answer


def test_calls_need_no_cors_headers_and_get_none_for_an_unconfigured_origin(stack):
    same_origin = f"http://{stack.gateway}"
    for origin in (None, same_origin, "https://elsewhere.example"):
        headers = {"origin": origin} if origin else {}
        answer = connect_call(stack, GATEWAY + "ListRoutes", {}, headers=headers)
        assert answer.status == 200, answer
        assert not [name for name, _ in answer.headers if name.startswith("access-control-")], answer
        assert parsed(answer, gw.ListRoutesResponse).routes


def test_stubs_still_work_on_the_port_that_speaks_connect(stack):
    """gRPC clients are untouched: the stubs the other tests use, on the same port, in between."""
    stub = ext_grpc.IntentsExtensionStub(stack.channel("gateway"))
    assert s.resolve(stub, s.context(), message_to_celestra()).complete
    assert gw_grpc.GatewayStub(stack.raw_channel("gateway")).ListRoutes(gw.ListRoutesRequest(), timeout=s.TIMEOUT).routes
    assert chat_app_grpc.UnicornChatAppStub(stack.raw_channel("gateway")).GetAccount(
        chat_app.GetAccountRequest(), metadata=[("authorization", f"Bearer {stack.token('diana')}")],
        timeout=s.TIMEOUT).account.user_id == "diana"
