"""Who calls: the subject of a verified bearer token (a JWT checked against the configured JWKS),
as every IntentMesh service decides it. `RequestContext.user_id` is at most a cross-check."""
import json
import threading
import time
import urllib.request

import jwt

from .errors import permission_denied, unauthenticated

#: The algorithms a token may be signed with: asymmetric only (no `none`, no HMAC with a public key).
ALGORITHMS = ["ES256", "ES384", "RS256", "RS384", "RS512", "PS256", "EdDSA"]


class KeySet:
    """The JWKS from a file or an https URL, read again every `refresh_seconds` and when a token
    names a key it does not hold (at most once every 10 s)."""

    def __init__(self, source, refresh_seconds=600, clock=time.monotonic):
        self._source = source
        self._refresh_seconds = refresh_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._keys = {}
        self._loaded_at = None
        self._last_miss_reload = -1e9
        self.reload()

    def _read(self):
        if self._source.startswith("https://") or self._source.startswith("http://"):
            with urllib.request.urlopen(self._source, timeout=10) as answer:
                return json.loads(answer.read())
        with open(self._source, encoding="utf-8") as file:
            return json.load(file)

    def reload(self):
        document = self._read()
        keys = {}
        for entry in document.get("keys", []):
            if entry.get("use", "sig") != "sig":
                continue
            try:
                keys[entry.get("kid", "")] = (jwt.PyJWK.from_dict(entry), entry.get("alg"))
            except jwt.PyJWKError:
                continue  # a key type this verifier cannot use is skipped, as the Swift services do
        with self._lock:
            self._keys = keys
            self._loaded_at = self._clock()

    def key(self, kid):
        now = self._clock()
        with self._lock:
            stale = now - self._loaded_at > self._refresh_seconds
            found = self._keys.get(kid)
            may_reload = found is None and now - self._last_miss_reload > 10
            if may_reload:
                self._last_miss_reload = now
        if stale or may_reload:
            try:
                self.reload()
            except (OSError, ValueError) as error:
                if found is None:
                    raise unauthenticated(f"signing keys unavailable: {error}")
            with self._lock:
                found = self._keys.get(kid)
        return found


class TokenVerifier:
    """Verifies bearer tokens; a verified token is remembered (10,000 at most) until its `exp`."""

    def __init__(self, keys, issuer="intentmesh", audience="intentmesh", leeway_seconds=30, clock=time.time):
        self._keys = keys
        self._issuer = issuer
        self._audience = audience
        self._leeway = leeway_seconds
        self._clock = clock
        self._cache = {}
        self._lock = threading.Lock()

    def subject(self, metadata):
        """The verified subject of the call's `authorization: Bearer` token; UNAUTHENTICATED otherwise."""
        header = next((value for key, value in metadata if key.lower() == "authorization"), None)
        if not header:
            raise unauthenticated("missing credentials: send authorization: Bearer <JWT>")
        scheme, _, token = header.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise unauthenticated("malformed bearer token: the authorization header is not `Bearer <JWT>`")
        now = self._clock()
        with self._lock:
            cached = self._cache.get(token)
        if cached and now < cached[1] + self._leeway:
            return cached[0]
        claims = self._verify(token)
        expires = float(claims["exp"])
        with self._lock:
            if len(self._cache) >= 10_000:
                self._cache.clear()
            self._cache[token] = (claims["sub"], expires)
        return claims["sub"]

    def _verify(self, token):
        try:
            header = jwt.get_unverified_header(token)
        except jwt.DecodeError as error:
            raise unauthenticated(f"malformed bearer token: {error}")
        algorithm = header.get("alg", "")
        if algorithm not in ALGORITHMS:
            raise unauthenticated(f"token algorithm {algorithm!r} is refused: only {', '.join(ALGORITHMS)}")
        kid = header.get("kid", "")
        found = self._keys.key(kid)
        if found is None:
            raise unauthenticated(f'unknown signing key: kid "{kid}" is not in the JWKS')
        key, key_algorithm = found
        if key_algorithm and key_algorithm != algorithm:
            raise unauthenticated(f"token does not match its key: the key is for {key_algorithm}, not {algorithm}")
        try:
            claims = jwt.decode(
                token,
                key.key,
                algorithms=[algorithm],
                audience=self._audience,
                issuer=self._issuer,
                leeway=self._leeway,
                options={"require": ["exp", "sub"]},
            )
        except jwt.ExpiredSignatureError:
            raise unauthenticated("token expired")
        except jwt.ImmatureSignatureError:
            raise unauthenticated("token not yet valid")
        except jwt.InvalidIssuerError:
            raise unauthenticated(f'wrong token issuer: expected "{self._issuer}"')
        except jwt.InvalidAudienceError:
            raise unauthenticated(f'wrong token audience: expected "{self._audience}"')
        except jwt.InvalidSignatureError:
            raise unauthenticated("token signature does not verify")
        except jwt.MissingRequiredClaimError as error:
            if error.claim == "sub":
                raise unauthenticated("token has no sub: it names no user")
            raise unauthenticated(f"malformed bearer token: {error}")
        except jwt.InvalidTokenError as error:
            raise unauthenticated(f"malformed bearer token: {error}")
        if not isinstance(claims.get("sub"), str) or not claims["sub"].strip():
            raise unauthenticated("token has no sub: it names no user")
        return claims


def acting_user(verifier, metadata, request_context):
    """The user a request acts for: the token's subject; a `context.user_id` naming anyone else is
    PERMISSION_DENIED."""
    subject = verifier.subject(metadata)
    claimed = request_context.user_id.strip() if request_context is not None else ""
    if claimed and claimed != subject:
        raise permission_denied(f'context.user_id "{claimed}" is not the token\'s user')
    return subject
