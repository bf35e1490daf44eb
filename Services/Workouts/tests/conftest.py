"""Shared fixtures of UnicornFit's unit tests: no server, no network.

The generated stubs are made (or found) at import time, before any test module imports
`intentmesh.workouts.v1.workouts_pb2` and friends."""
import base64
import json
import os
import sys
import time

sys.dont_write_bytecode = True  # nothing written beside the service's sources
HERE = os.path.dirname(os.path.abspath(__file__))
SERVICE = os.path.dirname(HERE)
if SERVICE not in sys.path:
    sys.path.insert(0, SERVICE)

from unicornfit import contract  # noqa: E402

contract.ensure_generated()

import jwt  # noqa: E402
import pytest  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from intentmesh.v1 import intent_pb2  # noqa: E402

from unicornfit import app_service, identity, manifest as manifests  # noqa: E402
from unicornfit.catalog import Catalog  # noqa: E402
from unicornfit.extension import IntentsExtension  # noqa: E402
from unicornfit.handlers import handlers as make_handlers  # noqa: E402
from unicornfit.intents import IntentContext  # noqa: E402
from unicornfit.store import Store  # noqa: E402

MANIFEST_FOLDER = os.path.join(SERVICE, "Manifest")
#: A fixed "now" (2023-11-14T22:13:20Z) for handlers and the extension's clock.
NOW_MS = 1_700_000_000_000
KID = "unit-test-key"
ALICE = "alice"
BOB = "bob"


# -- store, catalog, handlers -------------------------------------------------------------------


@pytest.fixture
def store(tmp_path):
    made = Store(str(tmp_path / "w.sqlite"))
    yield made
    made.close()


@pytest.fixture(scope="session")
def plists():
    return manifests.Plists.load(MANIFEST_FOLDER)


@pytest.fixture(scope="session")
def catalog(plists):
    return Catalog.from_plist(plists.vocabulary)


@pytest.fixture(scope="session")
def handlers(catalog):
    """As unicornfit/server.py's serve() builds them."""
    return make_handlers(catalog)


@pytest.fixture(scope="session")
def manifest(plists, handlers):
    return manifests.build(plists, handlers, [app_service.SERVICE_NAME])


def context(user=ALICE, now_ms=NOW_MS, identifier="intent-1", device_locked=False):
    """The IntentContext a handler gets."""
    return IntentContext(
        user_id=user, locale="en-US", time_zone=None, device_locked=device_locked, identifier=identifier,
        now_ms=now_ms,
    )


# -- tokens ---------------------------------------------------------------------------------------


def _b64(number):
    return base64.urlsafe_b64encode(number.to_bytes(32, "big")).rstrip(b"=").decode()


class Signer:
    """An EC P-256 signing key, its JWKS file and a TokenVerifier reading it."""

    def __init__(self, folder):
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        numbers = self.private_key.public_key().public_numbers()
        self.jwks_path = os.path.join(folder, "jwks.json")
        with open(self.jwks_path, "w") as out:
            json.dump(
                {"keys": [{"kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": KID,
                           "x": _b64(numbers.x), "y": _b64(numbers.y)}]},
                out,
            )
        self.keys = identity.KeySet(self.jwks_path)
        self.verifier = identity.TokenVerifier(self.keys)

    @staticmethod
    def claims(sub, **overrides):
        now = int(time.time())
        made = {"iss": "intentmesh", "aud": "intentmesh", "sub": sub, "iat": now, "exp": now + 3600}
        made.update(overrides)
        return {key: value for key, value in made.items() if value is not None}

    def token(self, sub=ALICE, key=None, kid=KID, **claims):
        """A token for `sub`; `claims` override (None drops a claim)."""
        return jwt.encode(self.claims(sub, **claims), key or self.private_key, algorithm="ES256", headers={"kid": kid})


@pytest.fixture(scope="session")
def signer(tmp_path_factory):
    return Signer(str(tmp_path_factory.mktemp("identity")))


# -- a grpc servicer context without grpc ---------------------------------------------------------


class Aborted(Exception):
    """What FakeContext.abort raises (real grpc's abort raises too)."""

    def __init__(self, code, details):
        super().__init__(f"{code}: {details}")
        self.code = code
        self.details = details


class FakeContext:
    def __init__(self, metadata=()):
        self.metadata = tuple(metadata)
        self.aborted = None

    def invocation_metadata(self):
        return self.metadata

    def abort(self, code, details):
        self.aborted = (code, details)
        raise Aborted(code, details)


def bearer(token):
    return FakeContext([("authorization", f"Bearer {token}")])


@pytest.fixture
def as_user(signer):
    """as_user("bob"): a grpc context with a valid bearer token of bob."""
    return lambda user=ALICE: bearer(signer.token(user))


def refused(call):
    """The (code, details) a call aborted with; fails when it did not abort."""
    with pytest.raises(Aborted) as caught:
        call()
    return caught.value.code, caught.value.details


# -- the extension ----------------------------------------------------------------------------------


class Clock:
    """A settable clock in seconds, for IntentsExtension(clock=...)."""

    def __init__(self, ms=NOW_MS):
        self.ms = ms

    def advance(self, seconds):
        self.ms += int(seconds * 1000)

    def __call__(self):
        return self.ms / 1000.0


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def extension(handlers, manifest, store, signer, clock):
    return IntentsExtension(handlers, manifest, store, signer.verifier, clock=clock)


def intent(intent_class, message=None, identifier="intent-1"):
    """intentmesh.v1.Intent of `intent_class` with `message` packed as its payload."""
    made = intent_pb2.Intent(intent_class=intent_class, identifier=identifier or "")
    if message is not None:
        made.payload.Pack(message)
    return made


def workouts_in(store, user=None):
    query = "SELECT * FROM workouts" + (" WHERE user_id = ?" if user else "") + " ORDER BY started_ms"
    return store.read(lambda db: db.execute(query, (user,) if user else ()).fetchall())

