"""The measuring part of scripts/bench-domains (which installs, builds and makes the token).

Starts each domain service (binaries from --bin) on its own fresh SQLite database, checks that
every request it will send gets a real gRPC success (h2load counts only HTTP 200), then, in
alternating rounds, drives each with h2load at each load (1 × 1 and 16 × 10): the service's
`grpc.health.v1.Health/Check` (same server, same transport, no domain work), and `Resolve`,
`Confirm` and a read-only `Handle` of the domain's busiest intents. For each run: req/s, p50, p99,
the CPU time the service spent per call (utime + stime from /proc over the measured part), and the
ratio to the health check of the same round and load. Each round also measures the bare SQLite
commit rate on the same disk (one row per transaction, WAL, synchronous=FULL) and durable payment
Handles (clients/python/bench_payments.py: Confirm + Handle of a fresh INSendPaymentIntent each, at
16 concurrent calls, on a fresh payments-service; made by clients/c's intentmesh-pay-load when it is
built), and their ratio. The services' idle RSS is read
before the first load.

Prints a line per run as it goes, then a table of medians with the spread (min–max) over rounds.
"""
import argparse
import os
import re
import sqlite3
import statistics
import struct
import subprocess
import sys
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "clients", "python", "generated"))
import grpc  # noqa: E402
from intentmesh.messaging.v1 import messaging_pb2 as chat  # noqa: E402
from intentmesh.notebook.v1 import notebook_pb2 as notes  # noqa: E402
from intentmesh.payments.v1 import payments_pb2 as pay  # noqa: E402
from intentmesh.ridebooking.v1 import ridebooking_pb2 as rides  # noqa: E402
from intentmesh.v1 import extension_service_pb2 as ext  # noqa: E402
from intentmesh.v1 import extension_service_pb2_grpc as ext_grpc  # noqa: E402
from intentmesh.v1 import intent_pb2, types_pb2 as types  # noqa: E402
from intentmesh.workouts.v1 import workouts_pb2 as fit  # noqa: E402

HEALTH = "/grpc.health.v1.Health/Check"
METHOD = "/intentmesh.v1.IntentsExtension/"


def intent(intent_class, message):
    made = intent_pb2.Intent(intent_class=intent_class, identifier=f"bench-{uuid.uuid4()}")
    made.payload.Pack(message)
    return made


def send_message():
    return intent("INSendMessageIntent", chat.SendMessageIntent(
        recipients=[types.Person(display_name="Celestra")], content="Rainbow polish at noon"))


def search_messages():
    return intent("INSearchForMessagesIntent", chat.SearchForMessagesIntent(
        senders=[types.Person(display_name="Celestra")]))


def send_payment():
    return intent("INSendPaymentIntent", pay.SendPaymentIntent(
        payee=types.Person(display_name="Buttercup"), currency_amount=types.CurrencyAmount(currency_code="USD", units=3)))


def search_accounts():
    return intent("INSearchForAccountsIntent", pay.SearchForAccountsIntent(
        account_nickname=types.SpeakableString(spoken_phrase="Rainbow Checking")))


def request_ride():
    return intent("INRequestRideIntent", rides.RequestRideIntent(
        pickup_location=types.Placemark(name="300 Post Street"), drop_off_location=types.Placemark(name="the forest"),
        ride_option_name=types.SpeakableString(spoken_phrase="Pegasus")))


def list_ride_options():
    return intent("INListRideOptionsIntent", rides.ListRideOptionsIntent(
        pickup_location=types.Placemark(name="300 Post Street"), drop_off_location=types.Placemark(name="the forest")))


def create_note():
    return intent("INCreateNoteIntent", notes.CreateNoteIntent(
        title=types.SpeakableString(spoken_phrase="Unicorn ideas"), content=notes.NoteContent(text="Rainbow bridge")))


def search_notebook():
    return intent("INSearchForNotebookItemsIntent", notes.SearchForNotebookItemsIntent(
        title=types.SpeakableString(spoken_phrase="Unicorn ideas")))


