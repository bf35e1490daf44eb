"""An OTLP/gRPC trace receiver in the test process: the collector the services under test export
their spans to (opentelemetry.proto.collector.trace.v1.TraceService/Export, from the PyPI package
`opentelemetry-proto`). It keeps every span it is sent, thread-safely, and lets a test wait, with a
deadline, until the spans it expects have come."""
import threading
import time
from concurrent import futures

import grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.trace.v1 import trace_pb2

INTERNAL = trace_pb2.Span.SPAN_KIND_INTERNAL
SERVER = trace_pb2.Span.SPAN_KIND_SERVER
CLIENT = trace_pb2.Span.SPAN_KIND_CLIENT
KIND_NAMES = {value: name.replace("SPAN_KIND_", "") for name, value in trace_pb2.Span.SpanKind.items()}

STATUS_UNSET = trace_pb2.Status.STATUS_CODE_UNSET
STATUS_OK = trace_pb2.Status.STATUS_CODE_OK
STATUS_ERROR = trace_pb2.Status.STATUS_CODE_ERROR


def _value(any_value):
    """An OTLP AnyValue as a Python value (arrays as tuples, key-value lists as dicts)."""
    which = any_value.WhichOneof("value")
    if which is None:
        return None
    if which == "array_value":
        return tuple(_value(item) for item in any_value.array_value.values)
    if which == "kvlist_value":
        return {pair.key: _value(pair.value) for pair in any_value.kvlist_value.values}
    return getattr(any_value, which)


class Span:
    """One received span, its ids in lowercase hex ("" for no parent)."""

    def __init__(self, service, scope, span):
        self.service = service
        self.scope = scope
        self.name = span.name
        self.kind = span.kind
        self.trace_id = span.trace_id.hex()
        self.span_id = span.span_id.hex()
        self.parent = span.parent_span_id.hex()
        self.attributes = {pair.key: _value(pair.value) for pair in span.attributes}
        self.status = span.status.code
        self.status_message = span.status.message
        self.start = span.start_time_unix_nano
        self.end = span.end_time_unix_nano

    def __repr__(self):
        attributes = ", ".join(f"{key}={value!r}" for key, value in sorted(self.attributes.items()))
        status = {STATUS_UNSET: "", STATUS_OK: " status=OK", STATUS_ERROR: " status=ERROR"}.get(self.status, "")
        return (f"{self.service}: {self.name!r} {KIND_NAMES.get(self.kind, self.kind)} trace={self.trace_id} "
                f"span={self.span_id} parent={self.parent or '-'}{status} {{{attributes}}}")


class OtlpReceiver(trace_service_pb2_grpc.TraceServiceServicer):
    """`start()` serves OTLP/gRPC on a free loopback port (`endpoint` is the URL to export to);
    `stop()` ends it. `spans()` is what came so far; `wait_for` polls until a predicate holds."""

    def __init__(self):
        self._spans = []
        self._exports = 0
        self._changed = threading.Condition()
        self._server = None
        self.port = None

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(self, self._server)
        self.port = self._server.add_insecure_port("127.0.0.1:0")
        assert self.port, "the OTLP receiver found no free port"
        self._server.start()
        return self

    def stop(self):
        if self._server is not None:
            self._server.stop(grace=1).wait()
            self._server = None

    def Export(self, request, context):  # noqa: N802 (the gRPC method's name)
        received = []
        for resource_spans in request.resource_spans:
            resource = {pair.key: _value(pair.value) for pair in resource_spans.resource.attributes}
            service = resource.get("service.name", "")
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    received.append(Span(service, scope_spans.scope.name, span))
        with self._changed:
            self._spans.extend(received)
            self._exports += 1
            self._changed.notify_all()
        return trace_service_pb2.ExportTraceServiceResponse()

    @property
    def exports(self):
        """How many Export calls came."""
        with self._changed:
            return self._exports

    def spans(self, trace_id=None):
        """The spans received so far (of one trace, when given), in the order they came."""
        with self._changed:
            spans = list(self._spans)
        return spans if trace_id is None else [span for span in spans if span.trace_id == trace_id]

    def wait_for(self, predicate, what, within=10.0, trace_id=None):
        """Polls until `predicate(spans)` (the spans so far, or those of `trace_id`) is truthy and
        returns its value; fails with what came when it is not within `within` seconds."""
        deadline = time.monotonic() + within
        while True:
            spans = self.spans(trace_id)
            found = predicate(spans)
            if found:
                return found
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                shown = "\n".join(f"  {span!r}" for span in spans[-60:]) or "  (none)"
                where = f" in trace {trace_id}" if trace_id else ""
                raise AssertionError(f"{what}: not within {within} s; the spans{where} so far:\n{shown}")
            with self._changed:
                self._changed.wait(min(remaining, 0.1))
