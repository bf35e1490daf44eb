"""Distributed tracing end to end: a small stack of its own (messaging-service, payments-service and
the gateway, started here on free ports, not the session's `intentmesh up`) exports its spans with
OTLP over gRPC to a receiver in this process (otlp_receiver.py). The tests check that a client's W3C
`traceparent` is continued through the gateway's relay hop and its own gRPC server into the domains,
down to the store; that a call without one starts a trace at the gateway; that a failed call's span
says so; that health checks and reflection make no spans; and that a domain's log lines carry the
trace id.

Every test starts traces of its own (a fresh trace id in its `traceparent`) and looks only at those:
the spans come in batches (OTEL_BSP_SCHEDULE_DELAY=100 ms), so a test polls the receiver until the
spans it expects are there, with a deadline."""
import http.client
import os
import re
import secrets
import signal
import subprocess
import time

import grpc
import pytest
from grpc_reflection.v1alpha import reflection_pb2
from intentmesh.gateway.v1 import gateway_pb2 as gw
from intentmesh.gateway.v1 import gateway_pb2_grpc as gw_grpc
from intentmesh.messaging.v1 import messaging_pb2 as chat
from intentmesh.payments.v1 import payments_pb2 as pay
from intentmesh.v1 import extension_service_pb2 as ext_pb2
from intentmesh.v1 import extension_service_pb2_grpc as ext_grpc
from intentmesh.v1 import types_pb2 as types

import support as s
from conftest import binary_directory
from otlp_receiver import CLIENT, INTERNAL, SERVER, STATUS_ERROR, OtlpReceiver

EXTENSION = "intentmesh.v1.IntentsExtension"
GATEWAY_API = "intentmesh.gateway.v1.Gateway"
HEALTH_CHECK = "/grpc.health.v1.Health/Check"
REFLECTION_INFO = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"

#: How long a started service may take to say it serves, and a span or log line to come.
START_WITHIN = 60
SPANS_WITHIN = 10
STOP_WITHIN = 30

SERVING = re.compile(r"serving on (127\.0\.0\.1:\d+)")


class Service:
    """One process of the stack, its stdout and stderr in files of their own."""

    def __init__(self, name, command, environment, folder):
        self.name = name
        self.stdout_path = os.path.join(folder, f"{name}.out")
        self.stderr_path = os.path.join(folder, f"{name}.err")
        with open(self.stdout_path, "w") as stdout, open(self.stderr_path, "w") as stderr:
            self.process = subprocess.Popen(command, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL,
                                            env=environment)
        self.address = None

    def stdout(self):
        with open(self.stdout_path, encoding="utf-8", errors="replace") as output:
            return output.read()

    def stderr(self):
        with open(self.stderr_path, encoding="utf-8", errors="replace") as output:
            return output.read()

    def output(self):
        return f"--- {self.name} stdout:\n{self.stdout()}\n--- {self.name} stderr:\n{self.stderr()[-6000:]}"

    def wait_serving(self):
        """The address it prints once it serves ("… serving on 127.0.0.1:PORT")."""
        deadline = time.monotonic() + START_WITHIN
        while True:
            found = SERVING.search(self.stdout())
            if found:
                self.address = found.group(1)
                return self.address
            if self.process.poll() is not None:
                pytest.fail(f"{self.name} exited with {self.process.returncode} before serving:\n{self.output()}")
            if time.monotonic() > deadline:
                pytest.fail(f"{self.name} did not serve within {START_WITHIN} s:\n{self.output()}")
            time.sleep(0.05)

    def stop(self):
        """SIGTERM, then its exit status (killed, and None, when it does not stop in time)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=STOP_WITHIN)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None


class TracedStack:
    """The receiver, the services, a token of Diana's, and a channel to each endpoint."""

    def __init__(self, receiver, services, token):
        self.receiver = receiver
        self.services = services
        self.token = token
        self._channels = {}

    def address(self, name):
        return self.services[name].address

    def channel(self, name):
        if name not in self._channels:
            self._channels[name] = grpc.insecure_channel(self.address(name))
        return self._channels[name]

    def extension(self, name="gateway"):
        return ext_grpc.IntentsExtensionStub(self.channel(name))

    def gateway_api(self):
        return gw_grpc.GatewayStub(self.channel("gateway"))

    def metadata(self, traceparent=None):
        """Diana's bearer token, and the client's traceparent when given."""
        metadata = [("authorization", f"Bearer {self.token}")]
        if traceparent is not None:
            metadata.append(("traceparent", traceparent.header))
        return metadata

    def close(self):
        for channel in self._channels.values():
            channel.close()
        self._channels.clear()


