#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (Fuzz/Corpus/<target>/seed-*) from the protos: realistic
requests of every shape the targets read, so that libFuzzer starts from inputs that go deep. The
output is deterministic; scripts/fuzz checks the committed corpus matches (--check).

Needs the Python stubs (clients/python/generate.sh) and the `hpack` package (pip install h2)."""
import os
import struct
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "clients", "python", "generated"))

import hpack  # noqa: E402
from google.protobuf import json_format  # noqa: E402
from intentmesh.gateway.v1 import gateway_pb2  # noqa: E402
from intentmesh.messaging.v1 import messaging_pb2  # noqa: E402
from intentmesh.notebook.v1 import notebook_pb2  # noqa: E402
from intentmesh.payments.v1 import payments_pb2  # noqa: E402
from intentmesh.ridebooking.v1 import ridebooking_pb2  # noqa: E402
from intentmesh.v1 import extension_service_pb2  # noqa: E402

# The payload examples of each domain, in the domains target's order (messaging, payments, rides, notes).
PAYLOADS = [
    [
        (messaging_pb2.SendMessageIntent, {"recipients": [{"displayName": "Celestra"}], "content": "hello"}),
        (messaging_pb2.SearchForMessagesIntent, {"senders": [{"displayName": "Diana"}], "searchTerms": ["unicorn"]}),
    ],
    [
        (
            payments_pb2.SendPaymentIntent,
            {"payee": {"displayName": "Celestra"}, "currencyAmount": {"currencyCode": "USD", "units": "12", "nanos": 500000000}, "note": "lunch"},
        ),
        (payments_pb2.RequestPaymentIntent, {"payer": {"displayName": "Celestra"}, "currencyAmount": {"currencyCode": "EUR", "units": "3"}}),
    ],
    [
        (
            ridebooking_pb2.RequestRideIntent,
            {
                "pickupLocation": {"name": "Ferry Building", "location": {"latitude": 37.7955, "longitude": -122.3937}},
                "dropOffLocation": {"name": "Moscone Center", "location": {"latitude": 37.784, "longitude": -122.4009}},
                "partySize": 2,
            },
        ),
        (ridebooking_pb2.GetRideStatusIntent, {}),
    ],
    [
        (notebook_pb2.CreateNoteIntent, {"title": {"spokenPhrase": "Groceries"}, "content": {"text": "milk"}}),
        (notebook_pb2.AddTasksIntent, {"targetTaskList": {"title": {"spokenPhrase": "Groceries"}}, "taskTitles": [{"spokenPhrase": "eggs"}]}),
    ],
]


def message(kind, fields):
    return json_format.ParseDict(fields, kind(), ignore_unknown_fields=False)


def resolve_request(intent_class, payload):
    request = extension_service_pb2.ResolveRequest()
    request.context.time_zone = "Europe/Zurich"
    request.intent.intent_class = intent_class
    request.intent.app_name = "UnicornChat"
    request.intent.payload.Pack(payload)
    return request.SerializeToString()


def grpc_frame(body):
    return b"\x00" + struct.pack(">I", len(body)) + body


def h2(kind, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def record(kind, data):
    return bytes([kind]) + struct.pack(">H", len(data)) + data


def relay_seeds():
    request = grpc_frame(resolve_request("INSendMessageIntent", message(*PAYLOADS[0][0])))
    encoder = hpack.Encoder()
    request_headers = encoder.encode(
        [(":method", "POST"), (":scheme", "http"), (":path", "/intentmesh.v1.IntentsExtension/Resolve"),
         (":authority", "localhost"), ("content-type", "application/grpc"), ("te", "trailers"),
         ("grpc-timeout", "5S"), ("authorization", "Bearer x")]
    )
    upstream = hpack.Encoder()
    response_headers = upstream.encode([(":status", "200"), ("content-type", "application/grpc")])
    trailers = upstream.encode([("grpc-status", "0")])
    call = h2(1, 4, 1, request_headers) + h2(0, 1, 1, request)
    answer = h2(4, 1, 0, b"") + h2(1, 4, 1, response_headers) + h2(0, 0, 1, grpc_frame(b"\x08\x01")) + h2(1, 5, 1, trailers)
    yield "resolve-answered", record(0, call) + record(1, answer)
    yield "resolve-then-reset", record(0, call) + record(0, h2(3, 0, 1, b"\x00\x00\x00\x08"))
    yield "split-frames", record(0, call[:7]) + record(0, call[7:30]) + record(0, call[30:]) + record(2, b"\x01\x00")
    yield "ping-window-priority", record(0, h2(6, 0, 0, b"12345678") + h2(8, 0, 0, b"\x00\x01\x00\x00") + h2(2, 0, 3, b"\x00\x00\x00\x01\x10"))
    yield "timeout", record(0, h2(1, 4, 1, request_headers)) + record(2, b"\xff\xff") + record(2, b"\xff\xff")
    yield "goaway-upstream", record(0, call) + record(1, h2(7, 0, 0, b"\x00\x00\x00\x00\x00\x00\x00\x0b"))


def wire_scan_seeds():
    for domain, examples in enumerate(PAYLOADS):
        for number, (kind, fields) in enumerate(examples):
            body = grpc_frame(resolve_request(kind.DESCRIPTOR.name, message(kind, fields)))
            yield f"resolve-{domain}-{number}", b"\x01" + body
            yield f"cut-{domain}-{number}", b"\x00" + body[: len(body) // 2]


def key_path_seeds():
    paths = [b"recipients[0].displayName", b"payee.displayName", b"currencyAmount", b"pickupLocation.location.latitude", b"rideStatus.driver"]
    for index, (kind, fields) in enumerate([PAYLOADS[0][0], PAYLOADS[1][0], PAYLOADS[2][0], PAYLOADS[2][1]]):
        encoded = message(kind, fields).SerializeToString()
        for number, path in enumerate(paths):
            yield f"{index}-{number}", bytes([index]) + path + b"\n" + encoded


JSON_TYPES = [
    "intentmesh.gateway.v1.InteractRequest", "intentmesh.gateway.v1.LayoutRequest", "intentmesh.v1.ResolveRequest",
    "intentmesh.v1.HandleRequest", "intentmesh.v1.ConfigureViewRequest", "intentmesh.messaging.v1.SendMessageIntent",
    "intentmesh.payments.v1.SendPaymentIntent", "intentmesh.ridebooking.v1.RequestRideIntent",
    "intentmesh.notebook.v1.CreateNoteIntent", "google.protobuf.Any", "google.protobuf.Timestamp", "google.protobuf.Duration",
]


def proto_json_seeds():
    interact = gateway_pb2.InteractRequest()
    interact.intent.intent_class = "INSendMessageIntent"
    interact.intent.payload.Pack(message(*PAYLOADS[0][0]))
    examples = {
        0: json_format.MessageToJson(interact, indent=None).encode(),
        2: json_format.MessageToJson(extension_service_pb2.ResolveRequest.FromString(resolve_request("INSendPaymentIntent", message(*PAYLOADS[1][0]))), indent=None).encode(),
        5: json_format.MessageToJson(message(*PAYLOADS[0][0]), indent=None).encode(),
        6: json_format.MessageToJson(message(*PAYLOADS[1][0]), indent=None).encode(),
        7: json_format.MessageToJson(message(*PAYLOADS[2][0]), indent=None).encode(),
        8: json_format.MessageToJson(message(*PAYLOADS[3][0]), indent=None).encode(),
        10: b'"2026-11-25T15:36:41.123456789Z"',
        11: b'"-3.000000500s"',
    }
    for index, text in examples.items():
        yield f"json-{index}", bytes([index]) + text
    yield "binary-2", bytes([0x80 | 2]) + resolve_request("INRequestRideIntent", message(*PAYLOADS[2][0]))
    yield "binary-0", bytes([0x80 | 0]) + interact.SerializeToString()
    yield "escapes", bytes([5]) + b'{"content":"\\u00e9\\ud83e\\udd84\\n","recipients":[{"displayName":"D\\"i"}]}'


def domain_seeds():
    for domain, examples in enumerate(PAYLOADS):
        for number, (kind, fields) in enumerate(examples):
            encoded = message(kind, fields).SerializeToString()
            for intent in range(6):
                # Resolve, Confirm and ConfigureView (flags 2 | 4).
                yield f"{domain}-{number}-{intent}", bytes([domain, intent, 6]) + encoded


TARGETS = {
    "relay": relay_seeds, "wire-scan": wire_scan_seeds, "key-path": key_path_seeds,
    "proto-json": proto_json_seeds, "domains": domain_seeds,
}


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    for target, seeds in TARGETS.items():
        folder = os.path.join(REPO, "Fuzz", "Corpus", target)
        os.makedirs(folder, exist_ok=True)
        for name, data in seeds():
            path = os.path.join(folder, f"seed-{name}")
            if check:
                if not os.path.exists(path) or open(path, "rb").read() != data:
                    stale.append(path)
            else:
                with open(path, "wb") as out:
                    out.write(data)
    if stale:
        print("the seed corpus is out of date (run scripts/fuzz-seeds.py):\n  " + "\n  ".join(stale), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
