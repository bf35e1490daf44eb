"""The stack under test: `intentmesh up` started once for the whole session, on free ports, over a
fresh data folder, and stopped with SIGINT at the end (it must say "stopped cleanly").

The binaries come from $INTENTMESH_BIN, or else from `swift build --show-bin-path` (which only
prints the path). The Python stubs are generated from Protos/ by clients/python/generate.sh when
pytest starts, before the test modules (which import them) are collected.
"""
import os
import re
import signal
import subprocess
import sys
import time
import uuid

import grpc
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(CLIENT))
GENERATED = os.path.join(CLIENT, "generated")

#: UnicornRides' clock runs this many times faster than the wall clock (UNICORNRIDES_CLOCK_SPEED),
#: so that a booked ride completes in a few seconds and can take feedback. At 120 a short ride
#: (≈ 7 minutes of ride time) takes ≈ 3.6 s, and a ride stays cancellable (not yet on board) for ≥ 2 s.
RIDE_CLOCK_SPEED = 120

DOMAINS = ("messaging-service", "payments-service", "ridebooking-service", "notes-service", "workouts-service")


def pytest_configure(config):
    """Generates the stubs once, before collection: the test modules import them."""
    if getattr(config, "workerinput", None) is not None:  # pytest-xdist worker: the controller did it
        return
    done = subprocess.run(
        [os.path.join(CLIENT, "generate.sh")], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    if done.returncode != 0:
        raise pytest.UsageError(f"clients/python/generate.sh failed:\n{done.stdout}")


sys.path.insert(0, GENERATED)
sys.path.insert(0, CLIENT)  # intentmesh_client, shared with the examples


def binary_directory():
    configured = os.environ.get("INTENTMESH_BIN", "").strip()
    if configured:
        return configured
    shown = subprocess.run(
        ["swift", "build", "--show-bin-path"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    if shown.returncode != 0:
        pytest.exit(f"set INTENTMESH_BIN: `swift build --show-bin-path` failed: {shown.stderr}", returncode=2)
    return shown.stdout.strip()


class ContextUserBearer(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    """Signs every call in as the user its request's `context.user_id` names, with a token of the
    stack's local identity, as a real client sends its user's token. Calls that carry their own
    `authorization`, or name no user, go as they are."""

    def __init__(self, stack):
        self._stack = stack

    def _details(self, details, request):
        metadata = list(details.metadata or [])
        if any(key == "authorization" for key, _ in metadata):
            return details
        context = getattr(request, "context", None)
        user = context.user_id.strip() if context is not None and hasattr(context, "user_id") else ""
        if not user:
            return details
        metadata.append(("authorization", f"Bearer {self._stack.token(user)}"))
        from intentmesh_client import with_metadata  # imported once the stubs exist

        return with_metadata(details, metadata)

    def intercept_unary_unary(self, continuation, details, request):
        return continuation(self._details(details, request), request)

    def intercept_unary_stream(self, continuation, details, request):
        return continuation(self._details(details, request), request)


class Stack:
    """The endpoints of a running `intentmesh up`, and one channel per endpoint."""

    def __init__(self, endpoints, log_path, data, executable):
        import grpc

        self.endpoints = endpoints
        self.log_path = log_path
        self.data = data
        self.executable = executable
        self._grpc = grpc
        self._channels = {}
        self._tokens = {}

    def token(self, user, ttl="1h"):
        """A bearer token of `user`, signed by the identity `intentmesh up` made (`intentmesh token`)."""
        key = (user, ttl)
        if key not in self._tokens:
            done = subprocess.run(
                [self.executable, "token", "--data", self.data, "--user", user, "--ttl", ttl],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True,
            )
            self._tokens[key] = done.stdout.strip()
        return self._tokens[key]

    def _intercepted(self, channel):
        import grpc

        bearer = ContextUserBearer(self)
        return grpc.intercept_channel(channel, bearer)

    @property
    def gateway(self):
        return self.endpoints["gateway"]

    def channel(self, name, **options):
        """A channel to `name` ("gateway" or a domain service); shared unless options are given."""
        target = self.endpoints[name]
        if options:
            channel = self._grpc.insecure_channel(target, options=list(options.items()))
            self._channels[(name, uuid.uuid4().hex)] = channel
            return self._intercepted(channel)
        if name not in self._channels:
            self._channels[name] = self._grpc.insecure_channel(target)
        return self._intercepted(self._channels[name])

    def raw_channel(self, name):
        """A channel that sends no token of its own."""
        return self._grpc.insecure_channel(self.endpoints[name])

    def extension(self, name):
        from intentmesh.v1 import extension_service_pb2_grpc

        return extension_service_pb2_grpc.IntentsExtensionStub(self.channel(name))

    def gateway_api(self):
        from intentmesh.gateway.v1 import gateway_pb2_grpc

        return gateway_pb2_grpc.GatewayStub(self.channel("gateway"))

    def log(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as log:
            return log.read()

    def close(self):
        for channel in self._channels.values():
            channel.close()
        self._channels.clear()


@pytest.fixture(scope="session")
def stack(tmp_path_factory):
    bin_dir = binary_directory()
    executable = os.path.join(bin_dir, "intentmesh")
    if not os.access(executable, os.X_OK):
        pytest.exit(f"no intentmesh executable in {bin_dir} (set INTENTMESH_BIN or build first)", returncode=2)
    data = tmp_path_factory.mktemp("intentmesh-data")
    log_path = os.path.join(str(data), "up.log")
    environment = dict(os.environ, UNICORNRIDES_CLOCK_SPEED=str(RIDE_CLOCK_SPEED))
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [executable, "up", "--port", "0", "--data", str(data)],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=environment,
        )

    def read_log():
        with open(log_path, encoding="utf-8", errors="replace") as log:
            return log.read()

    deadline = time.monotonic() + 60
    while "Ctrl-C stops everything" not in read_log():
        if process.poll() is not None:
            pytest.exit(f"intentmesh up exited with {process.returncode}:\n{read_log()}", returncode=3)
        if time.monotonic() > deadline:
            process.kill()
            pytest.exit(f"intentmesh up did not come up within 60 s:\n{read_log()}", returncode=3)
        time.sleep(0.05)
    text = read_log()
    endpoints = {
        name: address for name, address in re.findall(r"^  (\S+)\s+(127\.0\.0\.1:\d+)\s*$", text, re.MULTILINE)
    }
    missing = [name for name in ("gateway",) + DOMAINS if name not in endpoints]
    if missing:
        process.send_signal(signal.SIGINT)
        process.wait(30)
        pytest.exit(f"no endpoint for {missing} in the output of intentmesh up:\n{text}", returncode=3)

    running = Stack(endpoints, log_path, str(data), executable)
    try:
        yield running
    finally:
        running.close()
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        try:
            status = process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            pytest.fail(f"intentmesh up did not stop within 30 s of SIGINT:\n{read_log()}")
        final = read_log()
        assert status == 0, f"intentmesh up exited with {status} after SIGINT:\n{final}"
        assert "stopped cleanly" in final, f"intentmesh up did not stop cleanly:\n{final}"


@pytest.fixture(params=["direct", "gateway"])
def via(request):
    """Every intent is called on its domain's own endpoint and through the gateway."""
    return request.param


@pytest.fixture
def fresh_user():
    """A user no test has used: for domains whose state is per user and needs no seeded account."""
    return f"contract-{uuid.uuid4().hex[:12]}"