def clean_environment(receiver):
    """This process's environment without any OTEL_* or INTENTMESH_* setting of its own, exporting
    to `receiver` in batches sent every 100 ms."""
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith(("OTEL_", "INTENTMESH_"))}
    environment.update(OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY="100")
    return environment


def wait_for_routes(stack):
    """Until the gateway routes both domains' intents (ListRoutes needs no token)."""
    gateway = stack.gateway_api()
    deadline = time.monotonic() + START_WITHIN
    routes = None
    while time.monotonic() < deadline:
        try:
            routes = gateway.ListRoutes(gw.ListRoutesRequest(), timeout=s.TIMEOUT)
        except grpc.RpcError:
            routes = None
        if routes is not None:
            routed = {route.intent_class for route in routes.routes}
            healthy = {domain.endpoint for domain in routes.domains if domain.health == "SERVING"}
            if ({"INSendMessageIntent", "INSendPaymentIntent"} <= routed
                    and {stack.address("messaging-service"), stack.address("payments-service")} <= healthy):
                return
        time.sleep(0.1)
    pytest.fail(f"the gateway did not route both domains within {START_WITHIN} s: {routes}\n"
                f"{stack.services['gateway'].output()}")


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    """The stack of this module: the OTLP receiver, a token of Diana's (`intentmesh token`, which
    makes the identity the services check it with), messaging-service at debug log level,
    payments-service and the gateway in front of both, all exporting to the receiver. At the end each
    is stopped with SIGTERM and must exit 0."""
    bin_dir = binary_directory()
    folder = str(tmp_path_factory.mktemp("tracing"))
    executable = os.path.join(bin_dir, "intentmesh")
    if not os.access(executable, os.X_OK):
        pytest.exit(f"no intentmesh executable in {bin_dir} (set INTENTMESH_BIN or build first)", returncode=2)
    token = subprocess.run([executable, "token", "--data", folder, "--user", "diana", "--ttl", "1h"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True).stdout.strip()
    jwks = os.path.join(folder, "identity", "jwks.json")
    assert token and os.path.exists(jwks), f"intentmesh token made no token or no {jwks}"

    receiver = OtlpReceiver().start()
    environment = clean_environment(receiver)
    common = ["--port", "0", "--metrics-port=-1", "--jwks", jwks]
    services = {}
    stack = TracedStack(receiver, services, token)
    try:
        for name, extra in (
            ("messaging-service", ["--database", os.path.join(folder, "messaging.sqlite"), "--log-level", "debug"]),
            ("payments-service", ["--database", os.path.join(folder, "payments.sqlite")]),
        ):
            services[name] = Service(name, [os.path.join(bin_dir, name)] + common + extra, environment, folder)
        for service in list(services.values()):
            service.wait_serving()
        domains = [argument for name in ("messaging-service", "payments-service")
                   for argument in ("--domain", services[name].address)]
        services["gateway"] = Service("gateway", [os.path.join(bin_dir, "gateway")] + common + domains,
                                      environment, folder)
        services["gateway"].wait_serving()
        wait_for_routes(stack)
        yield stack
    finally:
        stack.close()
        statuses = {name: service.stop() for name, service in reversed(list(services.items()))}
        receiver.stop()
        failed = {name: status for name, status in statuses.items() if status != 0}
        assert not failed, (f"not stopped cleanly by SIGTERM (None: killed after {STOP_WITHIN} s): {failed}\n"
                            + "\n".join(services[name].output() for name in failed))


# --- traces and spans -----------------------------------------------------------------------------------

class Traceparent:
    """A client's span: a fresh trace id and span id, as the W3C `traceparent` header (sampled)."""

    def __init__(self):
        self.trace_id = secrets.token_hex(16)
        self.span_id = secrets.token_hex(8)
        self.header = f"00-{self.trace_id}-{self.span_id}-01"


def matching(spans, service=None, name=None, kind=None, parent=None):
    return [span for span in spans
            if (service is None or span.service == service) and (name is None or span.name == name)
            and (kind is None or span.kind == kind) and (parent is None or span.parent == parent)]


def one(spans, **criteria):
    found = matching(spans, **criteria)
    assert len(found) == 1, f"expected one span {criteria}, found {len(found)}:\n" + tree(spans)
    return found[0]


def tree(spans):
    """The spans as an indented tree by parent, for failure messages."""
    by_parent = {}
    ids = {span.span_id for span in spans}
    for span in spans:
        by_parent.setdefault(span.parent if span.parent in ids else None, []).append(span)
    lines = []

    def show(span, depth):
        lines.append("  " * (depth + 1) + repr(span))
        for child in sorted(by_parent.get(span.span_id, []), key=lambda child: child.start):
            show(child, depth + 1)

    for root in sorted(by_parent.get(None, []), key=lambda root: root.start):
        show(root, 0)
    return "\n".join(lines) or "  (no spans)"


def wait_trace(stack, trace_id, *expected, what=None):
    """The spans of `trace_id` once each of `expected` — (service, name) or (service, name, kind) —
    is among them."""

    def complete(spans):
        for wanted in expected:
            service, name, kind = (tuple(wanted) + (None,))[:3]
            if not matching(spans, service=service, name=name, kind=kind):
                return None
        return spans

    return stack.receiver.wait_for(complete, what or f"spans {list(expected)}", SPANS_WITHIN, trace_id=trace_id)


def assert_rpc(span, service, method, code=0):
    """The rpc.* attributes of a gRPC call's span, and an error status exactly when the code is not OK."""
    attributes = span.attributes
    assert (attributes.get("rpc.system"), attributes.get("rpc.service"), attributes.get("rpc.method")) == (
        "grpc", service, method), span
    assert attributes.get("rpc.grpc.status_code") == code, span
    assert isinstance(attributes.get("rpc.grpc.status_code"), int), span
    if code == 0:
        assert span.status != STATUS_ERROR, span
    else:
        assert span.status == STATUS_ERROR, span


def assert_one_trace(spans, trace_id):
    assert spans and {span.trace_id for span in spans} == {trace_id}, tree(spans)
    assert len({span.span_id for span in spans}) == len(spans), f"span ids repeat:\n{tree(spans)}"


# --- intents ---------------------------------------------------------------------------------------------

def message_intent():
    return s.intent("INSendMessageIntent", chat.SendMessageIntent(
        recipients=[types.Person(display_name="Sparkle Sparkly")], content=f"tracing {secrets.token_hex(4)}"),
        "UnicornChat")


def payment_intent():
    return s.intent("INSendPaymentIntent", pay.SendPaymentIntent(
        payee=types.Person(display_name="Buttercup"),
        currency_amount=types.CurrencyAmount(currency_code="USD", units=1, nanos=250_000_000),
        note=f"tracing {secrets.token_hex(4)}"), "UnicornPay")


def traced_resolve(stack, the_intent, target="gateway"):
    """Resolve `the_intent` on `target` as a client span of a fresh trace: (traceparent, answer)."""
    client = Traceparent()
    answer = stack.extension(target).Resolve(ext_pb2.ResolveRequest(context=s.context(), intent=the_intent),
                                             metadata=stack.metadata(client), timeout=s.TIMEOUT)
    return client, answer


# --- the tests -------------------------------------------------------------------------------------------

def test_a_relayed_resolve_continues_the_clients_trace_down_to_the_store(traced):
    """A Resolve through the gateway's relay with the client's traceparent: client span → the
    gateway's relay span → messaging-service's server span → "Resolve INSendMessageIntent" (outcome
    complete) → "store read", all in the client's trace; the relay span names the call, its intent
    class and the upstream it went to."""
    client, answer = traced_resolve(traced, message_intent())
    assert answer.complete
    resolve = f"{EXTENSION}/Resolve"
    spans = wait_trace(traced, client.trace_id, ("gateway", resolve), ("messaging-service", resolve),
                       ("messaging-service", "Resolve INSendMessageIntent"), ("messaging-service", "store read"))
    assert_one_trace(spans, client.trace_id)

    relay = one(spans, service="gateway")
    assert (relay.name, relay.kind, relay.parent) == (resolve, SERVER, client.span_id), tree(spans)
    assert_rpc(relay, EXTENSION, "Resolve")
    assert relay.attributes.get("intentmesh.intent_class") == "INSendMessageIntent", relay
    assert relay.attributes.get("intentmesh.relay.upstream") == traced.address("messaging-service"), relay

    server = one(spans, service="messaging-service", name=resolve)
    assert (server.kind, server.parent) == (SERVER, relay.span_id), tree(spans)
    assert_rpc(server, EXTENSION, "Resolve")

    resolved = one(spans, service="messaging-service", name="Resolve INSendMessageIntent")
    assert (resolved.kind, resolved.parent) == (INTERNAL, server.span_id), tree(spans)
    assert resolved.attributes.get("intentmesh.intent_class") == "INSendMessageIntent", resolved
    assert resolved.attributes.get("intentmesh.outcome") == "complete", resolved

    store = matching(spans, service="messaging-service", name="store read")
    for read in store:
        assert (read.kind, read.parent) == (CLIENT, resolved.span_id), tree(spans)
        assert read.attributes.get("db.system.name") == "sqlite", read
    # Nothing else: no span of another service, and no span outside the chain.
    chain = {relay.span_id, server.span_id, resolved.span_id} | {read.span_id for read in store}
    assert {span.span_id for span in spans} == chain, tree(spans)


def test_confirm_and_handle_of_a_payment_are_traced_with_their_outcomes(traced):
    """Confirm and Handle of a payment to Buttercup through the gateway, each in a trace of its own:
    "Confirm INSendPaymentIntent" says "ready"; "Handle INSendPaymentIntent" says "success" and writes
    the store (a "store write" child); the same Handle again says "success (replayed)"."""
    gateway = traced.extension("gateway")
    the_intent = payment_intent()

    confirm_client = Traceparent()
    confirmed = gateway.Confirm(ext_pb2.ConfirmRequest(context=s.context(), intent=the_intent),
                                metadata=traced.metadata(confirm_client), timeout=s.TIMEOUT)
    assert confirmed.response.code_name == "ready", confirmed.response
    assert confirmed.confirmation_token

    handle_request = ext_pb2.HandleRequest(context=s.context(), intent=the_intent,
                                           confirmation_token=confirmed.confirmation_token)
    handle_client = Traceparent()
    handled = gateway.Handle(handle_request, metadata=traced.metadata(handle_client), timeout=s.TIMEOUT)
    assert handled.response.code_name == "success" and not handled.replayed, handled.response

    replay_client = Traceparent()
    again = gateway.Handle(handle_request, metadata=traced.metadata(replay_client), timeout=s.TIMEOUT)
    assert again.response.code_name == "success" and again.replayed, again.response

    def call_chain(client, method, outcome):
        """gateway relay span → payments-service server span → "<method> INSendPaymentIntent"."""
        name = f"{EXTENSION}/{method}"
        step = f"{method} INSendPaymentIntent"
        spans = wait_trace(traced, client.trace_id, ("gateway", name), ("payments-service", name),
                           ("payments-service", step))
        assert_one_trace(spans, client.trace_id)
        relay = one(spans, service="gateway", name=name, kind=SERVER)
        assert relay.parent == client.span_id, tree(spans)
        assert_rpc(relay, EXTENSION, method)
        assert relay.attributes.get("intentmesh.intent_class") == "INSendPaymentIntent", relay
        assert relay.attributes.get("intentmesh.relay.upstream") == traced.address("payments-service"), relay
        server = one(spans, service="payments-service", name=name, kind=SERVER)
        assert server.parent == relay.span_id, tree(spans)
        assert_rpc(server, EXTENSION, method)
        inside = one(spans, service="payments-service", name=step, kind=INTERNAL)
        assert inside.parent == server.span_id, tree(spans)
        assert inside.attributes.get("intentmesh.intent_class") == "INSendPaymentIntent", inside
        assert inside.attributes.get("intentmesh.outcome") == outcome, inside
        for store in matching(spans, service="payments-service", name="store read") + matching(
                spans, service="payments-service", name="store write"):
            assert (store.kind, store.parent) == (CLIENT, inside.span_id), tree(spans)
            assert store.attributes.get("db.system.name") == "sqlite", store
        return spans, inside

    call_chain(confirm_client, "Confirm", "ready")
    spans, inside = call_chain(handle_client, "Handle", "success")
    writes = traced.receiver.wait_for(
        lambda spans: matching(spans, service="payments-service", name="store write", parent=inside.span_id),
        "the first Handle's store write", SPANS_WITHIN, trace_id=handle_client.trace_id)
    assert all(write.kind == CLIENT for write in writes), tree(spans)
    call_chain(replay_client, "Handle", "success (replayed)")


def test_interact_traces_the_gateways_own_calls_to_the_domain(traced):
    """Interact on the gateway's own API: its server span is the client span's child; the calls the
    gateway makes to messaging-service are CLIENT spans under it, and each of the domain's server
    spans is the child of the CLIENT span of its call."""
    client = Traceparent()
    turn = traced.gateway_api().Interact(gw.InteractRequest(context=s.context(), intent=message_intent()),
                                         metadata=traced.metadata(client), timeout=s.TIMEOUT)
    assert turn.stage == gw.InteractResponse.Stage.STAGE_NEEDS_CONFIRMATION, turn
    interact = f"{GATEWAY_API}/Interact"

    def complete(spans):
        """The Interact span, a Resolve and a Confirm call, and a domain server span under each call."""
        calls = matching(spans, service="gateway", kind=CLIENT)
        names = {call.name for call in calls}
        served = {span.parent for span in matching(spans, service="messaging-service", kind=SERVER)}
        if (matching(spans, service="gateway", name=interact)
                and {f"{EXTENSION}/Resolve", f"{EXTENSION}/Confirm"} <= names
                and all(call.span_id in served for call in calls)):
            return spans
        return None

    spans = traced.receiver.wait_for(complete, "Interact's spans", SPANS_WITHIN, trace_id=client.trace_id)
    assert_one_trace(spans, client.trace_id)
    server = one(spans, service="gateway", name=interact)
    assert (server.kind, server.parent) == (SERVER, client.span_id), tree(spans)
    assert_rpc(server, GATEWAY_API, "Interact")

    calls = matching(spans, service="gateway", kind=CLIENT)
    assert {f"{EXTENSION}/Resolve", f"{EXTENSION}/Confirm"} <= {call.name for call in calls}, tree(spans)
    for call in calls:
        assert call.parent == server.span_id, tree(spans)
        assert call.name.startswith(f"{EXTENSION}/"), call
        method = call.name.split("/", 1)[1]
        assert (call.attributes.get("rpc.service"), call.attributes.get("rpc.method")) == (EXTENSION, method), call
        domain = one(spans, service="messaging-service", kind=SERVER, parent=call.span_id)
        assert domain.name == call.name, tree(spans)
        assert_rpc(domain, EXTENSION, method)
    # Every domain server span in the trace hangs under one of the gateway's calls.
    assert {span.parent for span in matching(spans, service="messaging-service", kind=SERVER)} <= {
        call.span_id for call in calls}, tree(spans)
    # Under the domain's Resolve: the resolution, complete.
    resolve_server = one(spans, service="messaging-service", kind=SERVER, name=f"{EXTENSION}/Resolve")
    resolved = one(spans, service="messaging-service", name="Resolve INSendMessageIntent")
    assert (resolved.kind, resolved.parent) == (INTERNAL, resolve_server.span_id), tree(spans)
    assert resolved.attributes.get("intentmesh.outcome") == "complete", resolved


def traced_connect(stack, path, request):
    """`request` POSTed to the gateway as a Connect unary call (binary) over HTTP/1.1, with Diana's
    token, as a client span of a fresh trace: that span, once the call answered 200."""
    client = Traceparent()
    host, port = stack.address("gateway").rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=s.TIMEOUT)
    try:
        connection.request("POST", path, body=request.SerializeToString(), headers={
            "content-type": "application/proto", "authorization": f"Bearer {stack.token}",
            "traceparent": client.header})
        answer = connection.getresponse()
        assert answer.status == 200, answer.read()
        answer.read()
    finally:
        connection.close()
    return client


