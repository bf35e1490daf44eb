"""The process: flags, store, token verifier, the gRPC server with IntentsExtension, UnicornFitApp,
health and reflection; "… serving on HOST:PORT" once it serves; SIGTERM or SIGINT: health turns
NOT_SERVING, calls in flight finish (10 s at most), the store closes."""
import logging
import os
import signal
import sys
import threading
from concurrent import futures


def main(arguments=None):
    # A parent may start us with signals blocked (a process spawned from a thread that blocks them
    # passes its mask on): SIGTERM and SIGINT must reach this thread, or a stop never comes.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    from .contract import ensure_generated

    ensure_generated()
    from . import options as flags

    options = flags.parse(arguments)
    if options.health_check:
        raise SystemExit(health_check(options))
    logging.basicConfig(
        level=getattr(logging, options.log_level.upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    serve(options)


def health_check(options):
    """0 when the service on --host/--port answers SERVING, else 1."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    host = "127.0.0.1" if options.host in ("0.0.0.0", "::", "") else options.host
    with grpc.insecure_channel(f"{host}:{options.port}") as channel:
        try:
            answer = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=3)
        except grpc.RpcError as error:
            print(f"workouts-service on {host}:{options.port}: {error.code().name}", file=sys.stderr)
            return 1
    return 0 if answer.status == health_pb2.HealthCheckResponse.SERVING else 1


def serve(options):
    import grpc
    from grpc_health.v1 import health, health_pb2, health_pb2_grpc
    from intentmesh.v1 import extension_service_pb2, extension_service_pb2_grpc
    from intentmesh.workouts.v1 import app_pb2_grpc

    from . import interaction_model
    from . import manifest as manifests
    from .app_service import SERVICE_NAME as APP_SERVICE, UnicornFitApp
    from .catalog import Catalog
    from .extension import IntentsExtension
    from .handlers import handlers as make_handlers
    from .identity import KeySet, TokenVerifier
    from .store import Store

    folder = os.path.dirname(os.path.abspath(options.database))
    # Every user's workouts: this user's only (the folder 0700, the store 0600), as the Swift services.
    os.makedirs(folder, mode=0o700, exist_ok=True)
    store = Store(options.database)
    verifier = TokenVerifier(
        KeySet(options.jwks, refresh_seconds=options.jwks_refresh_seconds),
        issuer=options.jwt_issuer,
        audience=options.jwt_audience,
        leeway_seconds=options.jwt_leeway_seconds,
    )
    plists = manifests.Plists.load(options.manifest)
    handlers = make_handlers(Catalog.from_plist(plists.vocabulary))
    manifest = manifests.build(plists, handlers, [APP_SERVICE])
    interaction_model.add(options.manifest, manifest)

    limit = options.max_message_bytes
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=16, thread_name_prefix="unicornfit"),
        options=[("grpc.max_receive_message_length", limit), ("grpc.max_send_message_length", 64 << 20)],
    )
    extension_service_pb2_grpc.add_IntentsExtensionServicer_to_server(
        IntentsExtension(handlers, manifest, store, verifier), server
    )
    app_pb2_grpc.add_UnicornFitAppServicer_to_server(UnicornFitApp(store, verifier), server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    extension_name = extension_service_pb2.DESCRIPTOR.services_by_name["IntentsExtension"].full_name
    _serve_reflection(
        server, [extension_name, APP_SERVICE, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name]
    )
    address = f"{options.host}:{options.port}"
    if options.tls_cert:
        with open(options.tls_key, "rb") as key, open(options.tls_cert, "rb") as chain:
            pair = [(key.read(), chain.read())]
        client_ca = open(options.tls_client_ca, "rb").read() if options.tls_client_ca else None
        credentials = grpc.ssl_server_credentials(pair, root_certificates=client_ca, require_client_auth=bool(client_ca))
        port = server.add_secure_port(address, credentials)
    else:
        port = server.add_insecure_port(address)
        if options.host not in ("127.0.0.1", "::1", "localhost"):
            # As the Swift services say it.
            logging.getLogger("workouts-service").warning(
                "serving plaintext on %s, which other machines can reach: bearer tokens and every call and answer"
                " cross the network unencrypted; set --tls-cert and --tls-key, listen on 127.0.0.1, or put a TLS"
                " proxy in front", options.host)
    if port == 0:
        raise SystemExit(f"workouts-service: cannot listen on {address}")
    server.start()
    for name in ("", extension_name, APP_SERVICE):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    host = options.host if ":" not in options.host else f"[{options.host}]"
    print(f"workouts-service ({manifest.app_name}) serving on {host}:{port}", flush=True)

    stopping = threading.Event()

    def stop(number, frame):
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # Short waits: Python runs signal handlers only between bytecodes of this thread.
    while not stopping.wait(0.5):
        pass
    health_servicer.enter_graceful_shutdown()
    server.stop(grace=10).wait()
    store.close()
    print("workouts-service stopped", flush=True)


#: The reflection service grpcurl and the conformance kit ask first; grpcio-reflection serves v1alpha.
REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"


def reflection_servicer(services):
    """grpcio-reflection's servicer for `services` and both reflection services, each of which it
    can describe (file_containing_symbol), grpc.reflection.v1 included (see _load_reflection_v1)."""
    from grpc_reflection.v1alpha import reflection

    _load_reflection_v1()
    return reflection.ReflectionServicer(services + [REFLECTION_V1, reflection.SERVICE_NAME])


def _load_reflection_v1():
    """Adds grpc/reflection/v1/reflection.proto to the default descriptor pool, where the servicer
    finds what it describes: grpcio-reflection brings only its v1alpha file. The file's stub is
    generated from Protos/ with the rest (contract.ensure_generated), but cannot be imported by its
    name: `grpc` is grpcio's package, which has no `grpc.reflection`. So it is loaded from its path,
    under a name of ours; loading it twice adds nothing twice (the module is kept in sys.modules)."""
    import importlib.util

    from .contract import GENERATED

    name = f"{__package__}._generated_reflection_v1_pb2"
    if name in sys.modules:
        return sys.modules[name]
    location = os.path.join(GENERATED, "grpc", "reflection", "v1", "reflection_pb2.py")
    spec = importlib.util.spec_from_file_location(name, location)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    return module


def _serve_reflection(server, services):
    """Server reflection as grpc.reflection.v1 and v1alpha, by one servicer: grpcio-reflection
    implements v1alpha, whose messages are v1's on the wire."""
    import grpc
    from grpc_reflection.v1alpha import reflection, reflection_pb2

    servicer = reflection_servicer(services)
    reflection_handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    for name in (REFLECTION_V1, reflection.SERVICE_NAME):
        server.add_generic_rpc_handlers(
            [grpc.method_handlers_generic_handler(name, {"ServerReflectionInfo": reflection_handler})]
        )
