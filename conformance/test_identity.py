"""How a domain believes a token, beyond the error table (test_errors.py): every domain verifies
the same way, whatever its language.

- one `authorization` header, no more (which of two would it believe?);
- a token must name its key (`kid`);
- a key that leaves the JWKS voids every token it verified, cached or not (`--rotate-keys`: the
  kit rewrites the stack's JWKS for a few seconds);
- the JWKS comes over https, or plain http to loopback only, with the host a URL parser reads
  (`http://localhost:80@evil.example/` is evil.example's), never through a redirect, and no larger
  than 1 MiB (the profile's `launch` command: the kit starts the service itself with each source).
"""
import base64
import http.server
import json
import os
import re
import subprocess
import tempfile
import threading
import time

import grpc
import pytest
from intentmesh.v1 import extension_service_pb2 as ext

from kit import refused
from test_errors import calls

UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED


def bearer(token):
    return [("authorization", f"Bearer {token}")]


def resolves(domain, metadata, target=None):
    """Whether a Resolve with `metadata` is taken (any status but UNAUTHENTICATED)."""
    stub = domain.extension if target is None else target
    intent = domain.intent(domain.manifest.intents[0].intent_class)
    try:
        stub.Resolve(ext.ResolveRequest(intent=intent), metadata=metadata, timeout=10)
        return True
    except grpc.RpcError as error:
        if error.code() == UNAUTHENTICATED:
            return False
        return True


def test_two_authorization_headers_are_unauthenticated(domain):
    """Two headers, both valid tokens of two users, or a valid one and garbage: refused, whichever
    comes first."""
    for headers in (
        domain.md() + domain.md(domain.other_user),
        domain.md() + [("authorization", "Bearer not.a.jwt")],
        [("authorization", "Bearer not.a.jwt")] + domain.md(),
    ):
        refused(calls(domain, headers)["Resolve"], UNAUTHENTICATED)


def test_a_token_that_names_no_key_is_unauthenticated(domain):
    if not domain.tokens.can_sign:
        pytest.skip("a token without a kid needs --identity (the signing key)")
    token = domain.tokens.signed(domain.tokens.claims(domain.user), without_kid=True)
    refused(calls(domain, bearer(token))["Resolve"], UNAUTHENTICATED, "kid")


def new_key():
    """A new EC P-256 key and its JWK with `kid`."""
    from cryptography.hazmat.primitives.asymmetric import ec

    private = ec.generate_private_key(ec.SECP256R1())
    numbers = private.public_key().public_numbers()

    def b64(number):
        return base64.urlsafe_b64encode(number.to_bytes(32, "big")).rstrip(b"=").decode()

    kid = f"conformance-{os.urandom(6).hex()}"
    return private, {"kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": kid,
                     "x": b64(numbers.x), "y": b64(numbers.y)}