def test_web_calls_are_traced_with_their_protocol(traced):
    """A Connect JSON Resolve relayed to messaging-service: the gateway's span says rpc.system
    connect_rpc, the web protocol and codec, under the client's span, and the domain continues it.
    A Connect Interact, answered by the gateway's own server in process: its server span is the
    client's child, and the calls it makes to the domain hang under it."""
    client = traced_connect(traced, f"/{EXTENSION}/Resolve",
                            ext_pb2.ResolveRequest(context=s.context(), intent=message_intent()))
    resolve = f"{EXTENSION}/Resolve"
    spans = wait_trace(traced, client.trace_id, ("gateway", resolve), ("messaging-service", resolve))
    relay = one(spans, service="gateway", name=resolve)
    assert (relay.kind, relay.parent) == (SERVER, client.span_id), tree(spans)
    assert relay.attributes.get("rpc.system") == "connect_rpc", relay
    assert relay.attributes.get("intentmesh.web.protocol") == "connect", relay
    assert relay.attributes.get("intentmesh.web.codec") == "proto", relay
    assert relay.attributes.get("intentmesh.relay.upstream") == traced.address("messaging-service"), relay
    server = one(spans, service="messaging-service", name=resolve)
    assert server.parent == relay.span_id, tree(spans)

    client = traced_connect(traced, f"/{GATEWAY_API}/Interact",
                            gw.InteractRequest(context=s.context(), intent=message_intent()))
    name = f"{GATEWAY_API}/Interact"
    spans = wait_trace(traced, client.trace_id, ("gateway", name), ("gateway", resolve, CLIENT),
                       ("messaging-service", resolve))
    own = one(spans, service="gateway", name=name)
    assert (own.kind, own.parent) == (SERVER, client.span_id), tree(spans)
    for call in matching(spans, service="gateway", kind=CLIENT):
        assert call.parent == own.span_id, tree(spans)


