"""The stack under test: how it is started, found, killed and restarted, and stopped.

Two kinds, one interface (`Stack`):

- `UpStack` (SQLite, the default): `intentmesh up` over a fresh data folder, one process and one
  SQLite file per domain; `up`'s supervisor restarts a killed domain on its port.
- `ReplicatedStack` (`--postgres`): a private PostgreSQL (`scripts/start-postgres`), REPLICAS
  processes of every domain on their own ports against their domain's schema of one database, and
  the gateway listing every replica; the harness itself supervises them (`_supervise`) and starts a
  killed replica again on its port after RESTART_DELAY.

The killer works on `targets`: what it may SIGKILL (a domain process, or one replica), each with
its domain and its own address; a target's down window ends at the first SERVING health check of a
new process on that address. The gateway is never a target.
"""
import collections
import datetime
import glob
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse

import grpc

from .config import APP, DOMAINS, REPO, SHORT, SetupError


def process_info(pid):
    """(ppid, exe basename, state) of a process, or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        exe = os.path.basename(os.readlink(f"/proc/{pid}/exe"))
        return int(fields[1]), exe, fields[0]
    except (OSError, IndexError, ValueError):
        return None


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def serving(address, timeout=0.5):
    """True when grpc.health.v1.Health/Check on `address` answers SERVING (a fresh connection)."""
    channel = grpc.insecure_channel(address)
    try:
        check = channel.unary_unary("/grpc.health.v1.Health/Check", request_serializer=lambda b: b,
                                    response_deserializer=lambda b: b)
        return check(b"", timeout=timeout) == b"\x08\x01"
    except grpc.RpcError:
        return False
    finally:
        channel.close()


class Target:
    """What the killer may SIGKILL: `name` ("payments-service", or "payments-service#2" for a
    replica), the domain it serves (its executable's name), its address, a short label."""

    def __init__(self, name, domain, address, label):
        self.name = name
        self.domain = domain
        self.address = address
        self.label = label

    def __repr__(self):
        return f"Target({self.name} {self.address})"


class Stack:
    """What both kinds share: the data folder (identity, logs), tokens, the endpoints."""

    kind = None
    #: Appended to the report's name (without .json) for the copy of `log_path`.
    log_suffix = ".log"

    def __init__(self, config, work, clock):
        self.config = config
        self.work = work
        self.clock = clock  # seconds since the harness started
        self.data = config.data or os.path.join(work, "data")
        os.makedirs(self.data, exist_ok=True)
        self.bin = config.bin
        self.executable = os.path.join(self.bin, "intentmesh")
        self.endpoints = {}  # "gateway" and every target's name → 127.0.0.1:PORT
        self.targets = []
        self.tokens = {}
        self.log_path = os.path.join(self.data, "stack.log")

    # -- for the harness -------------------------------------------------------------------------

    def describe(self):
        """What is started, for the first line."""
        raise NotImplementedError

    def start(self):
        raise NotImplementedError

    def pid(self, name):
        """The pid of the process that runs `name` (a target, "gateway", …) now, or None."""
        return self.processes().get(name)

    def processes(self):
        """{name: pid} of the processes of the stack that run now (zombies left out)."""
        raise NotImplementedError

    def parent_pid(self):
        """The pid of the parent of every process of the stack."""
        raise NotImplementedError

    def executable_name(self, name):
        """The executable's name of the process `name`."""
        return name

    def running(self, name, pid):
        """Whether `pid` is still the live process `name` of this stack."""
        info = process_info(pid)
        return bool(info) and info[2] != "Z" and info[0] == self.parent_pid() and \
            info[1] == self.executable_name(name)

    def failed(self):
        """A dict describing the end of what the whole stack needs (`up`, the gateway), or None."""
        raise NotImplementedError

    def deaths(self):
        """(Counter of SIGKILL deaths by target name, [anything else that died or stayed down]) as the
        stack's supervisor saw them."""
        raise NotImplementedError

    def rss(self):
        raise NotImplementedError

    def stop(self, timeout=40):
        """Stops everything it started (idempotent); returns (stopped cleanly, what went wrong)."""
        raise NotImplementedError

    def report(self):
        """What the report keeps about the stack beyond the endpoints."""
        return {}

    def kept(self):
        """Lines saying what is kept for a look afterwards (on failure or KEEP=1)."""
        return [f"data and logs kept in {self.data}"]

    # -- shared ----------------------------------------------------------------------------------

    def token(self, user):
        """A bearer token of the local identity in DATA/identity (`intentmesh token` makes the key pair
        and the JWKS there the first time, as `intentmesh up` does)."""
        if user not in self.tokens:
            done = subprocess.run([self.executable, "token", "--data", self.data, "--user", user, "--ttl", "6h"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if done.returncode != 0:
                raise SetupError(f"intentmesh token failed: {done.stderr}")
            self.tokens[user] = done.stdout.strip()
        return self.tokens[user]

    def target(self, name):
        return next(t for t in self.targets if t.name == name)

    def log(self):
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def remember(self, pid):
        """Every pid started goes to WORK/pids: scripts/chaos stops what is left of them if this
        process cannot (killed, or hung)."""
        with open(os.path.join(self.work, "pids"), "a") as pids:
            pids.write(f"{pid}\n")


# ---------------------------------------------------------------------------------------------
# SQLite: `intentmesh up`.
# ---------------------------------------------------------------------------------------------


class UpStack(Stack):
    """`intentmesh up` on loopback over a fresh data folder: one process and one SQLite file per
    domain; `up` restarts a domain that dies, on its port and store."""

    kind = "sqlite"
    log_suffix = ".up.log"

    def __init__(self, config, work, clock):
        super().__init__(config, work, clock)
        self.log_path = os.path.join(self.data, "up.log")
        self.process = None
        self.stop_status = None
        self.stop_log = ""
        self.stopped = None

    def describe(self):
        return f"starting intentmesh up from {self.config.bin} (data {self.data})"

    def start(self):
        environment = dict(os.environ, UNICORNRIDES_CLOCK_SPEED=f"{self.config.ride_clock:g}")
        command = [self.executable, "up", "--port", "0", "--data", self.data]
        if not self.config.workouts:
            command += ["--without", "workouts-service"]
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            env=environment, start_new_session=True, cwd=REPO)
        self.remember(self.process.pid)
        deadline = time.monotonic() + 120
        while "Ctrl-C stops everything" not in self.log():
            if self.process.poll() is not None:
                raise SetupError(f"intentmesh up exited with {self.process.returncode}:\n{self.log()}")
            if time.monotonic() > deadline:
                raise SetupError(f"intentmesh up did not come up within 120 s:\n{self.log()}")
            time.sleep(0.05)
        text = self.log()
        self.endpoints = {name: address for name, address in
                          re.findall(r"^  (\S+)\s+(127\.0\.0\.1:\d+)\s*$", text, re.MULTILINE)}
        missing = [n for n in ("gateway",) + DOMAINS if n not in self.endpoints]
        if missing:
            raise SetupError(f"no endpoint for {missing} in the output of intentmesh up:\n{text}")
        for name, address in self.endpoints.items():
            if not address.startswith("127.0.0.1:"):
                raise SetupError(f"{name} is not on loopback: {address}")
        self.targets = [Target(d, d, self.endpoints[d], SHORT[d]) for d in DOMAINS]

    def children(self):
        """{executable name: pid} of the processes `intentmesh up` runs now (zombies left out)."""
        found = {}
        if self.process is None:
            return found
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            info = process_info(int(entry))
            if info and info[0] == self.process.pid and info[2] != "Z":
                found[info[1]] = int(entry)
        return found

    def processes(self):
        return self.children()

    def parent_pid(self):
        return self.process.pid

    def failed(self):
        if self.process.poll() is not None:
            return {"service": "intentmesh up", "pid": self.process.pid, "status": self.process.returncode}
        return None

    def deaths(self):
        """The supervisor's account of deaths: every line of `up`'s output that says a service died."""
        text = self.log()
        died = collections.Counter()
        strange = []
        for line in text.splitlines():
            match = re.match(r"^(\S+) (was killed by signal (\d+).*|exited with status .*)after", line)
            if not match:
                if "stays down" in line or "could not be started" in line:
                    strange.append(line)
                continue
            if match.group(3) == "9":
                died[match.group(1)] += 1
            else:
                strange.append(line)
        return died, strange

    def rss(self):
        sizes = {"intentmesh up": rss_kib(self.process.pid)}
        for name, pid in sorted(self.children().items()):
            sizes[name] = rss_kib(pid)
        return sizes

    def stop(self, timeout=40):
        """SIGINT (what Ctrl-C sends): the gateway, then each domain; then SIGKILL for whatever is
        left of what it ran."""
        if self.process is None:
            return False, "intentmesh up was not started"
        if self.stopped is not None:
            return self.stopped
        leftovers = {pid: name for name, pid in self.children().items()}
        if self.process.poll() is None:
            try:
                self.process.send_signal(signal.SIGINT)
            except OSError:
                pass
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        # Whatever it ran and left behind (it was the parent of each of them).
        leftovers.update({pid: name for name, pid in self.children().items()})
        for pid, name in leftovers.items():
            info = process_info(pid)
            if info and info[1] == name:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        self.stop_status = self.process.returncode
        self.stop_log = self.log()
        clean = self.stop_status == 0 and "stopped cleanly" in self.stop_log
        self.stopped = (clean, None if clean else
                        f"intentmesh up did not stop cleanly on SIGINT (status {self.stop_status})")
        return self.stopped


# ---------------------------------------------------------------------------------------------
# PostgreSQL: replicas of every domain, supervised by the harness.
# ---------------------------------------------------------------------------------------------


class Member:
    """A process the replicated stack runs: a replica, the gateway, or the Python domain."""

    def __init__(self, name, executable, arguments, log, port=0, domain=None, restartable=True):
        self.name = name
        self.executable = executable
        self.arguments = arguments  # port → the command's arguments
        self.log = log
        self.port = port
        self.domain = domain
        self.restartable = restartable
        self.process = None
        self.since = None
        self.state = "new"  # running, restarting, given up, dead, stopped
        self.restart_at = None
        self.quick_crashes = 0
        self.log_offset = 0
        self.address = None


class PostgresServer:
    """A private PostgreSQL for one run, through scripts/start-postgres (a cluster in a folder of
    its own under /tmp, trust authentication, 127.0.0.1 only)."""

    script = os.path.join(REPO, "scripts", "start-postgres")

    def __init__(self, work):
        self.work = work
        self.dir = None
        self.url = None
        self.running = False

    def start(self):
        # Not inside WORK: the server runs as the user postgres, which may not enter it.
        self.dir = tempfile.mkdtemp(prefix="chaos-pg.", dir="/tmp")
        with open(os.path.join(self.work, "postgres"), "w") as f:  # for scripts/chaos's cleanup
            f.write(self.dir + "\n")
        done = subprocess.run([self.script, self.dir], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              stdin=subprocess.DEVNULL, timeout=600)
        if done.returncode != 0 or not done.stdout.strip().startswith("postgres://"):
            raise SetupError(f"scripts/start-postgres failed ({done.returncode}):\n{done.stderr}{done.stdout}")
        self.running = True
        self.url = done.stdout.strip().splitlines()[-1]

    def create_database(self, name):
        """CREATE DATABASE through createdb over TCP (trust: no password)."""
        parsed = urllib.parse.urlsplit(self.url)
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/createdb"),
                       key=lambda p: [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", p)])
        createdb = found[-1] if found else shutil.which("createdb")
        if not createdb:
            raise SetupError("no createdb (PostgreSQL's client programs) on this machine")
        done = subprocess.run([createdb, "-h", parsed.hostname, "-p", str(parsed.port), "-U", parsed.username, name],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
        if done.returncode != 0:
            raise SetupError(f"createdb {name} failed: {done.stdout}")

    def database_url(self, database, schema):
        parsed = urllib.parse.urlsplit(self.url)
        return urllib.parse.urlunsplit((parsed.scheme, parsed.netloc, "/" + database,
                                        f"schema={schema}&sslmode=disable", ""))

    def postmaster_pid(self):
        try:
            with open(os.path.join(self.dir, "data", "postmaster.pid")) as f:
                return int(f.readline())
        except (OSError, ValueError, TypeError):
            return None

    def stop(self):
        """Stops the server (pg_ctl stop -m fast); True when it stopped."""
        if not self.dir or not os.path.exists(os.path.join(self.dir, "data", "postmaster.pid")):
            self.running = False
            return True
        done = subprocess.run([self.script, "--stop", self.dir], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, stdin=subprocess.DEVNULL, timeout=120)
        self.running = done.returncode != 0
        return done.returncode == 0

    def remove(self):
        if self.dir and not self.running:
            shutil.rmtree(self.dir, ignore_errors=True)


def free_ports(count, rng):
    """Free loopback ports below the kernel's ephemeral range, so that no outgoing connection takes a
    killed replica's port while it is down; None when that range is too small to pick from."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    upper, lower = low - 1, max(1024, low - 20000)
    if upper - lower < 1000:
        return None
    chosen = []
    while len(chosen) < count:
        port = rng.randrange(lower, upper)
        if port in chosen:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        chosen.append(port)
    return chosen


class ReplicatedStack(Stack):
    """REPLICAS processes of every domain against a private PostgreSQL (one database, `intentmesh`;
    each domain in its own schema, as docker-compose.yml runs them), and the gateway with every
    replica listed (`--domain` once per replica: the same app on two endpoints is two replicas of
    one route). The harness supervises them as `up` does its services: a replica that dies is
    started again on its port after RESTART_DELAY (doubled for each quick death in a row)."""

    kind = "postgres"
    log_suffix = ".stack.log"
    database = "intentmesh"
    #: A process that dies this soon after a start counts as a quick death; five in a row: left down.
    quick_run = 3.0
    max_quick_deaths = 5

    def __init__(self, config, work, clock):
        super().__init__(config, work, clock)
        self.logs = os.path.join(self.data, "logs")
        os.makedirs(self.logs, exist_ok=True)
        self.postgres = PostgresServer(work)
        self.members = {}  # name → Member (replicas, the gateway, the Python domain)
        self.lock = threading.RLock()
        self.log_lock = threading.Lock()
        self.supervising = threading.Event()
        self.supervisor = None
        self.death_records = []
        self.strange = []
        self.stopped = None
        # One epoch for every accelerated domain clock (as `up` sets it), so that both replicas of
        # ride booking, and a restarted one, agree on the time.
        self.environment = dict(os.environ, UNICORNRIDES_CLOCK_SPEED=f"{config.ride_clock:g}",
                                INTENTMESH_CLOCK_EPOCH=repr(time.time()))

    def describe(self):
        return (f"starting PostgreSQL, {self.config.replicas} replicas of every domain and the gateway from "
                f"{self.config.bin} (data {self.data})")

    def note(self, line):
        """A line of the stack's own log (starts, deaths, restarts), as `up` prints them."""
        with self.log_lock, open(self.log_path, "a") as f:
            f.write(f"[{self.clock():8.3f}] {line}\n")

    # -- starting --------------------------------------------------------------------------------

    def start(self):
        cfg = self.config
        with open(self.log_path, "w"):
            pass
        self.note(f"chaos: {cfg.replicas} replicas of every domain on PostgreSQL, binaries from {cfg.bin}")
        self.postgres.start()
        self.note(f"PostgreSQL {self.postgres.url} (cluster in {self.postgres.dir})")
        self.postgres.create_database(self.database)
        # The local identity: `intentmesh token` makes DATA/identity/{signing-key.pem,jwks.json} the
        # first time (the same files `intentmesh up` makes); every service checks tokens against it.
        self.token("chaos-identity")
        jwks = os.path.join(self.data, "identity", "jwks.json")
        if not os.path.exists(jwks):
            raise SetupError(f"intentmesh token made no {jwks}")
        names = [(domain, index) for domain in DOMAINS for index in range(1, cfg.replicas + 1)]
        extra = 1 if cfg.workouts else 0
        ports = free_ports(len(names) + extra, random.Random(cfg.seed + 2)) or [0] * (len(names) + extra)
        for (domain, index), port in zip(names, ports):
            url = self.postgres.database_url(self.database, SHORT[domain])
            name = f"{domain}#{index}"
            self.members[name] = Member(
                name, os.path.join(self.bin, domain),
                lambda port, url=url: ["--host", "127.0.0.1", "--port", str(port), "--database", url,
                                       "--metrics-port=-1", "--jwks", jwks],
                os.path.join(self.logs, f"{domain}-{index}.log"), port=port, domain=domain)
        if cfg.workouts:  # the Python domain: one process on SQLite, never killed
            database = os.path.join(self.data, "workouts.sqlite")
            self.members["workouts-service"] = Member(
                "workouts-service", os.path.join(REPO, "Services", "Workouts", "workouts-service"),
                lambda port: ["--host", "127.0.0.1", "--port", str(port), "--database", database, "--jwks", jwks],
                os.path.join(self.logs, "workouts-service.log"), port=ports[-1], domain="workouts-service")
        domains = list(self.members.values())
        for member in domains:  # all at once: replicas of a domain apply its schema one at a time
            self.launch(member)
        for member in domains:
            member.address = self.wait_serving(member)
            member.port = int(member.address.rsplit(":", 1)[1])
            self.endpoints[member.name] = member.address
        domain_arguments = [a for m in domains for a in ("--domain", m.address)]
        gateway = Member("gateway", os.path.join(self.bin, "gateway"),
                         lambda port: ["--host", "127.0.0.1", "--port", str(port), "--refresh-seconds", "5"]
                         + domain_arguments + ["--jwks", jwks],
                         os.path.join(self.logs, "gateway.log"), restartable=False)
        self.members["gateway"] = gateway
        self.launch(gateway)
        gateway.address = self.wait_serving(gateway)
        self.endpoints = {"gateway": gateway.address, **self.endpoints}
        for name, address in self.endpoints.items():
            if not address.startswith("127.0.0.1:"):
                raise SetupError(f"{name} is not on loopback: {address}")
        self.targets = [Target(m.name, m.domain, m.address, f"{SHORT[m.domain]}#{m.name.rsplit('#', 1)[1]}")
                        for m in domains if m.domain in DOMAINS]
        self.wait_routes()
        self.supervisor = threading.Thread(target=self._supervise, name="stack supervisor", daemon=True)
        self.supervisor.start()
        self.note("every replica SERVING and routed by the gateway: " +
                  ", ".join(f"{name} {address}" for name, address in self.endpoints.items()))

    def launch(self, member, again=False):
        with open(member.log, "a" if again else "w") as log:
            if again:
                log.write(f"--- restarted by chaos at {datetime.datetime.now().isoformat(timespec='milliseconds')} ---\n")
                log.flush()
            member.log_offset = log.tell()
            member.process = subprocess.Popen([member.executable] + member.arguments(member.port), stdout=log,
                                              stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                              env=self.environment, start_new_session=True, cwd=REPO)
        self.remember(member.process.pid)
        member.since = time.monotonic()
        member.state = "running"
        self.note(f"{member.name} started (pid {member.process.pid})" +
                  (f" on port {member.port}" if member.port else ""))

    def output(self, member):
        try:
            with open(member.log, encoding="utf-8", errors="replace") as f:
                f.seek(member.log_offset)
                return f.read()
        except OSError:
            return ""

    def wait_serving(self, member, timeout=120):
        """The address of its "… serving on HOST:PORT" line."""
        deadline = time.monotonic() + timeout
        while True:
            match = re.search(r" serving on (\S+)", self.output(member))
            if match:
                return match.group(1)
            if member.process.poll() is not None:
                raise SetupError(f"{member.name} exited with {member.process.returncode}:\n"
                                 f"{self.output(member)[-3000:]}")
            if time.monotonic() > deadline:
                raise SetupError(f"{member.name} did not report serving within {timeout} s:\n"
                                 f"{self.output(member)[-3000:]}")
            time.sleep(0.05)

    def wait_routes(self, timeout=60):
        """Until the gateway's ListRoutes shows every replica SERVING and each domain's app routed to
        all of its replicas."""
        from intentmesh.gateway.v1 import gateway_pb2, gateway_pb2_grpc
        channel = grpc.insecure_channel(self.endpoints["gateway"])
        stub = gateway_pb2_grpc.GatewayStub(channel)
        deadline = time.monotonic() + timeout
        wanted = collections.defaultdict(set)  # app → replica addresses
        for target in self.targets:
            wanted[APP[SHORT[target.domain]]].add(target.address)
        try:
            while True:
                problems = []
                try:
                    table = stub.ListRoutes(gateway_pb2.ListRoutesRequest(), timeout=3)
                    health = {d.endpoint: d.health for d in table.domains}
                    routed = collections.defaultdict(set)
                    for route in table.routes:
                        routed[route.app_name].update(route.endpoint.split(","))
                    problems += [f"{t.name} {t.address} is {health.get(t.address, 'not listed')}"
                                 for t in self.targets if health.get(t.address) != "SERVING"]
                    problems += [f"{app} routed to {sorted(routed.get(app, ()))}, not {sorted(addresses)}"
                                 for app, addresses in wanted.items() if routed.get(app, set()) != addresses]
                except grpc.RpcError as error:
                    problems.append(f"ListRoutes: {error.code()} {error.details()}")
                if not problems:
                    return
                if time.monotonic() > deadline:
                    raise SetupError(f"the gateway does not route to every replica after {timeout} s: {problems}")
                time.sleep(0.2)
        finally:
            channel.close()

    # -- supervising -----------------------------------------------------------------------------

    def _supervise(self):
        """Every 50 ms: a member that ended is recorded; a replica is started again on its port after
        RESTART_DELAY (doubled for each quick death in a row, at most 8 s; five: left down)."""
        while not self.supervising.is_set():
            now = time.monotonic()
            with self.lock:
                if self.supervising.is_set():
                    break
                for member in self.members.values():
                    if member.state == "running" and member.process.poll() is not None:
                        self.died(member, now)
                    elif member.state == "restarting" and now >= member.restart_at:
                        try:
                            self.launch(member, again=True)
                        except OSError as error:
                            member.state = "given up"
                            self.strange.append(f"{member.name} could not be started again ({error}); it stays down")
                            self.note(self.strange[-1])
            time.sleep(0.05)

    def died(self, member, now):
        status = member.process.returncode
        ran = now - member.since
        how = f"was killed by signal {-status}" + (" (SIGKILL)" if status == -signal.SIGKILL else "") \
            if status < 0 else f"exited with status {status}"
        self.death_records.append({"name": member.name, "pid": member.process.pid, "status": status,
                                   "t": round(self.clock(), 4), "ran_seconds": round(ran, 3)})
        if status != -signal.SIGKILL:
            self.strange.append(f"{member.name} (pid {member.process.pid}) {how} after {ran:.2f} s")
        if not member.restartable:
            member.state = "dead"
            self.note(f"{member.name} {how} after {ran:.2f} s; not restarted")
            return
        member.quick_crashes = member.quick_crashes + 1 if ran < self.quick_run else 0
        if member.quick_crashes >= self.max_quick_deaths:
            member.state = "given up"
            self.strange.append(f"{member.name} died {member.quick_crashes} times in a row within "
                                f"{self.quick_run:g} s of its start; it stays down")
            self.note(self.strange[-1])
            return
        delay = min(8.0, self.config.restart_delay * (2 ** member.quick_crashes))
        member.state = "restarting"
        member.restart_at = now + delay
        self.note(f"{member.name} {how} after {ran:.2f} s; restarting it in {delay:.2f} s on port {member.port}")

    # -- for the harness -------------------------------------------------------------------------

    def processes(self):
        with self.lock:
            return {name: m.process.pid for name, m in self.members.items()
                    if m.process is not None and m.state == "running" and m.process.poll() is None}

    def parent_pid(self):
        return os.getpid()

    def executable_name(self, name):
        member = self.members.get(name)
        return os.path.basename(member.executable) if member else name

    def failed(self):
        gateway = self.members.get("gateway")
        if gateway and gateway.process is not None and gateway.process.poll() is not None:
            return {"service": "gateway", "pid": gateway.process.pid, "status": gateway.process.returncode}
        return None

    def deaths(self):
        died = collections.Counter(d["name"] for d in self.death_records if d["status"] == -signal.SIGKILL)
        return died, list(self.strange)

    def rss(self):
        sizes = {}
        for name, pid in sorted(self.processes().items(), key=lambda item: (item[0] != "gateway", item[0])):
            sizes[name] = rss_kib(pid)
        postmaster = self.postgres.postmaster_pid()
        if postmaster:
            sizes["postgres (postmaster)"] = rss_kib(postmaster)
        return sizes

    def report(self):
        return {"postgres": self.postgres.url, "postgres_dir": self.postgres.dir, "database": self.database,
                "deaths": self.death_records}

    def kept(self):
        lines = super().kept()
        if self.postgres.dir:
            lines.append(f"PostgreSQL cluster kept in {self.postgres.dir} (stopped; `scripts/start-postgres "
                         f"{self.postgres.dir}` starts it again; schemas {', '.join(SHORT[d] for d in DOMAINS)} "
                         f"of database {self.database})")
        return lines

    def stop(self, timeout=40):
        """SIGTERM to the gateway, then to every domain process (each drains its calls in flight),
        SIGKILL after timeout/2 each; then PostgreSQL stops. Clean: every one that was running
        exited 0 and PostgreSQL stopped."""
        if self.stopped is not None:
            return self.stopped
        self.supervising.set()
        if self.supervisor is not None:
            self.supervisor.join(5)
        statuses = {}
        with self.lock:
            gateway = [m for n, m in self.members.items() if n == "gateway"]
            others = [m for n, m in self.members.items() if n != "gateway"]
            for group in (gateway, others):
                running = [m for m in group if m.process is not None and m.process.poll() is None]
                for member in running:
                    try:
                        member.process.send_signal(signal.SIGTERM)
                    except OSError:
                        pass
                deadline = time.monotonic() + timeout / 2
                for member in running:
                    try:
                        member.process.wait(timeout=max(0.1, deadline - time.monotonic()))
                    except subprocess.TimeoutExpired:
                        member.process.kill()
                        member.process.wait(timeout=10)
                    member.state = "stopped"
                    statuses[member.name] = member.process.returncode
            # Anything still there (killed while the supervisor was stopping).
            for member in self.members.values():
                if member.process is not None and member.process.poll() is None:
                    member.process.kill()
                    member.process.wait(timeout=10)
        for name, status in statuses.items():
            self.note(f"{name} stopped: exit status {status}")
        postgres_stopped = self.postgres.stop()
        self.note("PostgreSQL stopped" if postgres_stopped else "PostgreSQL did not stop")
        unclean = {name: status for name, status in statuses.items() if status != 0}
        problems = []
        if unclean:
            problems.append(f"not every process stopped cleanly on SIGTERM: {unclean}")
        if not postgres_stopped:
            problems.append(f"PostgreSQL in {self.postgres.dir} did not stop")
        self.stopped = (not problems, "; ".join(problems) or None)
        return self.stopped
