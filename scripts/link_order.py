"""The measuring part of scripts/generate-link-order (which builds, installs valgrind and makes the token).

Runs each service under valgrind's callgrind, the way `intentmesh up` starts it and it is first
called: every domain service (binaries from --bin) starts on a fresh SQLite database, its metrics
listener on, and answers one health check, Resolve, Confirm and read-only Handle of its busiest
intents (the requests of scripts/bench_domains.py) after it has idled a few seconds; the gateway
starts in front of them (reading their reflection, watching their health) and relays the same calls.
Callgrind names every function that ran, in parts (`callgrind_control --dump` after start and
after the calls; what runs at shutdown is left out). The functions the binaries define are written
to --out, those of the start first, then those only the calls ran, each part grouped by the services
that ran them: the symbol ordering file the services are linked with (lld's --symbol-ordering-file,
Package.swift), so the code a service runs at start lies together in its file, and the code of its
first calls right after, instead of spread over 40 MiB of machine code, and the kernel maps less of
it. (The calls' code first, busiest first, was measured too: 3.5 MiB more at idle, no less CPU.)
The functions LLVM leaves without a symbol (`.L__unnamed_N`, merged value-witness thunks) cannot be
named there: the input sections without a symbol that hold an instruction callgrind counted (its
addresses, against lld's map of the binary's link, --maps) are written to --script as linker-script
rules, which place them before the rest of the code.

Valgrind cannot read the DWARF the toolchain writes, so each binary runs from a copy without its
debug sections (symbols kept).
"""
import bisect
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_domains  # noqa: E402
from bench_domains import DOMAINS, WORKOUTS, Bodies, Service  # noqa: E402
from elf_functions import function_addresses  # noqa: E402


GATEWAY = "gateway"
#: Each product's target: its link map is .build/link-maps/<target>.map (Package.swift, leanLinking).
TARGETS = {"messaging-service": "MessagingService", "payments-service": "PaymentsService",
           "ridebooking-service": "RideBookingService", "notes-service": "ListsAndNotesService",
           GATEWAY: "GatewayService"}
TRAINED_TARGETS = ["health", "Resolve", "Confirm", "Handle"]
#: A function name as callgrind writes it: "fn=(id) name", "cfn=(id) name"; a cycle's member has "'N".
CALLGRIND_NAME = re.compile(r"^c?fn=\(\d+\) (.*?)(?:'\d+)?$")


def wrapped(binary, work, name):
    """An executable that runs a debug-stripped copy of the binary under callgrind."""
    stripped = os.path.join(work, "stripped", name)
    os.makedirs(os.path.dirname(stripped), exist_ok=True)
    subprocess.run(["llvm-objcopy", "--strip-debug", binary, stripped], check=True)
    wrapper = os.path.join(work, "wrapped", name)
    os.makedirs(os.path.dirname(wrapper), exist_ok=True)
    with open(wrapper, "w") as out:
        out.write("#!/bin/sh\n")
        out.write(f"exec valgrind --quiet --tool=callgrind --demangle=no --dump-instr=yes --compress-pos=no "
                  f"--callgrind-out-file={work}/{name}.callgrind {stripped} \"$@\"\n")
    os.chmod(wrapper, 0o755)
    return wrapper


def dump(process, why):
    """Has callgrind write what ran since its last part to a new part (.1, .2, …)."""
    subprocess.run(["callgrind_control", f"--dump={why}", str(process.pid)], check=True, capture_output=True)


def called_functions(path):
    names = set()
    with open(path, errors="replace") as profile:
        for line in profile:
            found = CALLGRIND_NAME.match(line.rstrip("\n"))
            if found:
                names.add(found.group(1))
    return names


#: Where valgrind loads a position-independent executable (amd64 Linux): code it cannot place in an
#: object ("???") is named by its address in memory, not in the file.
VALGRIND_PIE_BASE = 0x108000