def test_a_call_without_traceparent_starts_a_trace_at_the_gateway(traced):
    """A Resolve through the gateway without traceparent: the gateway's span is a root (no parent),
    in a trace of its own, and messaging-service's spans are in that trace under it."""
    before = {span.span_id for span in traced.receiver.spans()}
    answer = traced.extension("gateway").Resolve(ext_pb2.ResolveRequest(context=s.context(), intent=message_intent()),
                                                 metadata=traced.metadata(), timeout=s.TIMEOUT)
    assert answer.complete
    resolve = f"{EXTENSION}/Resolve"

    def new_root(spans):
        return [span for span in matching(spans, service="gateway", name=resolve, kind=SERVER)
                if span.span_id not in before and not span.parent]

    roots = traced.receiver.wait_for(new_root, "a root span of the gateway's", SPANS_WITHIN)
    assert len(roots) == 1, roots
    root = roots[0]
    assert re.fullmatch(r"[0-9a-f]{32}", root.trace_id) and root.trace_id != "0" * 32, root
    assert root.attributes.get("intentmesh.intent_class") == "INSendMessageIntent", root
    assert_rpc(root, EXTENSION, "Resolve")

    spans = wait_trace(traced, root.trace_id, ("messaging-service", resolve),
                       ("messaging-service", "Resolve INSendMessageIntent"))
    assert_one_trace(spans, root.trace_id)
    server = one(spans, service="messaging-service", name=resolve)
    assert (server.kind, server.parent) == (SERVER, root.span_id), tree(spans)
    resolved = one(spans, service="messaging-service", name="Resolve INSendMessageIntent")
    assert resolved.parent == server.span_id, tree(spans)
    assert [span for span in spans if not span.parent] == [root], tree(spans)


