"""Python stubs of Protos/, generated into the work folder for this run.

Every module that talks gRPC (calls, workload, audit, stacks) imports the generated modules at its
top, so the entry point (main.py) generates them first and imports those modules afterwards."""
import os
import subprocess
import sys

from .config import REPO, SetupError


def generate(work):
    """Runs grpc_tools.protoc over Protos/ into WORK/stubs and puts that folder on sys.path."""
    stubs = os.path.join(work, "stubs")
    os.makedirs(stubs, exist_ok=True)
    protos = os.path.join(REPO, "Protos")
    files = []
    for root, _, names in os.walk(protos):
        for name in names:
            if name.endswith(".proto"):
                files.append(os.path.relpath(os.path.join(root, name), protos))
    done = subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", protos, f"--python_out={stubs}",
                           f"--grpc_python_out={stubs}"] + sorted(files), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        raise SetupError(f"protoc failed:\n{done.stdout}")
    sys.path.insert(0, stubs)
