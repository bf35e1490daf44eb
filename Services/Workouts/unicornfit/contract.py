"""The generated Python of the contract: made from `Protos/` with grpcio-tools when missing or when
a .proto file changed, into `generated/` beside this package (not committed), atomically, so that
replicas starting at once do not see each other's half-written files."""
import hashlib
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SERVICE = os.path.dirname(HERE)
GENERATED = os.path.join(SERVICE, "generated")


def protos_folder():
    """`Protos/` of the checkout (two levels up), or $INTENTMESH_PROTOS (a container image)."""
    configured = os.environ.get("INTENTMESH_PROTOS", "").strip()
    return configured or os.path.join(os.path.dirname(os.path.dirname(SERVICE)), "Protos")


def _proto_files(protos):
    found = []
    for folder, _, files in os.walk(protos):
        if os.path.relpath(folder, protos).split(os.sep)[0] == "baseline":
            continue
        found += [os.path.relpath(os.path.join(folder, name), protos) for name in files if name.endswith(".proto")]
    return sorted(found)


def _stamp(protos, files):
    digest = hashlib.sha256()
    for name in files:
        digest.update(name.encode())
        with open(os.path.join(protos, name), "rb") as source:
            digest.update(hashlib.sha256(source.read()).digest())
    return digest.hexdigest()


def ensure_generated():
    """Puts the generated stubs on sys.path, generating them first when they are stale."""
    protos = protos_folder()
    files = _proto_files(protos)
    if not files:
        raise SystemExit(f"no .proto files in {protos} (set INTENTMESH_PROTOS)")
    stamp = _stamp(protos, files)
    stamp_file = os.path.join(GENERATED, "STAMP")
    current = open(stamp_file).read().strip() if os.path.exists(stamp_file) else ""
    if current != stamp:
        from grpc_tools import protoc  # only needed to generate

        staging = tempfile.mkdtemp(prefix=".generated-", dir=SERVICE)
        include = os.path.join(os.path.dirname(protoc.__file__), "_proto")
        status = protoc.main(
            ["protoc", f"-I{protos}", f"-I{include}", f"--python_out={staging}", f"--grpc_python_out={staging}"] + files
        )
        if status != 0:
            shutil.rmtree(staging, ignore_errors=True)
            raise SystemExit(f"generating the stubs from {protos} failed (protoc status {status})")
        with open(os.path.join(staging, "STAMP"), "w") as out:
            out.write(stamp + "\n")
        retired = None
        if os.path.exists(GENERATED):
            retired = tempfile.mkdtemp(prefix=".retired-", dir=SERVICE)
            try:
                os.replace(GENERATED, os.path.join(retired, "generated"))
            except OSError:
                pass  # another replica moved it first
        try:
            os.replace(staging, GENERATED)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)  # another replica put an equal copy in place
        if retired:
            shutil.rmtree(retired, ignore_errors=True)
    if GENERATED not in sys.path:
        sys.path.insert(0, GENERATED)
