"""identity: the JWKS key set and the token verifier, beyond what the extension tests show."""
import http.server
import json
import threading

import jwt
import pytest
from grpc import StatusCode

from conftest import ALICE, BOB, KID, Signer
from unicornfit import identity
from unicornfit.errors import Refusal


def metadata(token):
    return [("authorization", f"Bearer {token}")]


def refusal(call):
    with pytest.raises(Refusal) as caught:
        call()
    return caught.value.code, caught.value.message


def test_subject_of_a_valid_token(signer):
    assert signer.verifier.subject(metadata(signer.token(BOB))) == BOB
    assert signer.verifier.subject([("Authorization", "bearer " + signer.token(ALICE))]) == ALICE


def test_a_key_added_to_the_jwks_is_found_on_the_first_miss(tmp_path):
    signer = Signer(str(tmp_path))
    (tmp_path / "next").mkdir()
    rotated = Signer(str(tmp_path / "next"))  # another key, added to the first JWKS under kid "next"
    document = json.loads(open(signer.jwks_path).read())
    document["keys"].append(dict(json.loads(open(rotated.jwks_path).read())["keys"][0], kid="next"))
    with open(signer.jwks_path, "w") as out:
        json.dump(document, out)
    assert signer.verifier.subject(metadata(rotated.token(BOB, kid="next"))) == BOB


def test_a_verified_token_is_remembered_while_the_key_set_holds(tmp_path):
    signer = Signer(str(tmp_path))
    token = signer.token(BOB)
    assert signer.verifier.subject(metadata(token)) == BOB
    signer.keys.reload()  # the same keys again: still remembered
    assert signer.verifier.subject(metadata(token)) == BOB
    # The key leaves the JWKS: what it vouched for is void, at once.
    with open(signer.jwks_path, "w") as out:
        json.dump({"keys": []}, out)
    signer.keys.reload()
    assert refusal(lambda: signer.verifier.subject(metadata(token))) == (
        StatusCode.UNAUTHENTICATED, f'unknown signing key: kid "{KID}" is not in the JWKS')


def test_a_stale_key_set_is_read_again_before_a_remembered_token_is_believed(tmp_path):
    now = [1000.0]
    signer = Signer(str(tmp_path))
    keys = identity.KeySet(signer.jwks_path, refresh_seconds=60, clock=lambda: now[0])
    verifier = identity.TokenVerifier(keys)
    token = signer.token(BOB)
    assert verifier.subject(metadata(token)) == BOB
    with open(signer.jwks_path, "w") as out:
        json.dump({"keys": []}, out)
    assert verifier.subject(metadata(token)) == BOB  # not stale yet: remembered
    now[0] += 61
    assert refusal(lambda: verifier.subject(metadata(token)))[0] == StatusCode.UNAUTHENTICATED


def test_one_authorization_header_only(signer):
    two = metadata(signer.token(BOB)) + metadata(signer.token(ALICE))
    assert refusal(lambda: signer.verifier.subject(two)) == (
        StatusCode.UNAUTHENTICATED, "malformed bearer token: more than one authorization header")
    assert refusal(lambda: signer.verifier.subject(metadata(signer.token(BOB)) + [("Authorization", "Bearer x")]))[
        0] == StatusCode.UNAUTHENTICATED


def test_a_token_without_a_kid_is_refused_and_a_key_without_one_is_skipped(tmp_path):
    signer = Signer(str(tmp_path))
    kidless = jwt.encode(Signer.claims(BOB), signer.private_key, algorithm="ES256")
    assert refusal(lambda: signer.verifier.subject(metadata(kidless))) == (
        StatusCode.UNAUTHENTICATED, "unknown signing key: the token's header names no kid")
    empty_kid = jwt.encode(Signer.claims(BOB), signer.private_key, algorithm="ES256", headers={"kid": ""})
    assert refusal(lambda: signer.verifier.subject(metadata(empty_kid)))[1] == (
        "unknown signing key: the token's header names no kid")
    document = json.loads(open(signer.jwks_path).read())
    del document["keys"][0]["kid"]
    with open(signer.jwks_path, "w") as out:
        json.dump(document, out)
    keys = identity.KeySet(signer.jwks_path)
    assert keys.key("") is None and keys.key(KID) is None


