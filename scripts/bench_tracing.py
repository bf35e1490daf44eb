"""The measuring part of scripts/bench-tracing: what tracing costs a relayed call.

Starts three stacks side by side from --bin (release builds), each a messaging-service on a fresh
SQLite database behind a gateway: one without an OTLP endpoint (no tracer, the default), one
exporting every span (OTLP over gRPC, sampler always on) and one sampling 1 % of the traces the
gateway starts (parentbased_traceidratio 0.01: the domain follows the gateway's decision), to a
receiver in this process, which counts the spans it gets by stack (service.namespace). In alternating rounds it drives `Resolve` of "send Celestra a message"
through each gateway's relay with h2load (16 connections × 10 streams, then 1 × 1) and prints, per
run: req/s, p50/p99, and the CPU time per call of the gateway and of the domain (utime + stime from
/proc over the measured part). Then the medians, their spread over rounds, and the ratios
traced/untraced.
"""
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import uuid
from concurrent import futures

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_domains as bench  # noqa: E402
import grpc  # noqa: E402
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as otlp  # noqa: E402
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc as otlp_grpc  # noqa: E402
from intentmesh.v1 import extension_service_pb2 as ext  # noqa: E402
from intentmesh.v1 import intent_pb2  # noqa: E402

RESOLVE = "/intentmesh.v1.IntentsExtension/Resolve"


class Receiver(otlp_grpc.TraceServiceServicer):
    """An OTLP trace receiver that only counts, by the stack (service.namespace) they come from."""

    def __init__(self):
        self.spans = {}
        self.lock = threading.Lock()

    def Export(self, request, context):
        for resource in request.resource_spans:
            stack = next((a.value.string_value for a in resource.resource.attributes
                          if a.key == "service.namespace"), "")
            count = sum(len(scope.spans) for scope in resource.scope_spans)
            with self.lock:
                self.spans[stack] = self.spans.get(stack, 0) + count
        return otlp.ExportTraceServiceResponse()

    def count(self, stack):
        with self.lock:
            return self.spans.get(stack, 0)


class Process:
    def __init__(self, arguments, log_path, environment):
        self.log_path = log_path
        with open(log_path, "w") as log:
            self.process = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            env={**os.environ, **environment})
        deadline = time.monotonic() + 60
        while True:
            found = re.search(r" serving on 127\.0\.0\.1:(\d+)", open(log_path).read())
            if found:
                self.port = int(found.group(1))
                return
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{arguments[0]} did not start:\n{open(log_path).read()}")
            time.sleep(0.05)

    def cpu_ticks(self):
        fields = open(f"/proc/{self.process.pid}/stat").read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    def stop(self):
        self.process.terminate()
        return self.process.wait(30)


class Stack:
    def __init__(self, name, binary, work, jwks, environment):
        self.name = name
        common = ["--port", "0", "--jwks", jwks, "--metrics-port=-1", "--log-level", "warning"]
        database = os.path.join(work, f"{name}-{uuid.uuid4().hex[:6]}.sqlite")
        self.domain = Process([os.path.join(binary, "messaging-service"), "--database", database] + common,
                              os.path.join(work, f"{name}-messaging.log"), environment)
        self.gateway = Process([os.path.join(binary, "gateway"), "--domain", f"127.0.0.1:{self.domain.port}"] + common,
                               os.path.join(work, f"{name}-gateway.log"), environment)

    def stop(self):
        return [self.gateway.stop(), self.domain.stop()]


def measure(stack, body_file, token, load, seconds, warm_up, work):
    connections, streams = load
    log_file = os.path.join(work, f"{stack.name}-{connections}x{streams}-{uuid.uuid4().hex[:4]}.log")
    runner = bench.h2load(stack.gateway.port, RESOLVE, body_file, token, connections, streams, seconds, warm_up,
                          log_file)
    time.sleep(warm_up)
    ticks = [stack.gateway.cpu_ticks(), stack.domain.cpu_ticks()]
    started = time.monotonic()
    output, _ = runner.communicate()
    elapsed = time.monotonic() - started
    after = [stack.gateway.cpu_ticks(), stack.domain.cpu_ticks()]
    result = bench.h2load_outcome(output, log_file, stack.name)
    calls = result["rate"] * min(elapsed, seconds)
    result["gateway"], result["domain"] = [
        (b - a) / os.sysconf("SC_CLK_TCK") * 1e6 / calls if calls else 0.0 for a, b in zip(ticks, after)]
    return result


