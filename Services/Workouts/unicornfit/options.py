"""The flags and environment of every IntentMesh domain service, as the Swift ones take them."""
import argparse
import os


def parse(arguments=None):
    env = os.environ.get
    parser = argparse.ArgumentParser(
        prog="workouts-service",
        description="UnicornFit (workouts) as an IntentMesh domain service: intentmesh.v1.IntentsExtension,"
        " intentmesh.workouts.v1.UnicornFitApp, grpc.health.v1 and server reflection.",
    )
    parser.add_argument("--host", default=env("INTENTMESH_HOST", "127.0.0.1"), help="address to listen on")
    parser.add_argument("--port", type=int, default=int(env("INTENTMESH_PORT", "50065")), help="0 picks a free one")
    parser.add_argument("--database", default=env("INTENTMESH_DATABASE", "data/workouts.sqlite"), help="SQLite file")
    parser.add_argument(
        "--manifest",
        default=env("INTENTMESH_MANIFEST_DIR", os.path.join(os.path.dirname(os.path.dirname(__file__)), "Manifest")),
        help="folder with Info.plist and AppIntentVocabulary.plist",
    )
    parser.add_argument("--jwks", default=env("INTENTMESH_JWKS"), help="the JWKS: a file or an https:// jwks_uri")
    parser.add_argument("--jwt-issuer", default=env("INTENTMESH_JWT_ISSUER", "intentmesh"))
    parser.add_argument("--jwt-audience", default=env("INTENTMESH_JWT_AUDIENCE", "intentmesh"))
    parser.add_argument("--jwt-leeway-seconds", type=float, default=float(env("INTENTMESH_JWT_LEEWAY_SECONDS", "30")))
    parser.add_argument(
        "--jwks-refresh-seconds", type=float, default=float(env("INTENTMESH_JWKS_REFRESH_SECONDS", "600"))
    )
    parser.add_argument("--tls-cert", default=env("INTENTMESH_TLS_CERT"), help="PEM certificate chain (TLS)")
    parser.add_argument("--tls-key", default=env("INTENTMESH_TLS_KEY"), help="PEM private key (TLS)")
    parser.add_argument("--tls-client-ca", default=env("INTENTMESH_TLS_CLIENT_CA"), help="require client certificates")
    parser.add_argument("--max-message-bytes", type=int, default=int(env("INTENTMESH_MAX_MESSAGE_BYTES", str(4 << 20))))
    parser.add_argument("--log-level", default=env("INTENTMESH_LOG_LEVEL", "info"))
    parser.add_argument(
        "--health-check", action="store_true",
        help="ask the service on --host/--port over grpc.health.v1 and exit 0 if it is SERVING (container probes)",
    )
    options = parser.parse_args(arguments)
    if options.health_check:
        return options
    if "://" in options.database:
        parser.error(f"--database is a SQLite file: UnicornFit keeps its workouts in SQLite, not {options.database.split(':')[0]}")
    if not options.jwks:
        parser.error("--jwks (or INTENTMESH_JWKS) is required: every call but Describe, health and reflection needs a token")
    from .identity import jwks_source

    try:
        jwks_source(options.jwks)
    except ValueError as error:
        parser.error(f"--jwks: {error}")
    if not 0 <= options.port <= 65535:
        parser.error(f"--port must be 0-65535, not {options.port}")
    if bool(options.tls_cert) != bool(options.tls_key):
        parser.error("--tls-cert and --tls-key go together")
    return options