def test_a_failed_call_has_an_error_span(traced):
    """A Resolve of an intent class no domain declares fails NOT_FOUND at the gateway; its server
    span there (in the client's trace) has rpc.grpc.status_code 5 and an error status, and no domain
    took part."""
    client = Traceparent()
    unknown = s.intent("INTeleportUnicornIntent", chat.SendMessageIntent(content="poof"))
    s.expect_status(lambda: traced.extension("gateway").Resolve(
        ext_pb2.ResolveRequest(context=s.context(), intent=unknown), metadata=traced.metadata(client),
        timeout=s.TIMEOUT), grpc.StatusCode.NOT_FOUND)
    resolve = f"{EXTENSION}/Resolve"
    spans = wait_trace(traced, client.trace_id, ("gateway", resolve))
    failed = one(spans, service="gateway", name=resolve)
    assert (failed.kind, failed.parent) == (SERVER, client.span_id), tree(spans)
    assert_rpc(failed, EXTENSION, "Resolve", code=grpc.StatusCode.NOT_FOUND.value[0])
    assert failed.status == STATUS_ERROR and failed.attributes["rpc.grpc.status_code"] == 5, failed
    assert [span.service for span in spans] == ["gateway"], tree(spans)


def reflection_services(channel, metadata):
    info = channel.stream_stream(
        REFLECTION_INFO, request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
    answers = list(info(iter([reflection_pb2.ServerReflectionRequest(list_services="")]), metadata=metadata,
                        timeout=s.TIMEOUT))
    return {service.name for answer in answers for service in answer.list_services_response.service}


def test_health_checks_reflection_and_describe_make_no_spans(traced):
    """grpc.health.v1.Health/Check and server reflection, on the gateway and on messaging-service,
    and a domain's Describe (the gateway's discovery asks it every few seconds), even with a
    traceparent, make no span: once later traced calls to both have been exported, no span of
    health, reflection or Describe has come (in any trace), and none in the traces those calls named."""
    quiet = []
    for target in ("gateway", "messaging-service"):
        channel = traced.channel(target)
        health = Traceparent()
        check = channel.unary_unary(HEALTH_CHECK)
        assert check(b"", metadata=traced.metadata(health), timeout=s.TIMEOUT) == b"\x08\x01"  # SERVING
        reflection = Traceparent()
        assert EXTENSION in reflection_services(channel, traced.metadata(reflection))
        quiet += [health, reflection]
    describe = Traceparent()
    traced.extension("messaging-service").Describe(ext_pb2.DescribeRequest(), metadata=traced.metadata(describe),
                                                   timeout=s.TIMEOUT)
    quiet.append(describe)

    # Later calls to each, traced: once their spans are here, earlier spans would be too.
    gateway_marker, domain_marker = Traceparent(), Traceparent()
    traced.gateway_api().ListRoutes(gw.ListRoutesRequest(), metadata=traced.metadata(gateway_marker),
                                    timeout=s.TIMEOUT)
    traced.extension("messaging-service").Resolve(
        ext_pb2.ResolveRequest(context=s.context(), intent=message_intent()), metadata=traced.metadata(domain_marker),
        timeout=s.TIMEOUT)
    wait_trace(traced, gateway_marker.trace_id, ("gateway", f"{GATEWAY_API}/ListRoutes"))
    wait_trace(traced, domain_marker.trace_id, ("messaging-service", f"{EXTENSION}/Resolve"))

    everything = traced.receiver.spans()
    untraced = [span for span in everything
                if span.name.startswith(("grpc.health.", "grpc.reflection.")) or span.name.endswith("/Describe")
                or str(span.attributes.get("rpc.service", "")).startswith(("grpc.health.", "grpc.reflection."))]
    assert not untraced, "\n".join(map(repr, untraced))
    named = {client.trace_id for client in quiet}
    assert not [span for span in everything if span.trace_id in named], tree(
        [span for span in everything if span.trace_id in named])


def test_the_domains_log_lines_carry_the_trace_id(traced):
    """messaging-service at --log-level debug logs the resolution of a traced Resolve with the
    client's trace id and the span id of "Resolve INSendMessageIntent"."""
    client, answer = traced_resolve(traced, message_intent())
    assert answer.complete
    spans = wait_trace(traced, client.trace_id, ("messaging-service", "Resolve INSendMessageIntent"))
    resolved = one(spans, service="messaging-service", name="Resolve INSendMessageIntent")
    messaging = traced.services["messaging-service"]
    wanted = re.compile(r"^.*\btrace_id=" + client.trace_id + r"\b.*Resolve INSendMessageIntent: complete.*$",
                        re.MULTILINE)
    deadline = time.monotonic() + SPANS_WITHIN
    while not wanted.search(messaging.stderr()):
        assert time.monotonic() < deadline, (
            f"no log line of trace {client.trace_id} within {SPANS_WITHIN} s:\n{messaging.stderr()[-4000:]}")
        time.sleep(0.05)
    lines = [found.group(0) for found in wanted.finditer(messaging.stderr())]
    assert len(lines) == 1, lines
    assert re.search(r"\bspan_id=" + resolved.span_id + r"\b", lines[0]), (lines[0], resolved)