def start_workout():
    return intent("INStartWorkoutIntent", fit.StartWorkoutIntent(
        workout_name=types.SpeakableString(spoken_phrase="colorlishus")))


#: UnicornFit, the domain written in Python: a script of this checkout, whatever --bin says.
WORKOUTS = os.path.join(REPO, "Services", "Workouts", "workouts-service")

#: Each domain's service and the intents it is driven with: its busiest intent (Resolve, Confirm)
#: and a read-only intent for Handle (h2load sends one body again and again: a Handle with effects
#: would be a replay after the first; durable Handles are measured by bench_payments.py). UnicornFit
#: has no read-only intent: no Handle for it.
DOMAINS = [
    ("messaging", "messaging-service", send_message, search_messages),
    ("payments", "payments-service", send_payment, search_accounts),
    ("ridebooking", "ridebooking-service", request_ride, list_ride_options),
    ("notes", "notes-service", create_note, search_notebook),
    ("workouts", WORKOUTS, start_workout, None),
]
TARGETS = ["health", "Resolve", "Confirm", "Handle"]


def framed(message_bytes):
    return b"\x00" + struct.pack(">I", len(message_bytes)) + message_bytes


def fresh_postgres_database(server, name):
    """The URL of a new database on the PostgreSQL server at `server` (a URL of its `postgres` database)."""
    database = re.sub(r"[^a-z0-9_]", "_", f"{name}_{uuid.uuid4().hex[:6]}".lower())
    subprocess.run(["psql", "-q", server, "-c", f"CREATE DATABASE {database}"], check=True, stdout=subprocess.DEVNULL)
    return server.replace("/postgres?", f"/{database}?", 1)


