#!/usr/bin/env bash
# Generates Python stubs for every contract in Protos/ into clients/python/generated (not committed).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
protos=$here/../../Protos
python3 -c 'import grpc_tools' 2>/dev/null || python3 -m pip install --quiet grpcio grpcio-tools
rm -rf "$here/generated" && mkdir -p "$here/generated"
cd "$protos"
python3 -m grpc_tools.protoc -I . --python_out="$here/generated" --grpc_python_out="$here/generated" \
  $(find . -name '*.proto' | sed 's|^\./||' | sort)
echo "stubs in $here/generated"