@pytest.mark.parametrize("text", [
    "http://localhost:80@evil.example/jwks.json", "http://127.0.0.1@evil.example/jwks.json",
    "http://localhost.evil.example/jwks.json", "http://keys.example.com/jwks.json",
    "https://user:pass@sso.example.com/certs", "http:///jwks.json", "HTTP://evil.example/jwks.json",
    "http://[::2]/jwks.json", "",
])
def test_jwks_sources_refused_as_the_swift_services_refuse_them(text):
    with pytest.raises(ValueError):
        identity.jwks_source(text)


@pytest.mark.parametrize("text, kind", [
    ("https://sso.example.com/certs", "url"), ("http://127.0.0.1:8080/jwks.json", "url"),
    ("http://localhost/jwks.json", "url"), ("http://[::1]:9/x", "url"), ("/etc/intentmesh/jwks.json", "file"),
])
def test_jwks_sources_taken(text, kind):
    assert identity.jwks_source(text) == (kind, text)


class _JWKSHandler(http.server.BaseHTTPRequestHandler):
    routes = {}

    def do_GET(self):
        status, headers, body = self.routes.get(self.path, (404, {}, b""))
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *arguments):
        pass


@pytest.fixture
def jwks_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _JWKSHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_jwks_url_is_read_without_redirects_and_up_to_1_mib(tmp_path, jwks_server):
    server, base = jwks_server
    signer = Signer(str(tmp_path))
    good = open(signer.jwks_path, "rb").read()
    _JWKSHandler.routes = {
        "/jwks.json": (200, {"content-type": "application/json"}, good),
        "/moved": (302, {"location": f"{base}/jwks.json"}, b""),
        "/huge": (200, {}, good[:-2] + b', "padding": "' + b"x" * (1 << 20) + b'"}'),
    }
    direct = identity.TokenVerifier(identity.KeySet(f"{base}/jwks.json"))
    assert direct.subject(metadata(signer.token(BOB))) == BOB
    for path in ("/moved", "/huge"):
        keys = identity.KeySet(f"{base}{path}")
        assert keys.last_error, path
        verifier = identity.TokenVerifier(keys)
        code, message = refusal(lambda: verifier.subject(metadata(signer.token(BOB))))
        assert code == StatusCode.UNAUTHENTICATED, path
        assert "signing keys unavailable" in message, (path, message)


def test_a_jwks_file_over_1_mib_is_not_read(tmp_path):
    signer = Signer(str(tmp_path))
    document = json.loads(open(signer.jwks_path).read())
    document["padding"] = "x" * (1 << 20)
    with open(signer.jwks_path, "w") as out:
        json.dump(document, out)
    keys = identity.KeySet(signer.jwks_path)
    assert "larger than" in keys.last_error


@pytest.mark.parametrize(
    "member, value, message",
    [
        ("use", "enc", f'unknown signing key: kid "{KID}" is not in the JWKS'),  # not for signing: skipped
        ("alg", "ES384", "token does not match its key: the key is for ES384, not ES256"),
    ],
)
def test_a_key_not_for_this_token_is_refused(tmp_path, member, value, message):
    signer = Signer(str(tmp_path))
    document = json.loads(open(signer.jwks_path).read())
    document["keys"][0][member] = value
    with open(signer.jwks_path, "w") as out:
        json.dump(document, out)
    verifier = identity.TokenVerifier(identity.KeySet(signer.jwks_path))
    assert refusal(lambda: verifier.subject(metadata(signer.token()))) == (StatusCode.UNAUTHENTICATED, message)


def test_acting_user_without_a_request_context_is_the_subject(signer):
    assert identity.acting_user(signer.verifier, metadata(signer.token(BOB)), None) == BOB