def pgbench_tps(server, seconds=10):
    """pgbench's TPC-B-like rate on `server` (scale 1, made on first use), 16 clients on 2 threads."""
    url = server.replace("/postgres?", "/pgbench_tpcb?", 1)
    exists = subprocess.run(["psql", "-tAq", server, "-c", "SELECT 1 FROM pg_database WHERE datname = 'pgbench_tpcb'"],
                            check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    if not exists:
        subprocess.run(["psql", "-q", server, "-c", "CREATE DATABASE pgbench_tpcb"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["pgbench", "-i", "-s", "1", "-q", url], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    done = subprocess.run(["pgbench", "-c", "16", "-j", "2", "-T", str(seconds), url], check=True,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return float(re.search(r"^tps = ([0-9.]+) \(without initial connection time\)", done.stdout, re.MULTILINE).group(1))


class Service:
    """A service on a free port of loopback: a domain on a fresh SQLite database, its metrics listener
    off, unless other arguments are given (scripts/link_order.py: listeners on, the gateway's)."""

    def __init__(self, binary, work, name, jwks, arguments=None, postgres=None):
        self.name = name
        self.log_path = os.path.join(work, f"{name}.log")
        if arguments is None:
            database = fresh_postgres_database(postgres, name) if postgres else os.path.join(
                work, f"{name}-{uuid.uuid4().hex[:6]}.sqlite")
            # The Swift services' metrics listener is turned off; the Python domain has none.
            arguments = ["--database", database] + ([] if binary == WORKOUTS else ["--metrics-port=-1"])
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(
                [binary, "--port", "0", "--log-level", "warning", "--jwks", jwks] + arguments,
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while True:
            found = re.search(r" serving on 127\.0\.0\.1:(\d+)", open(self.log_path).read())
            if found:
                self.port = int(found.group(1))
                break
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{name} did not start:\n{open(self.log_path).read()}")
            time.sleep(0.05)
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")

    @property
    def pid(self):
        return self.process.pid

    def cpu_ticks(self):
        fields = open(f"/proc/{self.pid}/stat").read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    def rss_mib(self):
        for line in open(f"/proc/{self.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def stop(self):
        self.channel.close()
        self.process.terminate()
        self.process.wait(30)


class Bodies:
    """The framed request of each target of one domain, each checked to get a real success. A
    Handle that needs the user's yes carries a confirmation token, made again for each run (they
    last five minutes)."""

    def __init__(self, service, token, busiest, read_only):
        self.service = service
        self.metadata = [("authorization", f"Bearer {token}")]
        self.stub = ext_grpc.IntentsExtensionStub(service.channel)
        self.busiest = busiest()
        self.read_only = read_only() if read_only else None
        self.targets = [t for t in TARGETS if t != "Handle" or self.read_only is not None]
        self.context = intent_pb2.RequestContext(user_id="diana", time_zone="Europe/Zurich", locale="en-US")

    def body(self, target):
        if target == "health":
            check = self.service.channel.unary_unary(HEALTH, request_serializer=None, response_deserializer=None)
            assert check(b"", timeout=5, metadata=self.metadata) == b"\x08\x01", "health: not SERVING"
            return framed(b"")
        if target == "Resolve":
            request = ext.ResolveRequest(context=self.context, intent=self.busiest)
            answer = self.stub.Resolve(request, timeout=5, metadata=self.metadata)
            assert answer.complete, f"{self.service.name} Resolve not complete: {answer}"
        elif target == "Confirm":
            request = ext.ConfirmRequest(context=self.context, intent=self.busiest)
            answer = self.stub.Confirm(request, timeout=5, metadata=self.metadata)
            assert answer.response.code_name == "ready", f"{self.service.name} Confirm: {answer.response}"
        else:
            confirmed = self.stub.Confirm(ext.ConfirmRequest(context=self.context, intent=self.read_only),
                                          timeout=5, metadata=self.metadata)
            request = ext.HandleRequest(context=self.context, intent=self.read_only,
                                        confirmation_token=confirmed.confirmation_token)
            answer = self.stub.Handle(request, timeout=5, metadata=self.metadata)
            assert answer.response.code_name == "success", f"{self.service.name} Handle: {answer.response}"
        return framed(request.SerializeToString())


def h2load(port, path, body_file, token, connections, streams, seconds, warm_up, log_file):
    return subprocess.Popen(
        ["h2load", "-D", str(seconds), f"--warm-up-time={warm_up}", "-c", str(connections), "-m", str(streams),
         "-t", "1", "-d", body_file, "-H", "content-type: application/grpc", "-H", "te: trailers",
         "-H", "grpc-timeout: 5S", "-H", f"authorization: Bearer {token}", f"--log-file={log_file}",
         f"http://127.0.0.1:{port}{path}"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def run(service, bodies, target, load, seconds, warm_up, work, token):
    connections, streams = load
    body_file = os.path.join(work, f"{service.name}-{target}.bin")
    with open(body_file, "wb") as out:
        out.write(bodies.body(target))
    log_file = os.path.join(work, f"{service.name}-{target}-{connections}x{streams}.log")
    path = HEALTH if target == "health" else METHOD + target
    load_process = h2load(service.port, path, body_file, token, connections, streams, seconds, warm_up, log_file)
    time.sleep(warm_up)
    before, started = service.cpu_ticks(), time.monotonic()
    output, _ = load_process.communicate()
    after, elapsed = service.cpu_ticks(), time.monotonic() - started
    result = h2load_outcome(output, log_file, f"{service.name} {target}")
    calls = result["rate"] * min(elapsed, seconds)
    result["cpu"] = (after - before) / os.sysconf("SC_CLK_TCK") * 1e6 / calls if calls else 0.0
    return result


def h2load_outcome(output, log_file, what):
    """The req/s h2load printed, and from its log file the p50 and p99 (ms) and the answers that were
    not HTTP 200."""
    found = re.search(r"finished in [^,]+, ([0-9.]+) req/s", output)
    if not found:
        raise SystemExit(f"h2load against {what} printed no rate:\n{output}")
    latencies, bad = [], 0
    for line in open(log_file):
        parts = line.split()
        if len(parts) >= 3:
            bad += parts[1] != "200"
            latencies.append(int(parts[2]))
    latencies.sort()

    def quantile(q):
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] / 1000 if latencies else 0.0

    return {"rate": float(found.group(1)), "p50": quantile(0.5), "p99": quantile(0.99), "bad": bad}


def bare_commits(work, seconds=2.0):
    """Commits per second of one-row transactions on a fresh SQLite file in WAL, synchronous=FULL."""
    path = os.path.join(work, f"bare-{uuid.uuid4().hex[:6]}.sqlite")
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute("CREATE TABLE t (n INTEGER NOT NULL, payload TEXT NOT NULL)")
    count, started = 0, time.monotonic()
    while time.monotonic() - started < seconds:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("INSERT INTO t (n, payload) VALUES (?, ?)", (count, "x" * 200))
        connection.execute("COMMIT")
        count += 1
    rate = count / (time.monotonic() - started)
    connection.close()
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    return rate


#: The C load for durable payments (scripts/build-c-clients), when built: it costs the machine a
#: small part of the Python client's CPU per payment.
C_LOAD = os.path.join(REPO, "clients", "c", "build", "intentmesh-pay-load")


def durable_payments(binary, work, jwks, token, payments, concurrency, postgres=None):
    service = Service(binary, work, "payments-durable", jwks, postgres=postgres)
    load = ["--c-load", C_LOAD] if os.path.exists(C_LOAD) else []
    try:
        done = subprocess.run(
            [sys.executable, os.path.join(REPO, "clients", "python", "bench_payments.py"), "--target",
             f"127.0.0.1:{service.port}", "--payments", str(payments), "--concurrency", str(concurrency), "--round", "0"]
            + load,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(os.environ, INTENTMESH_TOKEN=token))
        found = re.search(r"^result .*rate=([0-9.]+)", done.stdout, re.MULTILINE)
        if done.returncode != 0 or not found:
            raise SystemExit(f"bench_payments.py failed:\n{done.stdout}")
        return float(found.group(1))
    finally:
        service.stop()


def spread(values, digits=0):
    """The median, and the range over rounds when there are several."""
    median = f"{statistics.median(values):.{digits}f}"
    return f"{median} ({min(values):.{digits}f}–{max(values):.{digits}f})" if len(values) > 1 else median


def service_arguments():
    """The arguments every script that starts the services with scripts/bench-domains' set-up takes."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, help="the folder of the service binaries")
    parser.add_argument("--work", required=True, help="a folder for databases, logs and profiles")
    parser.add_argument("--token", required=True, help="Diana's bearer token")
    parser.add_argument("--jwks", required=True, help="the JWKS the token is checked against")
    return parser


def main():
    parser = service_arguments()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--warm-up", type=int, default=1)
    parser.add_argument("--payments", type=int, default=1200)
    parser.add_argument("--domains", default=",".join(d[0] for d in DOMAINS))
    parser.add_argument("--baseline", default="", help="a folder of other builds of the services, run beside")
    parser.add_argument("--postgres", default="",
                        help="a PostgreSQL server's URL (its postgres database): every Swift domain also on a fresh "
                             "database there, beside SQLite, and pgbench's rate on it in every round")
    args = parser.parse_args()
    asked = args.domains.split(",")
    unknown = [name for name in asked if name not in {d[0] for d in DOMAINS}]
    if unknown:
        raise SystemExit(f"unknown domain {', '.join(unknown)}: the domains are {', '.join(d[0] for d in DOMAINS)}")
    chosen = [d for d in DOMAINS if d[0] in asked]
    loads = [(1, 1), (16, 10)]
    builds = [("", args.bin)] + ([("@baseline", args.baseline)] if args.baseline else [])

    stores = [("", None)] + ([("@postgres", args.postgres)] if args.postgres else [])
    services, bodies = {}, {}
    for domain, binary, busiest, read_only in chosen:
        for suffix, folder in builds:
            for store, server in stores:
                if binary == WORKOUTS and (suffix or store):
                    continue  # one checkout, one UnicornFit, on its own store
                name = domain + suffix + store
                service = Service(os.path.join(folder, binary), args.work, name, args.jwks, postgres=server)
                services[name] = service
                bodies[name] = Bodies(service, args.token, busiest, read_only)
    try:
        for name in services:  # every request is a real success before any is counted
            for target in bodies[name].targets:
                bodies[name].body(target)
        time.sleep(1)
        idle = {name: service.rss_mib() for name, service in services.items()}
        results = {}
        commits, pgbench = [], []
        payments = {suffix + store: [] for suffix, _ in builds for store, _ in stores}
        for round_number in range(1, args.rounds + 1):
            commits.append(bare_commits(args.work))
            print(f"round {round_number} bare SQLite commits/s: {commits[-1]:.0f}", file=sys.stderr)
            if args.postgres:
                pgbench.append(pgbench_tps(args.postgres, seconds=max(2, args.seconds)))
                print(f"round {round_number} pgbench TPC-B-like tps: {pgbench[-1]:.0f}", file=sys.stderr)
            for suffix, folder in builds:
                for store, server in stores:
                    rates = payments[suffix + store]
                    rates.append(durable_payments(os.path.join(folder, "payments-service"), args.work,
                                                  args.jwks, args.token, args.payments, 16, postgres=server))
                    print(f"round {round_number} durable payment Handles/s at 16{suffix}{store}: {rates[-1]:.0f}",
                          file=sys.stderr)
            for load in loads:
                for name in services:
                    for target in bodies[name].targets:
                        result = run(services[name], bodies[name], target, load, args.seconds, args.warm_up,
                                     args.work, args.token)
                        results.setdefault((name, target, load), []).append(result)
                        health = results[(name, "health", load)][-1]["rate"]
                        result["ratio"] = result["rate"] / health if health else 0.0
                        print(f"round {round_number} {name} {target} {load[0]}x{load[1]}: {result['rate']:.0f} req/s "
                              f"p50 {result['p50']:.2f} ms p99 {result['p99']:.2f} ms cpu {result['cpu']:.0f} µs/call "
                              f"×{result['ratio']:.2f} of health" + (f" NOT 200: {result['bad']}" if result["bad"] else ""),
                              file=sys.stderr)
        after = {name: service.rss_mib() for name, service in services.items()}
    finally:
        for service in services.values():
            service.stop()

    print(f"\n{args.rounds} rounds of {args.seconds} s per run, alternating; medians (range over rounds)\n")
    print("| domain | call | load | req/s | × health | p50 | p99 | CPU/call |")
    print("|---|---|---|---|---|---|---|---|")
    for (name, target, load), rows in results.items():
        rates, ratios = [r["rate"] for r in rows], [r["ratio"] for r in rows]
        ratio = "1" if target == "health" else spread(ratios, 2)
        print(f"| {name} | {target} | {load[0]}×{load[1]} | {spread(rates)} | {ratio} "
              f"| {statistics.median(r['p50'] for r in rows):.2f} ms | {statistics.median(r['p99'] for r in rows):.2f} ms "
              f"| {statistics.median(r['cpu'] for r in rows):.0f} µs |")
    print("\n| domain | idle RSS | RSS after the runs |")
    print("|---|---|---|")
    for name in services:
        print(f"| {name} | {idle[name]:.1f} MiB | {after[name]:.1f} MiB |")
    commit_rate = statistics.median(commits)
    print(f"\nbare SQLite commits (WAL, synchronous=FULL): {spread(commits)}/s")
    if pgbench:
        print(f"pgbench TPC-B-like on the PostgreSQL server (scale 1, -c 16 -j 2): {spread(pgbench)} tps")
    for name, rates in payments.items():
        payment_rate = statistics.median(rates)
        client = "clients/c's intentmesh-pay-load" if os.path.exists(C_LOAD) else "Python grpc.aio"
        versus = (f"×{payment_rate / statistics.median(pgbench):.2f} of pgbench's tps" if name.endswith("@postgres")
                  else f"×{payment_rate / commit_rate:.2f} of the bare commit rate")
        print(f"durable payment Handles{name} at 16 concurrent (Confirm + Handle each, from {client}): "
              f"{spread(rates)}/s, {versus}")


if __name__ == "__main__":
    main()