def until(predicate, seconds=20):
    """Whether `predicate()` turned true within `seconds` (a domain reads a changed JWKS when a token
    names a key it does not hold, at most once every 10 s)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.25)
    return False


def write_jwks(path, document):
    fresh = f"{path}.conformance"
    with open(fresh, "w") as out:
        json.dump(document, out)
    os.replace(fresh, path)


def test_a_key_that_leaves_the_jwks_voids_the_tokens_it_verified(domain):
    """A token verified (and cached) while its key was in the JWKS is refused once the key is gone:
    a revoked key revokes at once, not when the cache forgets."""
    if not domain.tokens.can_sign or not domain.rotate_keys:
        pytest.skip("rewrites the stack's JWKS: pass --identity and --rotate-keys (a private stack)")
    path = domain.tokens.jwks_path
    with open(path) as original_file:
        original = json.load(original_file)
    first = domain.md()
    assert resolves(domain, first), "the stack's own token is refused"
    private, jwk = new_key()
    other = bearer(domain.tokens.signed(domain.tokens.claims(domain.user), kid=jwk["kid"], key=private))
    try:
        write_jwks(path, {"keys": [jwk]})
        # The new key's token makes the domain read the JWKS again (a miss, at most every 10 s).
        assert until(lambda: resolves(domain, other)), "a key added to the JWKS was never taken"
        assert not resolves(domain, first), "a token whose key left the JWKS is still believed"
    finally:
        write_jwks(path, original)
        assert until(lambda: resolves(domain, first)), "the restored JWKS was never read again"


# -- the JWKS's source, with the service started by the kit --------------------------------------


class JWKSRoutes(http.server.BaseHTTPRequestHandler):
    """/jwks.json: the identity's JWKS; /moved: a redirect to it; /huge: it, padded past 1 MiB.
    Which paths were asked for is kept."""

    document = b""
    asked = []

    def do_GET(self):
        type(self).asked.append(self.path)
        if self.path == "/jwks.json":
            status, headers, body = 200, {"content-type": "application/json"}, self.document
        elif self.path == "/moved":
            status, headers, body = 302, {"location": f"http://127.0.0.1:{self.server.server_address[1]}/jwks.json"}, b""
        elif self.path == "/huge":
            padded = json.loads(self.document)
            padded["padding"] = "x" * (1 << 20)
            status, headers, body = 200, {"content-type": "application/json"}, json.dumps(padded).encode()
        else:
            status, headers, body = 404, {}, b""
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *arguments):
        pass


@pytest.fixture(scope="module")
def jwks_server(domain):
    if not domain.tokens.can_sign:
        pytest.skip("the JWKS sources need --identity")
    with open(domain.tokens.jwks_path, "rb") as jwks:
        JWKSRoutes.document = jwks.read()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), JWKSRoutes)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


SERVING = re.compile(r"serving on (\S+):(\d+)")


class Launched:
    """The service started by the profile's `launch` command with `--jwks SOURCE`: serving on its
    port, or exited (with what it printed)."""

    def __init__(self, domain, source):
        launch = domain.profile.get("launch")
        if not launch:
            pytest.skip("the profile has no `launch` command to start the service with another JWKS")
        if any("{bin}" in part for part in launch) and not domain.bin:
            pytest.skip("the profile's `launch` names {bin}: pass --bin")
        self.scratch = tempfile.mkdtemp(prefix="conformance-launch-")
        repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        argv = [part.format(bin=domain.bin or "", repo=repo, scratch=self.scratch, jwks=source) for part in launch]
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=repo)
        self.output = []
        self.address = None
        found = threading.Event()

        def read():
            for line in self.process.stdout:
                self.output.append(line)
                match = SERVING.search(line)
                if match and not found.is_set():
                    self.address = f"{match.group(1)}:{match.group(2)}"
                    found.set()
            found.set()

        threading.Thread(target=read, daemon=True).start()
        found.wait(timeout=60)

    @property
    def text(self):
        return "".join(self.output)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def believes(self, domain):
        """Whether the launched service takes the stack's own token (a Resolve that is not refused)."""
        if self.address is None:
            return False
        from intentmesh.v1 import extension_service_pb2_grpc

        with grpc.insecure_channel(self.address) as channel:
            grpc.channel_ready_future(channel).result(timeout=15)
            return resolves(domain, domain.md(), extension_service_pb2_grpc.IntentsExtensionStub(channel))


def test_a_jwks_over_plain_http_to_loopback_is_taken(domain, jwks_server):
    """The control: the kit's launch works, and a loopback http JWKS is read."""
    service = Launched(domain, f"{jwks_server}/jwks.json")
    try:
        assert service.address, f"the service did not start:\n{service.text}"
        assert service.believes(domain), "a valid token was refused with the JWKS from a loopback http URL"
    finally:
        service.stop()


@pytest.mark.parametrize("source", [
    "http://keys.example.com/jwks.json", "http://localhost:80@keys.example.com/jwks.json",
    "http://127.0.0.1@keys.example.com/jwks.json", "http://localhost.keys.example.com/jwks.json",
])
def test_a_jwks_over_plain_http_beyond_loopback_is_refused_at_start(domain, source):
    service = Launched(domain, source)
    try:
        assert service.address is None, f"started with --jwks {source}:\n{service.text}"
        assert service.process.wait(timeout=20) != 0
        assert "JWKS" in service.text, f"the refusal does not say what is wrong with the JWKS:\n{service.text}"
    finally:
        service.stop()


@pytest.mark.parametrize("path, why", [("/moved", "a redirect"), ("/huge", "over 1 MiB")])
def test_a_jwks_behind_a_redirect_or_over_1_mib_is_not_read(domain, jwks_server, path, why):
    """Refused at start, or started with no keys: either way no token is believed — and a redirect
    is never followed."""
    JWKSRoutes.asked.clear()
    service = Launched(domain, f"{jwks_server}{path}")
    try:
        if service.address is not None:
            assert not service.believes(domain), f"a token was believed with a JWKS {why}"
        else:
            assert service.process.wait(timeout=20) != 0
        if path == "/moved":
            assert "/jwks.json" not in JWKSRoutes.asked, "the redirect was followed"
    finally:
        service.stop()