def main():
    parser = bench.service_arguments()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=5)
    arguments = parser.parse_args()

    receiver = Receiver()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    otlp_grpc.add_TraceServiceServicer_to_server(receiver, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    stacks = [
        Stack("untraced", arguments.bin, arguments.work, arguments.jwks, {}),
        Stack("traced", arguments.bin, arguments.work, arguments.jwks,
              {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_TRACES_SAMPLER": "always_on",
               "OTEL_BSP_SCHEDULE_DELAY": "1000", "OTEL_RESOURCE_ATTRIBUTES": "service.namespace=traced"}),
        Stack("sampled", arguments.bin, arguments.work, arguments.jwks,
              {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
               "OTEL_TRACES_SAMPLER_ARG": "0.01", "OTEL_BSP_SCHEDULE_DELAY": "1000",
               "OTEL_RESOURCE_ATTRIBUTES": "service.namespace=sampled"}),
    ]
    try:
        context = intent_pb2.RequestContext(user_id="diana", time_zone="Europe/Zurich", locale="en-US")
        request = ext.ResolveRequest(context=context, intent=bench.send_message())
        metadata = [("authorization", f"Bearer {arguments.token}")]
        for stack in stacks:
            with grpc.insecure_channel(f"127.0.0.1:{stack.gateway.port}") as channel:
                answer = ext_stub(channel).Resolve(request, timeout=10, metadata=metadata)
                assert answer.complete, f"{stack.name}: Resolve not complete: {answer}"
        body_file = os.path.join(arguments.work, "resolve.bin")
        with open(body_file, "wb") as out:
            out.write(bench.framed(request.SerializeToString()))
        results = {}
        for round_number in range(arguments.rounds):
            for load in [(16, 10), (1, 1)]:
                order = stacks[round_number % 3:] + stacks[:round_number % 3]
                for stack in order:
                    spans_before = receiver.count(stack.name)
                    result = measure(stack, body_file, arguments.token, load, arguments.seconds, 1, arguments.work)
                    time.sleep(1.5)  # the last batch of spans (sent at least every second)
                    result["spans"] = receiver.count(stack.name) - spans_before
                    results.setdefault((stack.name, load), []).append(result)
                    print(f"round {round_number + 1} {stack.name:9} {load[0]}x{load[1]:<3} {result['rate']:9.0f} req/s "
                          f"p50 {result['p50']:6.2f} ms p99 {result['p99']:6.2f} ms  CPU/call gateway "
                          f"{result['gateway']:5.0f} µs domain {result['domain']:5.0f} µs  spans {result['spans']}"
                          f"{'  NON-200: ' + str(result['bad']) if result['bad'] else ''}", flush=True)
        print()
        print(f"{'load':6} {'':9} {'req/s':>18} {'p50 ms':>8} {'gateway µs/call':>16} {'domain µs/call':>15} "
              f"{'spans/call':>10}")
        for load in [(16, 10), (1, 1)]:
            medians = {}
            for name in ["untraced", "traced", "sampled"]:
                runs = results[(name, load)]
                rates = [r["rate"] for r in runs]
                medians[name] = {key: statistics.median(r[key] for r in runs)
                                 for key in ["rate", "p50", "gateway", "domain"]}
                calls = sum(r["rate"] * arguments.seconds for r in runs)
                spans = sum(r["spans"] for r in runs)
                print(f"{load[0]}x{load[1]:<4} {name:9} {medians[name]['rate']:8.0f} ({min(rates):.0f}–{max(rates):.0f}) "
                      f"{medians[name]['p50']:8.2f} {medians[name]['gateway']:16.0f} {medians[name]['domain']:15.0f} "
                      f"{spans / calls if calls else 0:10.2f}")
            off = medians["untraced"]
            for name in ["traced", "sampled"]:
                on = medians[name]
                print(f"{'':6} {name + '/untraced':>20}: req/s {on['rate'] / off['rate']:.2f}, "
                      f"p50 {on['p50'] / off['p50']:.2f}, CPU/call gateway {on['gateway'] / off['gateway']:.2f}, "
                      f"domain {on['domain'] / off['domain']:.2f}")
    finally:
        for stack in stacks:
            stack.stop()
        server.stop(1)


def ext_stub(channel):
    from intentmesh.v1 import extension_service_pb2_grpc as ext_grpc
    return ext_grpc.IntentsExtensionStub(channel)


if __name__ == "__main__":
    main()
