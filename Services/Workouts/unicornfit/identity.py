"""Who calls: the subject of a verified bearer token (a JWT checked against the configured JWKS),
as every IntentMesh service decides it. `RequestContext.user_id` is at most a cross-check."""
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import jwt

from .errors import permission_denied, unauthenticated

#: The algorithms a token may be signed with: asymmetric only (no `none`, no HMAC with a public key).
ALGORITHMS = ["ES256", "ES384", "RS256", "RS384", "RS512", "PS256", "EdDSA"]

#: The largest JWKS document read: real ones are a few KiB (as the Swift services).
MAXIMUM_JWKS_BYTES = 1 << 20

#: The hosts a JWKS may be fetched from over plain http.
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}


def jwks_source(text):
    """Where the JWKS comes from, as the Swift services read it: ("url", text) for an https URL, or
    plain http to a loopback host; ("file", text) for anything else. The host is what a URL parser
    makes of it (`http://localhost:80@evil.example/` is evil.example's), and a URL carrying user
    info is refused outright. ValueError says why a source is refused."""
    if text.lower().startswith(("https://", "http://")):
        parts = urllib.parse.urlsplit(text)
        if "@" in parts.netloc:
            raise ValueError(f"a JWKS URL must not carry user info: {text}")
        host = parts.hostname or ""
        if not host:
            raise ValueError(f"a JWKS URL must name a host: {text}")
        if parts.scheme.lower() == "http" and host not in LOOPBACK_HOSTS:
            raise ValueError(f"a JWKS URL must be https (plain http only to loopback): {text}")
        return ("url", text)
    if not text:
        raise ValueError("the JWKS location is empty")
    return ("file", text)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an error: one could lead from https to http, or to another host."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        raise urllib.error.HTTPError(
            req.full_url, code, f"the JWKS URL redirects to {newurl}; redirects are not followed", headers, fp)


_OPENER = urllib.request.build_opener(_NoRedirects)


class KeySet:
    """The JWKS from a file or an https URL (`jwks_source`), read again every `refresh_seconds` and
    when a token names a key it does not hold (at most once every 10 s). Keys without a `kid`, not
    for signing, or of a type this verifier cannot use are skipped. `generation` moves whenever a
    reload brings other keys: what the old set vouched for is void."""

    def __init__(self, source, refresh_seconds=600, clock=time.monotonic):
        self._kind, self._source = jwks_source(source)
        self._refresh_seconds = refresh_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._keys = {}
        self._document = None
        self.generation = 0
        self._loaded_at = None
        self._last_miss_reload = -1e9
        self.last_error = None
        try:
            self.reload()
        except (OSError, ValueError) as error:
            # As the Swift services: the service starts, and refuses tokens until the keys load.
            self.last_error = str(error)
            self._loaded_at = clock()

    def _read(self):
        if self._kind == "url":
            with _OPENER.open(self._source, timeout=10) as answer:
                body = answer.read(MAXIMUM_JWKS_BYTES + 1)
        else:
            with open(self._source, "rb") as file:
                body = file.read(MAXIMUM_JWKS_BYTES + 1)
        if len(body) > MAXIMUM_JWKS_BYTES:
            raise ValueError(f"the JWKS at {self._source} is larger than {MAXIMUM_JWKS_BYTES} bytes")
        return json.loads(body)

    def reload(self):
        document = self._read()
        keys = {}
        for entry in document.get("keys", []):
            if entry.get("use", "sig") != "sig" or not entry.get("kid"):
                continue
            try:
                keys[entry["kid"]] = (jwt.PyJWK.from_dict(entry), entry.get("alg"))
            except jwt.PyJWKError:
                continue  # a key type this verifier cannot use is skipped, as the Swift services do
        canonical = json.dumps(document, sort_keys=True)
        with self._lock:
            if canonical != self._document:
                self._document = canonical
                self._keys = keys
                self.generation += 1
            self._loaded_at = self._clock()

    def current_generation(self):
        """The generation of the keys now, after reading them again when they are stale."""
        with self._lock:
            stale = self._clock() - self._loaded_at > self._refresh_seconds
        if stale:
            try:
                self.reload()
            except (OSError, ValueError):
                pass  # the keys loaded before stay; a token they do not hold is refused
        with self._lock:
            return self.generation

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
        """The verified subject of the call's `authorization: Bearer` token; UNAUTHENTICATED otherwise.
        A verified token is remembered under the key set's generation: a key set that changed
        voids it."""
        headers = [value for key, value in metadata if key.lower() == "authorization"]
        if len(headers) > 1:
            raise unauthenticated("malformed bearer token: more than one authorization header")
        header = headers[0] if headers else None
        if not header:
            raise unauthenticated("missing credentials: send authorization: Bearer <JWT>")
        scheme, _, token = header.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise unauthenticated("malformed bearer token: the authorization header is not `Bearer <JWT>`")
        now = self._clock()
        generation = self._keys.current_generation()
        with self._lock:
            cached = self._cache.get(token)
        if cached and now < cached[1] + self._leeway and cached[2] == generation:
            return cached[0]
        claims = self._verify(token)
        expires = float(claims["exp"])
        with self._lock:
            if len(self._cache) >= 10_000:
                self._cache.clear()
            self._cache[token] = (claims["sub"], expires, generation)
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
        if not isinstance(kid, str) or not kid:
            raise unauthenticated("unknown signing key: the token's header names no kid")
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
