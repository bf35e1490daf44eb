"""The domain under test, from the command line:

    python3 -m pytest conformance --target 127.0.0.1:50065 --profile Services/Workouts/conformance.json \
        --identity data/identity

`--target` is a domain service (not the gateway); `--profile` is the domain's certification profile
(sample intents the kit may resolve and handle, as its user); tokens are signed with `--identity`
(the folder `intentmesh up` keeps) or printed by `--token-command 'tool --user {user}'`.
`scripts/conformance` wraps this."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
GENERATED = os.path.join(REPO, "clients", "python", "generated")


def pytest_addoption(parser):
    group = parser.getgroup("conformance")
    group.addoption("--target", help="HOST:PORT of the domain service under test")
    group.addoption("--profile", help="the domain's conformance profile (JSON)")
    group.addoption("--identity", help="folder with signing-key.pem and jwks.json (intentmesh up's data/identity)")
    group.addoption("--token-command", help="prints a bearer token for {user}, e.g. 'intentmesh token --user {user}'")
    group.addoption("--jwt-issuer", default="intentmesh")
    group.addoption("--jwt-audience", default="intentmesh")
    group.addoption(
        "--rotate-keys", action="store_true",
        help="the JWKS file in --identity may be rewritten for a while (a private stack): tests that take a key out")
    group.addoption("--bin", help="the folder of the built services, for a profile's `launch` command ({bin})")


def pytest_configure(config):
    if getattr(config, "workerinput", None) is None and not os.path.exists(os.path.join(GENERATED, "intentmesh")):
        done = subprocess.run([os.path.join(REPO, "clients", "python", "generate.sh")], capture_output=True, text=True)
        if done.returncode != 0:
            raise pytest.UsageError(f"generating the stubs failed:\n{done.stdout}{done.stderr}")


sys.path.insert(0, GENERATED)
sys.path.insert(0, HERE)


@pytest.fixture(scope="session")
def domain(request):
    import grpc
    from intentmesh.v1 import extension_service_pb2, extension_service_pb2_grpc

    from kit import Domain, Reflection, Tokens

    option = request.config.getoption
    target = option("--target")
    if not target:
        pytest.exit("pass --target HOST:PORT (a domain service)", returncode=4)
    profile = {}
    if option("--profile"):
        with open(option("--profile"), encoding="utf-8") as file:
            profile = json.load(file)
    channel = grpc.insecure_channel(target)
    try:
        grpc.channel_ready_future(channel).result(timeout=15)
    except grpc.FutureTimeoutError:
        pytest.exit(f"nothing answers at {target}", returncode=4)
    stub = extension_service_pb2_grpc.IntentsExtensionStub(channel)
    manifest = stub.Describe(extension_service_pb2.DescribeRequest(), timeout=10).manifest
    tokens = Tokens(option("--identity"), option("--token-command"), option("--jwt-issuer"), option("--jwt-audience"))
    made = Domain(target, channel, manifest, Reflection(channel), profile, tokens)
    made.rotate_keys = option("--rotate-keys")
    made.bin = option("--bin")
    yield made
    channel.close()


def pytest_report_header(config):
    return f"conformance target: {config.getoption('--target')}, profile: {config.getoption('--profile')}"
