"""The measuring part of scripts/generate-link-order (which builds, installs valgrind and makes the token).

Runs each service under valgrind's callgrind, the way it starts and is first called: every domain
service (binaries from --bin) starts on a fresh SQLite database and answers one health check,
Resolve, Confirm and read-only Handle of its busiest intents (the requests of scripts/bench_domains.py)
after it has idled a few seconds; the gateway starts in front of them and relays the same calls.
Callgrind names every function that ran and the instructions it ran, in parts (`callgrind_control
--dump` after start and after the calls). The functions the binaries define are written to --out:
those the first calls ran (at start too or not), then those that ran only at start; each part
grouped by the services that ran them, the busiest first in a group. That is the symbol ordering
file the services are linked with (lld's --symbol-ordering-file, Package.swift): the code a service
runs on a call lies together in its file, the busiest on the fewest pages, and its start-up code
right after, instead of spread over 40 MiB of machine code, so the kernel maps less of it.

Valgrind cannot read the DWARF the toolchain writes, so each binary runs from a copy without its
debug sections (symbols kept).
"""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_domains  # noqa: E402
from bench_domains import DOMAINS, WORKOUTS, Bodies, Service  # noqa: E402


GATEWAY = "gateway"
TRAINED_TARGETS = ["health", "Resolve", "Confirm", "Handle"]
#: A function name as callgrind writes it: "fn=(id) name", "cfn=(id) name"; a cycle's member has "'N".
CALLGRIND_NAME = re.compile(r"^c?fn=\((\d+)\) (.*?)(?:'\d+)?$")


def wrapped(binary, work, name):
    """An executable that runs a debug-stripped copy of the binary under callgrind."""
    stripped = os.path.join(work, "stripped", name)
    os.makedirs(os.path.dirname(stripped), exist_ok=True)
    subprocess.run(["llvm-objcopy", "--strip-debug", binary, stripped], check=True)
    wrapper = os.path.join(work, "wrapped", name)
    os.makedirs(os.path.dirname(wrapper), exist_ok=True)
    with open(wrapper, "w") as out:
        out.write("#!/bin/sh\n")
        out.write(f"exec valgrind --quiet --tool=callgrind --demangle=no --callgrind-out-file={work}/{name}.callgrind "
                  f"{stripped} \"$@\"\n")
    os.chmod(wrapper, 0o755)
    return wrapper


def dump(process, why):
    """Has callgrind write what ran since its last part to a new part (.1, .2, …)."""
    subprocess.run(["callgrind_control", f"--dump={why}", str(process.pid)], check=True, capture_output=True)


def instructions_by_function(path):
    """Each function named in a callgrind profile, with the instructions it ran itself (a call's line,
    which carries the callee's inclusive cost, is not counted); a function only seen called has 0."""
    names, costs, current, call_line_next = {}, {}, None, False
    with open(path, errors="replace") as profile:
        for line in profile:
            found = CALLGRIND_NAME.match(line.rstrip("\n"))
            if found or line.startswith(("fn=", "cfn=")):
                key = line.split("=", 1)[1].split(")", 1)[0]
                if found:
                    names[key] = found.group(2)
                    costs.setdefault(found.group(2), 0)
                if line.startswith("fn="):
                    current = names.get(key)
            elif line.startswith("calls="):
                call_line_next = True
            elif line[:1] in "0123456789+-*":
                if call_line_next:
                    call_line_next = False
                elif current is not None:
                    fields = line.split()
                    costs[current] += int(fields[1]) if len(fields) > 1 else 0
    return costs


def defined_functions(binary):
    listed = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    return {parts[2] for parts in (line.split() for line in listed.splitlines()) if len(parts) == 3 and parts[1] in "tTwW"}


def train(bodies):
    for target in TRAINED_TARGETS:
        if target in bodies.targets:
            bodies.body(target)  # a real call, its answer checked


def grouped(functions):
    """The functions run by the most services first, and those of one set of services together, so that
    each service's own functions lie close to each other (a service maps fewer pages of the others');
    in a group the busiest first, so that what a call runs most shares the fewest cache lines and pages."""
    return sorted(functions, key=lambda name: (-len(functions[name]), sorted(functions[name]),
                                               -sum(functions[name].values()), name))


def main():
    parser = bench_domains.service_arguments()
    parser.add_argument("--out", required=True)
    parser.add_argument("--idle-seconds", type=float, default=3)
    args = parser.parse_args()

    domains = [(name, binary, busiest, read_only) for name, binary, busiest, read_only in DOMAINS if binary != WORKOUTS]
    binaries = {binary: os.path.join(args.bin, binary) for _, binary, _, _ in domains}
    binaries[GATEWAY] = os.path.join(args.bin, GATEWAY)
    wrappers = {name: wrapped(path, args.work, name) for name, path in binaries.items()}

    services = []
    try:
        for name, binary, busiest, read_only in domains:
            service = Service(wrappers[binary], args.work, name, args.jwks)
            services.append(service)
            time.sleep(args.idle_seconds)
            dump(service.process, "started")
            train(Bodies(service, args.token, busiest, read_only))
            dump(service.process, "called")
            print(f"trained {binary}", file=sys.stderr)
        domains_behind = [argument for service in services for argument in ("--domain", f"127.0.0.1:{service.port}")]
        gateway = Service(wrappers[GATEWAY], args.work, GATEWAY, args.jwks, ["--metrics-port=-1"] + domains_behind)
        try:
            time.sleep(args.idle_seconds)
            dump(gateway.process, "started")
            for (name, _, busiest, read_only), service in zip(domains, services):
                relayed = Bodies(service, args.token, busiest, read_only)
                relayed.service = gateway  # the same requests, through the gateway
                relayed.stub = bench_domains.ext_grpc.IntentsExtensionStub(gateway.channel)
                train(relayed)
            dump(gateway.process, "called")
            print("trained gateway", file=sys.stderr)
        finally:
            gateway.stop()
    finally:
        for service in services:
            service.stop()

    on_calls, start_only = {}, {}  # function: {service: instructions it ran}
    for name, path in binaries.items():
        defined = defined_functions(path)
        start = instructions_by_function(os.path.join(args.work, f"{name}.callgrind.1"))
        calls = instructions_by_function(os.path.join(args.work, f"{name}.callgrind.2"))
        ran_on_calls = calls.keys() & defined
        ran_at_start_only = start.keys() & defined - ran_on_calls
        print(f"{name}: {len(ran_on_calls)} of its functions ran on its first calls, {len(ran_at_start_only)} more "
              "at start", file=sys.stderr)
        for function in ran_on_calls:
            on_calls.setdefault(function, {})[name] = calls[function]
        for function in ran_at_start_only:
            start_only.setdefault(function, {})[name] = start[function]
    for function in on_calls:
        start_only.pop(function, None)
    with open(args.out, "w") as out:
        out.write("# The functions the services run on their first calls, then those they run only at start, laid\n")
        out.write("# out in this order at link time (lld --symbol-ordering-file; Package.swift). Made by\n")
        out.write("# scripts/generate-link-order; a name no longer defined is skipped, so a stale list only costs\n")
        out.write("# memory, never correctness.\n")
        for name in grouped(on_calls) + grouped(start_only):
            out.write(name + "\n")
    print(f"{len(on_calls)} + {len(start_only)} functions written to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