def executed_addresses(path, binary):
    """The addresses of the binary's instructions a callgrind profile (--dump-instr=yes
    --compress-pos=no) counted, and those of code callgrind could not place ("???") less valgrind's
    load base: valgrind knows an object's code by its .text, so what a link with the current script
    put in .text.unnamed shows there (the caller keeps those that land in .text.unnamed)."""
    objects, owner, addresses, unplaced = {}, None, set(), set()
    with open(path, errors="replace") as profile:
        for line in profile:
            if line.startswith(("ob=", "cob=")):  # an object is named where it first appears, called or not
                key, _, named = line.split("=", 1)[1].rstrip("\n").partition(" ")
                if named:
                    objects[key] = named
                if line.startswith("ob="):
                    owner = objects.get(key, key)
            elif line.startswith("0x") and owner in (binary, "???"):
                address = int(line.split(None, 1)[0], 16)
                if owner == binary:
                    addresses.add(address)
                elif address >= VALGRIND_PIE_BASE:
                    unplaced.add(address - VALGRIND_PIE_BASE)
    return addresses, unplaced


#: An input section or a symbol in lld's map: VMA, LMA, size, alignment, then the name indented.
MAP_LINE = re.compile(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ (\s*)(\S.*)$")


def unnamed_sections(map_path):
    """The input sections of the map's .text — and of .text.unnamed, where a link with the current
    script put those that ran before — that define no symbol: (start, end, where), where is lld's
    "file:(section)" or "archive(member):(section)"."""
    sections, output = [], None
    with open(map_path) as linked:
        for line in linked:
            found = MAP_LINE.match(line.rstrip("\n"))
            if not found:
                continue
            start, size, depth, name = int(found.group(1), 16), int(found.group(2), 16), len(found.group(3)), found.group(4)
            if depth == 0:
                output = name if name in (".text", ".text.unnamed") else None
            elif output and depth == 8:
                sections.append([start, start + size, name, False, output])
            elif output and depth == 16 and sections:
                sections[-1][3] = True
    return [(start, end, where, output) for start, end, where, named, output in sections if not named and end > start]


def script_rule(where):
    """A linker-script input rule for the section lld's map names: `*/Module.build/File.o(section)`,
    `*/libX.a:Member.o(section)`; a character lld's script syntax would split on becomes `?`."""
    file, _, section = where.rpartition(":(")
    section = section.rstrip(")")
    archive = re.match(r"^(.*)\((.*)\)$", file)
    if archive:
        pattern = f"*/{os.path.basename(archive.group(1))}:{archive.group(2)}"
    else:
        pattern = "*/" + "/".join(file.split("/")[-2:])
    return re.sub(r"[^A-Za-z0-9_./:*-]", "?", pattern) + f"({section})"


def train(bodies):
    for target in TRAINED_TARGETS:
        if target in bodies.targets:
            bodies.body(target)  # a real call, its answer checked


def grouped(functions):
    """The functions run by the most services first, and those of one set of services together, so that
    each service's own functions lie close to each other: a service maps fewer pages of the others'."""
    return sorted(functions, key=lambda name: (-len(functions[name]), sorted(functions[name]), name))


def main():
    parser = bench_domains.service_arguments()
    parser.add_argument("--out", required=True)
    parser.add_argument("--script", required=True, help="the linker script placing the unnamed functions that ran")
    parser.add_argument("--maps", required=True, help="the folder of the binaries' lld maps (<target>.map)")
    parser.add_argument("--idle-seconds", type=float, default=3)
    args = parser.parse_args()

    domains = [(name, binary, busiest, read_only) for name, binary, busiest, read_only in DOMAINS if binary != WORKOUTS]
    binaries = {binary: os.path.join(args.bin, binary) for _, binary, _, _ in domains}
    binaries[GATEWAY] = os.path.join(args.bin, GATEWAY)
    wrappers = {name: wrapped(path, args.work, name) for name, path in binaries.items()}

    # Started as `intentmesh up` starts them: metrics listeners on (a free port each), the gateway in
    # front of the domains (it reads their reflection and watches their health).
    services = []
    try:
        for name, binary, busiest, read_only in domains:
            database = os.path.join(args.work, f"{name}.sqlite")
            service = Service(wrappers[binary], args.work, name, args.jwks, ["--database", database])
            services.append(service)
            time.sleep(args.idle_seconds)
            dump(service.process, "started")
            train(Bodies(service, args.token, busiest, read_only))
            print(f"called {binary}", file=sys.stderr)
        domains_behind = [argument for service in services for argument in ("--domain", f"127.0.0.1:{service.port}")]
        gateway = Service(wrappers[GATEWAY], args.work, GATEWAY, args.jwks, domains_behind)
        try:
            time.sleep(args.idle_seconds)
            dump(gateway.process, "started")
            for (name, _, busiest, read_only), service in zip(domains, services):
                relayed = Bodies(service, args.token, busiest, read_only)
                relayed.service = gateway  # the same requests, through the gateway
                relayed.stub = bench_domains.ext_grpc.IntentsExtensionStub(gateway.channel)
                train(relayed)
            time.sleep(args.idle_seconds)
            for service in services + [gateway]:
                dump(service.process, "called")
            print("called the gateway", file=sys.stderr)
        finally:
            gateway.stop()
    finally:
        for service in services:
            service.stop()

    at_start, on_calls = {}, {}  # function: the services that ran it
    for name, path in binaries.items():
        defined = set(function_addresses(path))
        start = called_functions(os.path.join(args.work, f"{name}.callgrind.1")) & defined
        calls = called_functions(os.path.join(args.work, f"{name}.callgrind.2")) & defined - start
        print(f"{name}: {len(start)} of its functions ran at start, {len(calls)} more on its first calls",
              file=sys.stderr)
        for function in start:
            at_start.setdefault(function, set()).add(name)
        for function in calls:
            on_calls.setdefault(function, set()).add(name)
    for function in at_start:
        on_calls.pop(function, None)
    rules = set()
    for name in binaries:
        stripped = os.path.join(args.work, "stripped", name)
        ran, unplaced = set(), set()
        for part in (".1", ".2"):
            own, elsewhere = executed_addresses(os.path.join(args.work, f"{name}.callgrind{part}"), stripped)
            ran |= own
            unplaced |= elsewhere
        unnamed = unnamed_sections(os.path.join(args.maps, f"{TARGETS[name]}.map"))
        starts = [start for start, _, _, _ in unnamed]
        hit = set()
        for address, placed in [(address, True) for address in ran] + [(address, False) for address in unplaced]:
            index = bisect.bisect_right(starts, address) - 1
            if index >= 0 and address < unnamed[index][1] and (placed or unnamed[index][3] == ".text.unnamed"):
                hit.add(unnamed[index][2])
        print(f"{name}: {len(hit)} functions without a symbol ran", file=sys.stderr)
        rules |= {script_rule(where) for where in hit}
    with open(args.script, "w") as out:
        out.write("/* The functions without a symbol (LLVM's .L__unnamed_N) the services run at start and on their\n")
        out.write("   first calls, placed before the rest of the code by section. Made by scripts/generate-link-order;\n")
        out.write("   a rule no input matches places nothing. */\n")
        out.write("SECTIONS {\n  .text.unnamed : {\n")
        for rule in sorted(rules):
            out.write(f"    {rule}\n")
        out.write("  }\n} INSERT BEFORE .text;\n")
    with open(args.out, "w") as out:
        out.write("# The functions the services run at start, then those their first calls run, laid out in this\n")
        out.write("# order at link time (lld --symbol-ordering-file; Package.swift). Made by scripts/generate-link-order;\n")
        out.write("# a name no longer defined is skipped, so a stale list only costs memory, never correctness.\n")
        for name in grouped(at_start) + grouped(on_calls):
            out.write(name + "\n")
    print(f"{len(at_start)} + {len(on_calls)} functions written to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
