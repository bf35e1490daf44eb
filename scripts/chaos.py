#!/usr/bin/env python3
"""Chaos under load with an audit of every acknowledged write (run by scripts/chaos; its header
lists the options).

Starts `intentmesh up` on loopback over a fresh data folder, makes users through the app APIs,
drives a mixed workload through the gateway from CLIENTS threads (every intent as a SiriKit round:
Resolve, Confirm, Handle with Confirm's token; a transport error is retried with the same request,
the same intent identifier, until answered or the retry budget ends), SIGKILLs a random domain
process every KILL_EVERY seconds (the supervisor restarts it), and afterwards audits the stores
through the public API only: every acknowledged effect present exactly once, none at most once,
money conserved per currency and every account balance explained, no account below zero.

Exit status: 0 when every check passed, 1 when one failed (the summary says which, the report
keeps the evidence), 2 when the harness could not run (setup failed), 3 at the hard deadline.
"""
import collections
import datetime
import json
import math
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DOMAINS = ("messaging-service", "payments-service", "ridebooking-service", "notes-service")
SHORT = {
    "messaging-service": "messaging", "payments-service": "payments", "ridebooking-service": "ridebooking",
    "notes-service": "notes", "gateway": "gateway", "workouts-service": "workouts",
}
APP = {"messaging": "UnicornChat", "payments": "UnicornPay", "ridebooking": "UnicornRides", "notes": "UnicornNote"}

#: Statuses a real client treats as "the call did not get through": retried with the same request.
RETRYABLE = {"UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED", "UNKNOWN", "INTERNAL", "ABORTED"}

FIRST_NAMES = [
    "Amber", "Bramble", "Cinder", "Dapple", "Ember", "Fable", "Glimmer", "Hazel", "Indigo", "Juniper", "Kestrel",
    "Lumen", "Marigold", "Nimbus", "Opal", "Pippin", "Quill", "Rowan", "Saffron", "Thistle", "Umber", "Velvet",
    "Willow", "Xanthe", "Yarrow", "Zephyr", "Aster", "Briar", "Clover", "Dusk", "Echo", "Fern", "Garnet",
    "Heather", "Iris", "Jasper", "Kismet", "Larkspur", "Moss", "Nettle",
]
FAMILY_NAMES = ["Glow", "Hoof", "Mane", "Star", "Horn", "Gleam", "Sparkle", "Meadow"]

TOKEN_RE = re.compile(r"cx[a-z0-9]{4}[0-9]{6}")


def env_float(name, default):
    value = os.environ.get(name, "").strip()
    return float(value) if value else default


def env_int(name, default):
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


class Config:
    def __init__(self, argv):
        self.postgres = "--postgres" in argv
        args = [a for a in argv if a != "--postgres"]
        self.bin = None
        self.work = None
        i = 0
        while i < len(args):
            if args[i] == "--bin":
                self.bin = args[i + 1]
                i += 2
            elif args[i] == "--work":
                self.work = args[i + 1]
                i += 2
            else:
                raise SystemExit(f"chaos: unknown argument {args[i]!r}")
        self.duration = env_float("DURATION", 60.0)
        self.kill_every = env_float("KILL_EVERY", 4.0)
        self.clients = env_int("CLIENTS", 6)
        self.retry_budget = env_float("RETRY_BUDGET", 20.0)
        self.attempt_timeout = env_float("ATTEMPT_TIMEOUT", 5.0)
        # The supervisor counts a death within 10 s of a start as a quick crash and leaves a service
        # down after five in a row (RestartPolicy): only a domain up this long is killed.
        self.min_uptime = env_float("MIN_UPTIME", 11.0)
        self.warmup = env_float("WARMUP", 2.0)
        self.quiet = env_float("QUIET", min(10.0, max(3.0, self.duration * 0.15)))
        self.think = env_float("THINK_MS", 10.0) / 1000
        self.users = env_int("USERS", max(8, min(len(FIRST_NAMES), math.ceil(self.duration / 10))))
        self.users = max(4, min(self.users, len(FIRST_NAMES)))
        self.friends = min(self.users - 1, 6)
        self.seed = env_int("SEED", random.SystemRandom().randrange(1, 1 << 30))
        self.ride_clock = env_float("RIDE_CLOCK_SPEED", 1.0)
        self.grace = env_float("GRACE", 1.0)
        self.aim = os.environ.get("AIM", "1") != "0"
        self.data = os.environ.get("DATA", "").strip() or None
        self.keep = os.environ.get("KEEP", "") == "1"
        self.workouts = os.environ.get("WORKOUTS", "") == "1"
        self.report = os.environ.get("REPORT", "").strip() or os.path.join(REPO, "artifacts", "chaos", "report.json")
        self.hard_deadline = env_float("HARD_DEADLINE", self.duration + 600)
        self.progress_every = env_float("PROGRESS_EVERY", 10.0)

    def as_dict(self):
        return {k: v for k, v in vars(self).items()}


def say(message):
    print(message, flush=True)


# ---------------------------------------------------------------------------------------------
# The stack: `intentmesh up`, its endpoints, its processes.
# ---------------------------------------------------------------------------------------------


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


class Stack:
    def __init__(self, config, work):
        self.config = config
        self.work = work
        self.data = config.data or os.path.join(work, "data")
        os.makedirs(self.data, exist_ok=True)
        self.log_path = os.path.join(self.data, "up.log")
        self.bin = config.bin
        self.executable = os.path.join(self.bin, "intentmesh")
        self.process = None
        self.endpoints = {}
        self.tokens = {}
        self.stop_status = None
        self.stop_log = ""

    def start(self):
        environment = dict(os.environ, UNICORNRIDES_CLOCK_SPEED=f"{self.config.ride_clock:g}")
        command = [self.executable, "up", "--port", "0", "--data", self.data]
        if not self.config.workouts:
            command += ["--without", "workouts-service"]
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            env=environment, start_new_session=True, cwd=REPO)
        with open(os.path.join(self.work, "pids"), "a") as pids:
            pids.write(f"{self.process.pid}\n")
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

    def log(self):
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

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

    def token(self, user):
        if user not in self.tokens:
            done = subprocess.run([self.executable, "token", "--data", self.data, "--user", user, "--ttl", "6h"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if done.returncode != 0:
                raise SetupError(f"intentmesh token failed: {done.stderr}")
            self.tokens[user] = done.stdout.strip()
        return self.tokens[user]

    def stop(self, timeout=40):
        """SIGINT (what Ctrl-C sends): the gateway, then each domain; then SIGKILL for whatever is
        left of what it ran. Returns (exit status, stopped cleanly)."""
        if self.process is None:
            return None, False
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
        return self.stop_status, "stopped cleanly" in self.stop_log


class SetupError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Recording: every RPC attempt, every write, every round.
# ---------------------------------------------------------------------------------------------


class Recorder:
    def __init__(self, t0):
        self.t0 = t0
        self.lock = threading.Lock()
        self.attempts = collections.Counter()  # (domain, ok/err)
        self.errors = []  # dicts
        self.error_codes = collections.Counter()  # (domain, code)
        self.rounds = collections.Counter()  # (intent, outcome)
        self.latency = collections.defaultdict(list)  # intent → [seconds] (acknowledged rounds)
        self.handle_latency = collections.defaultdict(list)
        self.writes = []
        self.calls_failed = collections.Counter()  # (domain, method) → calls that ran out of budget
        self.replayed = 0
        self.skipped = collections.Counter()
        self.other_failures = []  # non-transport errors: harness or system bugs

    def now(self):
        return time.monotonic() - self.t0

    def ok(self, domain):
        with self.lock:
            self.attempts[(domain, "ok")] += 1

    def error(self, domain, method, t0, t1, code, details, client, intent):
        with self.lock:
            self.attempts[(domain, "err")] += 1
            self.error_codes[(domain, code)] += 1
            self.errors.append({"domain": domain, "method": method, "t0": round(t0, 4), "t1": round(t1, 4),
                                "code": code, "details": (details or "")[:300], "client": client, "intent": intent})

    def round_outcome(self, intent, outcome):
        with self.lock:
            self.rounds[(intent, outcome)] += 1

    def add_write(self, write):
        with self.lock:
            self.writes.append(write)


class CallFailed(Exception):
    def __init__(self, code, details, retryable):
        super().__init__(f"{code}: {details}")
        self.code = code
        self.details = details
        self.retryable = retryable


class Stopping(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# The harness.
# ---------------------------------------------------------------------------------------------


class User:
    def __init__(self, index, run):
        first = FIRST_NAMES[index]
        self.index = index
        self.id = f"chaos-{run}-{first.lower()}"
        self.name = f"{first} {FAMILY_NAMES[index % len(FAMILY_NAMES)]}"
        self.chat_handle = f"{self.id}@unicorn.chat"
        self.pay_handle = f"{self.id}@unicornpay.example"
        self.auth = None
        self.friends = []
        self.accounts = {}  # role → account identifier ("balance", "euro", "savings")
        # What each user may hold before a listing no longer shows everything (limits 500 / 100).
        self.mailbox = 0
        self.pay_records = 0
        self.rides = 0


MAILBOX_CAP = 460
PAY_RECORDS_CAP = 460
RIDES_CAP = 90


class Chaos:
    def __init__(self, config, work):
        self.config = config
        self.work = work
        self.rng = random.Random(config.seed)
        self.run = "".join(self.rng.choice("abcdefghijkmnpqrstuvwxyz23456789") for _ in range(4))
        self.t0 = time.monotonic()
        self.started_at = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        self.rec = Recorder(self.t0)
        self.stack = Stack(config, work)
        self.stop_workload = threading.Event()
        self.abort = threading.Event()
        self.lock = threading.Lock()
        self.seq = 0
        self.users = []
        self.notes_by_user = collections.defaultdict(list)  # user id → acknowledged note titles
        self.free_riders = None
        self.kills = []
        self.windows = []  # {"domain", "t_kill", "t_healthy"}
        self.domain_state = {}  # domain → {"pid", "up_since", "down"}
        self.killed_pids = set()
        self.in_flight = collections.defaultdict(dict)  # domain → {call: when sent} of Handles in flight
        self.unexpected_deaths = []
        self.initial_accounts = {}
        self.failures = []
        self.audit = {}
        self.rss = {}
        self.phase = "setup"

    # -- plumbing --------------------------------------------------------------------------------

    def import_stubs(self):
        stubs = os.path.join(self.work, "stubs")
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
        global grpc, ext_pb2, ext_grpc, intent_pb2, types, chat, chat_app, chat_app_grpc, pay, pay_app
        global pay_app_grpc, rides, rides_app, rides_app_grpc, notes
        import grpc  # noqa: F401
        from intentmesh.v1 import extension_service_pb2 as ext_pb2, extension_service_pb2_grpc as ext_grpc
        from intentmesh.v1 import intent_pb2, types_pb2 as types
        from intentmesh.messaging.v1 import messaging_pb2 as chat, app_pb2 as chat_app, app_pb2_grpc as chat_app_grpc
        from intentmesh.payments.v1 import payments_pb2 as pay, app_pb2 as pay_app, app_pb2_grpc as pay_app_grpc
        from intentmesh.ridebooking.v1 import ridebooking_pb2 as rides, app_pb2 as rides_app
        from intentmesh.ridebooking.v1 import app_pb2_grpc as rides_app_grpc
        from intentmesh.notebook.v1 import notebook_pb2 as notes

    def next_seq(self):
        with self.lock:
            self.seq += 1
            return self.seq

    def token(self):
        return f"cx{self.run}{self.next_seq():06d}"

    def identifier(self):
        return f"chaos-{self.run}-{self.next_seq():06d}"

    def rpc(self, client, domain, method, callable_, request, metadata, intent="", budget=None):
        """One call with a real client's retries: a transport failure is retried with the same
        request until answered or the budget ends. Every attempt is recorded."""
        budget = self.config.retry_budget if budget is None else budget
        began = time.monotonic()
        delay = 0.05
        client.attempts = 0
        while True:
            if self.abort.is_set():
                raise Stopping()
            client.attempts += 1
            t0 = self.rec.now()
            if method == "Handle":
                mark = object()
                with self.lock:
                    self.in_flight[domain][mark] = time.monotonic()
            try:
                answer = callable_(request, metadata=metadata, timeout=self.config.attempt_timeout)
                self.rec.ok(domain)
                return answer
            except grpc.RpcError as error:
                t1 = self.rec.now()
                code = error.code().name if error.code() else "UNKNOWN"
                details = error.details() or ""
                self.rec.error(domain, method, t0, t1, code, details, client.name, intent)
                retryable = code in RETRYABLE
                if not retryable:
                    with self.rec.lock:
                        self.rec.other_failures.append({"domain": domain, "method": method, "intent": intent,
                                                        "code": code, "details": details[:300], "t": round(t1, 3)})
                    raise CallFailed(code, details, False)
                if time.monotonic() - began + delay > budget:
                    with self.rec.lock:
                        self.rec.calls_failed[(domain, method)] += 1
                    raise CallFailed(code, details, True)
                time.sleep(delay)
                delay = min(delay * 2, 0.5)
            finally:
                if method == "Handle":
                    with self.lock:
                        del self.in_flight[domain][mark]

    def intent(self, intent_class, message, app, identifier=None):
        made = intent_pb2.Intent(intent_class=intent_class, identifier=identifier or self.identifier(), app_name=app)
        made.payload.Pack(message)
        return made

    def sirikit_round(self, client, user, domain, intent_class, message, response_type, effect=None,
                      time_zone="UTC"):
        """Resolve → Confirm → Handle (with Confirm's token). With `effect` (a write), the write is
        recorded with its outcome. Returns (code name, typed response, handle response) or None."""
        the_intent = self.intent(intent_class, message, APP[domain])
        context = intent_pb2.RequestContext(time_zone=time_zone, locale="en-US")
        md = user.auth
        began = time.monotonic()
        write = None
        if effect is not None:
            # The caller's dict itself: what it learns from the answer (a ride's identifier) goes in too.
            write = effect
            write.update(id=the_intent.identifier, intent=intent_class, domain=domain, user=user.id,
                         status="not_sent", t=round(self.rec.now(), 3))
            self.rec.add_write(write)
        try:
            resolved = self.rpc(client, domain, "Resolve", client.ext.Resolve,
                                ext_pb2.ResolveRequest(context=context, intent=the_intent), md, intent_class)
            if not resolved.complete:
                described = "; ".join(f"{r.parameter}: {x.WhichOneof('kind')}" for r in resolved.resolutions
                                      for x in r.results)
                self.rec.round_outcome(intent_class, "incomplete")
                with self.rec.lock:
                    self.rec.other_failures.append({"domain": domain, "method": "Resolve", "intent": intent_class,
                                                    "code": "INCOMPLETE", "details": described[:300],
                                                    "t": round(self.rec.now(), 3)})
                return None
            confirmed = self.rpc(client, domain, "Confirm", client.ext.Confirm,
                                 ext_pb2.ConfirmRequest(context=context, intent=resolved.resolved_intent), md,
                                 intent_class)
            if confirmed.response.code_name != "ready":
                self.rec.round_outcome(intent_class, f"refused:{confirmed.response.code_name}")
                if write is not None:
                    write["refused_at"] = "confirm"
                    write["code"] = confirmed.response.code_name
                return None
            if write is not None:
                write["status"] = "unacked"
            handle_began = time.monotonic()
            handle_request = ext_pb2.HandleRequest(context=context, intent=resolved.resolved_intent,
                                                   confirmation_token=confirmed.confirmation_token)
            handled = self.rpc(client, domain, "Handle", client.ext.Handle, handle_request, md, intent_class)
        except CallFailed as failed:
            self.rec.round_outcome(intent_class, "failed" if failed.retryable else f"error:{failed.code}")
            if write is not None:
                write["last_error"] = failed.code
            return None
        code = handled.response.code_name
        finished = time.monotonic()
        if write is not None:
            write["replayed"] = handled.replayed
            write["handle_attempts"] = client.attempts
        if handled.replayed:
            with self.rec.lock:
                self.rec.replayed += 1
                if client.attempts == 1:  # nothing of ours answered before: an identifier reused?
                    self.rec.other_failures.append({"domain": domain, "method": "Handle", "intent": intent_class,
                                                    "code": "REPLAYED_FIRST_TIME", "t": round(self.rec.now(), 3),
                                                    "details": f"{the_intent.identifier} answered replayed on its "
                                                               "first attempt"})
        response = response_type()
        handled.response.payload.Unpack(response)
        if code != "success":
            self.rec.round_outcome(intent_class, f"refused:{code}")
            if write is not None:
                write["status"] = "refused"
                write["code"] = code
            return code, response, handled
        if write is not None:
            write["status"] = "acked"
        if self.phase == "audit":
            return code, response, handled
        self.rec.round_outcome(intent_class, "acked" if write is not None else "answered")
        with self.rec.lock:
            self.rec.latency[intent_class].append(finished - began)
            self.rec.handle_latency[intent_class].append(finished - handle_began)
        return code, response, handled

    # -- health and processes ------------------------------------------------------------------

    def health(self, address, timeout=0.5):
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

    def wait_healthy(self, domains, timeout):
        deadline = time.monotonic() + timeout
        pending = list(domains)
        while pending and time.monotonic() < deadline:
            pending = [d for d in pending if not self.health(self.stack.endpoints[d])]
            if pending:
                time.sleep(0.1)
        return pending

    def watcher(self):
        """Every 100 ms: which process serves each domain; a domain process that died without the
        killer killing it is an unexpected death (so is the gateway or `up` itself ending)."""
        known = dict(self.stack.children())
        while not self.abort.is_set() and self.phase != "stopping":
            time.sleep(0.1)
            if self.phase == "stopping":
                break
            if self.stack.process.poll() is not None:
                self.unexpected_deaths.append({"service": "intentmesh up", "pid": self.stack.process.pid,
                                               "t": round(self.rec.now(), 3),
                                               "status": self.stack.process.returncode})
                self.abort.set()
                break
            now_children = self.stack.children()
            for name, pid in list(known.items()):
                alive = process_info(pid)
                if alive and alive[2] != "Z" and alive[0] == self.stack.process.pid:
                    continue
                with self.lock:
                    expected = pid in self.killed_pids
                if not expected:
                    self.unexpected_deaths.append({"service": name, "pid": pid, "t": round(self.rec.now(), 3)})
                del known[name]
            for name, pid in now_children.items():
                if name not in known:
                    known[name] = pid

    def killer(self):
        cfg = self.config
        rng = random.Random(cfg.seed + 1)
        start = time.monotonic()
        stop_at = start + cfg.duration - cfg.quiet
        next_kill = start + cfg.warmup
        while not self.stop_workload.is_set() and not self.abort.is_set():
            now = time.monotonic()
            if now >= stop_at:
                break
            if now < next_kill:
                time.sleep(min(0.05, next_kill - now))
                continue
            eligible = [d for d in DOMAINS if not self.domain_state[d]["down"]
                        and now - self.domain_state[d]["up_since"] >= cfg.min_uptime]
            if not eligible:
                next_kill = now + 0.25
                continue
            domain = rng.choice(eligible)
            if cfg.aim:
                # Aimed: the kill waits (up to 0.5 s) for a Handle to that domain that has been in
                # flight for a random 0–25 ms (before, during or after its commit), so that kills land
                # where exactly-once matters most.
                age = rng.uniform(0, 0.025)
                aim_until = time.monotonic() + 0.5
                while time.monotonic() < aim_until:
                    with self.lock:
                        started = list(self.in_flight[SHORT[domain]].values())
                    if any(time.monotonic() - t >= age for t in started):
                        break
                    time.sleep(0.0005)
            pid = self.stack.children().get(domain)
            info = process_info(pid) if pid else None
            if not info or info[0] != self.stack.process.pid or info[1] != domain:
                next_kill = now + 0.25
                continue
            with self.lock:
                self.killed_pids.add(pid)
            t_kill = self.rec.now()
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError as error:
                self.failures.append(f"could not SIGKILL {domain} ({pid}): {error}")
                next_kill = now + cfg.kill_every
                continue
            window = {"domain": domain, "pid": pid, "t_kill": round(t_kill, 4), "t_healthy": None, "new_pid": None,
                      "handles_in_flight": len(self.in_flight[SHORT[domain]])}
            with self.lock:
                self.kills.append(window)
                self.windows.append(window)
                self.domain_state[domain]["down"] = True
            threading.Thread(target=self.await_restart, args=(window,), daemon=True).start()
            next_kill += cfg.kill_every
            if next_kill < now:
                next_kill = now + cfg.kill_every

    def await_restart(self, window):
        """The down window: kill → first SERVING health check of the domain, direct on its port, from
        a process other than the one killed."""
        domain = window["domain"]
        address = self.stack.endpoints[domain]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not self.abort.is_set():
            pid = self.stack.children().get(domain)
            if pid and pid != window["pid"] and self.health(address, timeout=0.3):
                t = self.rec.now()
                with self.lock:
                    window["t_healthy"] = round(t, 4)
                    window["new_pid"] = pid
                    self.domain_state[domain]["down"] = False
                    self.domain_state[domain]["up_since"] = time.monotonic()
                return
            time.sleep(0.03)
        with self.lock:
            self.failures.append(f"{domain} did not answer SERVING within 60 s of its SIGKILL at "
                                 f"{window['t_kill']:.2f} s")

    def progress(self):
        last = time.monotonic()
        while not self.stop_workload.wait(0.2):
            if time.monotonic() - last < self.config.progress_every:
                continue
            last = time.monotonic()
            with self.rec.lock:
                calls = sum(self.rec.attempts.values())
                errors = sum(v for (d, k), v in self.rec.attempts.items() if k == "err")
                acked = sum(1 for w in self.rec.writes if w["status"] == "acked")
            down = [SHORT[d] for d in DOMAINS if self.domain_state[d]["down"]]
            say(f"chaos: {self.rec.now() - self.load_began:6.1f} s  calls {calls}  acknowledged writes {acked}  "
                f"call errors {errors}  kills {len(self.kills)}" + (f"  down now: {', '.join(down)}" if down else ""))

    # -- setup -----------------------------------------------------------------------------------

    def make_client(self, name, index=0):
        client = type("Client", (), {})()
        client.name = name
        client.channel = grpc.insecure_channel(self.stack.endpoints["gateway"])
        client.ext = ext_grpc.IntentsExtensionStub(client.channel)
        client.chat = chat_app_grpc.UnicornChatAppStub(client.channel)
        client.pay = pay_app_grpc.UnicornPayAppStub(client.channel)
        client.rides = rides_app_grpc.UnicornRidesAppStub(client.channel)
        client.rng = random.Random(self.config.seed * 1000 + index)
        return client

    def setup(self):
        cfg = self.config
        self.users = [User(i, self.run) for i in range(cfg.users)]
        for user in self.users:
            user.auth = [("authorization", f"Bearer {self.stack.token(user.id)}")]
        for index, user in enumerate(self.users):
            user.friends = [self.users[(index + k) % len(self.users)] for k in range(1, cfg.friends + 1)]
        client = self.make_client("setup")
        budget = 30

        def call(domain, method, callable_, request, user):
            return self.rpc(client, domain, method, callable_, request, user.auth, budget=budget)

        for user in self.users:
            call("messaging", "SignUp", client.chat.SignUp,
                 chat_app.SignUpRequest(display_name=user.name, handle=user.chat_handle), user)
            signed = call("payments", "SignUp", client.pay.SignUp,
                          pay_app.SignUpRequest(display_name=user.name, handle=user.pay_handle, home_currency="USD"),
                          user)
            user.accounts["balance"] = signed.account.identifier
            euro = call("payments", "OpenAccount", client.pay.OpenAccount,
                        pay_app.OpenAccountRequest(nickname="Chaos Euro", type=pay.ACCOUNT_TYPE_PREPAID,
                                                   currency="EUR", make_default=True), user)
            user.accounts["euro"] = euro.account.identifier
            savings = call("payments", "OpenAccount", client.pay.OpenAccount,
                           pay_app.OpenAccountRequest(nickname="Chaos Savings", type=pay.ACCOUNT_TYPE_SAVING,
                                                      currency="USD"), user)
            user.accounts["savings"] = savings.account.identifier
            call("payments", "AddFunds", client.pay.AddFunds,
                 pay_app.AddFundsRequest(account_identifier=user.accounts["balance"],
                                         amount=types.CurrencyAmount(currency_code="USD", units=2000)), user)
            call("payments", "AddFunds", client.pay.AddFunds,
                 pay_app.AddFundsRequest(account_identifier=user.accounts["euro"],
                                         amount=types.CurrencyAmount(currency_code="EUR", units=1000)), user)
            card = types.PaymentMethod(type=types.PaymentMethod.TYPE_DEBIT, name=f"{user.name.split()[0]}'s Card",
                                       identification_hint=f"{4200 + user.index}")
            call("ridebooking", "SignUp", client.rides.SignUp,
                 rides_app.SignUpRequest(display_name=user.name, payment_method=card), user)
        for user in self.users:
            for friend in user.friends:
                call("messaging", "AddContact", client.chat.AddContact,
                     chat_app.AddContactRequest(contact=chat_app.Contact(display_name=friend.name,
                                                                         handle=friend.chat_handle)), user)
                call("payments", "AddPayee", client.pay.AddPayee,
                     pay_app.AddPayeeRequest(payee=pay_app.Payee(display_name=friend.name,
                                                                 handle=friend.pay_handle)), user)
        # The books before the workload: balances, and no payment records yet.
        for user in self.users:
            listed = call("payments", "ListAccounts", client.pay.ListAccounts, pay_app.ListAccountsRequest(), user)
            for account in listed.accounts:
                self.initial_accounts[account.identifier] = {
                    "user": user.id, "nickname": account.nickname, "currency": account.balance.currency_code,
                    "cents": cents(account.balance)}
            records = call("payments", "ListPayments", client.pay.ListPayments,
                           pay_app.ListPaymentsRequest(limit=500), user)
            if records.payments:
                raise SetupError(f"{user.id} has payment records before the workload: {records.payments}")
        client.channel.close()
        import queue
        self.free_riders = queue.Queue()
        for user in self.users:
            self.free_riders.put(user)

    # -- the workload ----------------------------------------------------------------------------

    def take(self, items):
        """Takes room in users' listings ([(user, field, amount, cap)], all or nothing), so that at the
        audit a listing (ListMessages ≤ 500, ListPayments ≤ 500, ListRides ≤ 100) still shows
        everything; False when one of them is full."""
        with self.lock:
            if any(getattr(u, f) + a > cap for u, f, a, cap in items):
                return False
            for u, f, a, _ in items:
                setattr(u, f, getattr(u, f) + a)
            return True

    def op_send_message(self, client):
        rng = client.rng
        sender = rng.choice(self.users)
        recipients = rng.sample(sender.friends, rng.choice([1, 1, 2]))
        if not self.take([(sender, "mailbox", len(recipients), MAILBOX_CAP)] +
                         [(r, "mailbox", 1, MAILBOX_CAP) for r in recipients]):
            self.rec.skipped["message: mailbox full"] += 1
            return
        token = self.token()
        message = chat.SendMessageIntent(recipients=[types.Person(display_name=r.name) for r in recipients],
                                         content=f"chaos {token} says hi")
        self.sirikit_round(client, sender, "messaging", "INSendMessageIntent", message, chat.SendMessageIntentResponse,
                           effect={"kind": "message", "token": token, "recipients": [r.id for r in recipients]})

    def op_search_messages(self, client):
        user = client.rng.choice(self.users)
        who = client.rng.choice(user.friends)
        query = chat.SearchForMessagesIntent(recipients=[types.Person(display_name=who.name)])
        self.sirikit_round(client, user, "messaging", "INSearchForMessagesIntent", query,
                           chat.SearchForMessagesIntentResponse)

    @staticmethod
    def amount(rng, currency, low=100, high=2500):
        value = rng.randrange(low, high)
        return value, types.CurrencyAmount(currency_code=currency, units=value // 100, nanos=(value % 100) * 10_000_000)

    def op_send_payment(self, client):
        rng = client.rng
        payer = rng.choice(self.users)
        payee = rng.choice(payer.friends)
        if not self.take([(payer, "pay_records", 1, PAY_RECORDS_CAP), (payee, "pay_records", 1, PAY_RECORDS_CAP)]):
            self.rec.skipped["payment: records full"] += 1
            return
        currency = "USD" if rng.random() < 0.7 else "EUR"
        value, amount = self.amount(rng, currency)
        token = self.token()
        intent = pay.SendPaymentIntent(payee=types.Person(display_name=payee.name), currency_amount=amount,
                                       note=f"chaos {token}")
        self.sirikit_round(client, payer, "payments", "INSendPaymentIntent", intent, pay.SendPaymentIntentResponse,
                           effect={"kind": "payment", "token": token, "payee": payee.id, "currency": currency,
                                   "cents": value})

    def op_request_and_pay_bill(self, client):
        rng = client.rng
        requester = rng.choice(self.users)
        payer = rng.choice(requester.friends)
        if not self.take([(requester, "pay_records", 2, PAY_RECORDS_CAP), (payer, "pay_records", 1, PAY_RECORDS_CAP)]):
            self.rec.skipped["request: records full"] += 1
            return
        currency = "USD" if rng.random() < 0.7 else "EUR"
        value, amount = self.amount(rng, currency)
        token = self.token()
        note = f"chaos {token}"
        asked = self.sirikit_round(
            client, requester, "payments", "INRequestPaymentIntent",
            pay.RequestPaymentIntent(payer=types.Person(display_name=payer.name), currency_amount=amount, note=note),
            pay.RequestPaymentIntentResponse,
            effect={"kind": "request", "token": token, "payer": payer.id, "currency": currency, "cents": value})
        if not asked or asked[0] != "success":
            return
        try:
            listed = self.rpc(client, "payments", "ListRequests", client.pay.ListRequests,
                              pay_app.ListRequestsRequest(pending_only=True), payer.auth, "ListRequests")
        except CallFailed:
            return
        found = [r for r in listed.requests if r.note == note]
        if len(found) != 1:
            with self.rec.lock:
                self.rec.other_failures.append({"domain": "payments", "method": "ListRequests", "intent": "",
                                                "code": "NOT_LISTED", "t": round(self.rec.now(), 3),
                                                "details": f"acknowledged request {token} listed {len(found)} times"})
            return
        bill = pay.PayBillIntent(
            bill_payee=pay.BillPayee(nickname=types.SpeakableString(spoken_phrase=requester.name,
                                                                    vocabulary_identifier=found[0].identifier)),
            transaction_amount=pay.PaymentAmount(amount_type=pay.AMOUNT_TYPE_AMOUNT_DUE))
        self.sirikit_round(client, payer, "payments", "INPayBillIntent", bill, pay.PayBillIntentResponse,
                           effect={"kind": "bill", "token": token, "requester": requester.id, "currency": currency,
                                   "cents": value, "request": found[0].identifier})

    def op_transfer(self, client):
        rng = client.rng
        user = rng.choice(self.users)
        to_savings = rng.random() < 0.65
        source, target = ("balance", "savings") if to_savings else ("savings", "balance")
        nickname = {"balance": "UnicornPay Balance", "savings": "Chaos Savings"}
        value, amount = self.amount(rng, "USD", 100, 2000)
        token = self.token()

        def account(role):
            return pay.PaymentAccount(nickname=types.SpeakableString(spoken_phrase=nickname[role],
                                                                     vocabulary_identifier=user.accounts[role]))

        intent = pay.TransferMoneyIntent(from_account=account(source), to_account=account(target),
                                         transaction_amount=pay.PaymentAmount(amount=amount),
                                         transaction_note=f"chaos {token}")
        self.sirikit_round(client, user, "payments", "INTransferMoneyIntent", intent, pay.TransferMoneyIntentResponse,
                           effect={"kind": "transfer", "token": token, "from": user.accounts[source],
                                   "to": user.accounts[target], "cents": value})

    def op_search_payments(self, client):
        user = client.rng.choice(self.users)
        if client.rng.random() < 0.5:
            self.sirikit_round(client, user, "payments", "INSearchForAccountsIntent", pay.SearchForAccountsIntent(),
                               pay.SearchForAccountsIntentResponse)
        else:
            self.sirikit_round(client, user, "payments", "INSearchForBillsIntent",
                               pay.SearchForBillsIntent(status=pay.PAYMENT_STATUS_UNPAID),
                               pay.SearchForBillsIntentResponse)

    def op_ride(self, client):
        import queue
        try:
            rider = self.free_riders.get_nowait()
        except queue.Empty:
            self.rec.skipped["ride: every rider busy"] += 1
            return
        try:
            self.ride(client, rider)
        finally:
            self.free_riders.put(rider)

    def ride(self, client, rider):
        rng = client.rng
        if not self.take([(rider, "rides", 1, RIDES_CAP)]):
            self.rec.skipped["ride: rider full"] += 1
            return
        request = rides.RequestRideIntent(pickup_location=types.Placemark(name="300 Post Street"),
                                          drop_off_location=types.Placemark(name="Moscone West"))
        booking = {"kind": "ride"}
        done = self.sirikit_round(client, rider, "ridebooking", "INRequestRideIntent", request,
                                  rides.RequestRideIntentResponse, effect=booking, time_zone="America/Los_Angeles")
        if not done or done[0] != "success":
            return
        ride_id = done[1].ride_status.ride_identifier
        booking["ride"] = ride_id
        if not ride_id:
            with self.rec.lock:
                self.rec.other_failures.append({"domain": "ridebooking", "method": "Handle",
                                                "intent": "INRequestRideIntent", "code": "NO_RIDE_ID",
                                                "details": "success without a ride identifier",
                                                "t": round(self.rec.now(), 3)})
            return
        # On the wall clock (RIDE_CLOCK_SPEED=1) a ride takes minutes: it is followed (its first live
        # update) and cancelled, so that the three drivers are free again. On a faster clock half the
        # rides are followed to their end and rated.
        wall_clock = self.config.ride_clock <= 1
        if wall_clock or rng.random() < 0.45:
            if wall_clock and rng.random() < 0.5:
                self.follow_ride(client, rider, ride_id, first_only=True)
            self.sirikit_round(client, rider, "ridebooking", "INCancelRideIntent",
                               rides.CancelRideIntent(ride_identifier=ride_id), rides.CancelRideIntentResponse,
                               effect={"kind": "cancel", "ride": ride_id}, time_zone="America/Los_Angeles")
            return
        if not self.follow_ride(client, rider, ride_id):
            return
        if rng.random() < 0.6:
            tip_value, tip = self.amount(rng, "USD", 100, 400)
            self.sirikit_round(client, rider, "ridebooking", "INSendRideFeedbackIntent",
                               rides.SendRideFeedbackIntent(ride_identifier=ride_id, rating=rng.randrange(6, 11),
                                                            tip=tip),
                               rides.SendRideFeedbackIntentResponse,
                               effect={"kind": "feedback", "ride": ride_id, "tip_cents": tip_value},
                               time_zone="America/Los_Angeles")

    def follow_ride(self, client, rider, ride_id, first_only=False):
        """Live updates of the ride through the gateway until it completes (a broken stream is
        opened again), or only its first update; True when it completed (or the first came)."""
        deadline = time.monotonic() + 25
        delay = 0.05
        while time.monotonic() < deadline and not self.abort.is_set():
            request = ext_pb2.StartSendingUpdatesRequest(
                context=intent_pb2.RequestContext(time_zone="America/Los_Angeles"),
                intent=self.intent("INGetRideStatusIntent", rides.GetRideStatusIntent(), APP["ridebooking"]))
            t0 = self.rec.now()
            ours = threading.Event()  # set when this harness ends the stream itself (the load is over)
            try:
                updates = client.ext.StartSendingUpdates(request, metadata=rider.auth,
                                                         timeout=max(1.0, deadline - time.monotonic()))

                def end_at_stop(updates=updates, ours=ours):
                    while not self.stop_workload.wait(0.2):
                        if updates.done():
                            return
                    ours.set()
                    updates.cancel()

                threading.Thread(target=end_at_stop, daemon=True).start()
                for update in updates:
                    answer = rides.GetRideStatusIntentResponse()
                    update.response.payload.Unpack(answer)
                    if answer.ride_status.ride_identifier != ride_id:
                        continue
                    if first_only:
                        updates.cancel()
                        self.rec.ok("ridebooking")
                        self.rec.round_outcome("follow INGetRideStatusIntent", "first update")
                        return True
                    if answer.ride_status.phase == rides.RIDE_PHASE_COMPLETED:
                        updates.cancel()
                        self.rec.ok("ridebooking")
                        self.rec.round_outcome("follow INGetRideStatusIntent", "completed")
                        return True
                self.rec.ok("ridebooking")
                self.rec.round_outcome("follow INGetRideStatusIntent", "ended")
                return False
            except grpc.RpcError as error:
                if ours.is_set():
                    self.rec.round_outcome("follow INGetRideStatusIntent", "ended by the harness (load over)")
                    return False
                if error.code() == grpc.StatusCode.DEADLINE_EXCEEDED and time.monotonic() >= deadline - 0.5:
                    break  # the follow's own time limit, not a failure of the service
                code = error.code().name if error.code() else "UNKNOWN"
                self.rec.error("ridebooking", "StartSendingUpdates", t0, self.rec.now(), code, error.details(),
                               client.name, "INGetRideStatusIntent")
                if code not in RETRYABLE:
                    with self.rec.lock:
                        self.rec.other_failures.append({"domain": "ridebooking", "method": "StartSendingUpdates",
                                                        "intent": "INGetRideStatusIntent", "code": code,
                                                        "details": (error.details() or "")[:300],
                                                        "t": round(self.rec.now(), 3)})
                    return False
                time.sleep(delay)
                delay = min(delay * 2, 0.5)
        self.rec.round_outcome("follow INGetRideStatusIntent", "gave up")
        return False

    def op_ride_status(self, client):
        rider = client.rng.choice(self.users)
        self.sirikit_round(client, rider, "ridebooking", "INGetRideStatusIntent", rides.GetRideStatusIntent(),
                           rides.GetRideStatusIntentResponse, time_zone="America/Los_Angeles")

    @staticmethod
    def spoken(text):
        return types.SpeakableString(spoken_phrase=text)

    def op_create_note(self, client):
        user = client.rng.choice(self.users)
        token = self.token()
        title = f"Note {token}"
        made = notes.CreateNoteIntent(title=self.spoken(title), content=notes.NoteContent(text=f"first {token}"))
        done = self.sirikit_round(client, user, "notes", "INCreateNoteIntent", made, notes.CreateNoteIntentResponse,
                                  effect={"kind": "note", "token": token, "title": title})
        if done and done[0] == "success":
            with self.lock:
                self.notes_by_user[user.id].append(title)

    def op_append(self, client):
        user = client.rng.choice(self.users)
        with self.lock:
            titles = list(self.notes_by_user[user.id])
        if not titles:
            return self.op_create_note(client)
        title = client.rng.choice(titles)
        token = self.token()
        append = notes.AppendToNoteIntent(target_note=notes.Note(title=self.spoken(title)),
                                          content=notes.NoteContent(text=f"more {token}"))
        self.sirikit_round(client, user, "notes", "INAppendToNoteIntent", append, notes.AppendToNoteIntentResponse,
                           effect={"kind": "append", "token": token, "title": title})

    def op_reminder(self, client):
        user = client.rng.choice(self.users)
        token = self.token()
        day = datetime.date.today() + datetime.timedelta(days=2)
        title = f"Remind {token}"
        add = notes.AddTasksIntent(
            task_titles=[self.spoken(title)],
            temporal_event_trigger=notes.TemporalEventTrigger(date_components_range=types.DateComponentsRange(
                start_date_components=types.DateComponents(year=day.year, month=day.month, day=day.day, hour=17))))
        self.sirikit_round(client, user, "notes", "INAddTasksIntent", add, notes.AddTasksIntentResponse,
                           effect={"kind": "reminder", "token": token, "title": title})

    def op_task_list(self, client):
        user = client.rng.choice(self.users)
        token = self.token()
        title = f"List {token}"
        items = [f"Item {token} a", f"Item {token} b"]
        made = notes.CreateTaskListIntent(title=self.spoken(title), task_titles=[self.spoken(t) for t in items])
        self.sirikit_round(client, user, "notes", "INCreateTaskListIntent", made, notes.CreateTaskListIntentResponse,
                           effect={"kind": "list", "token": token, "title": title, "items": items})

    def op_search_notes(self, client):
        user = client.rng.choice(self.users)
        with self.lock:
            titles = list(self.notes_by_user[user.id])
        query = notes.SearchForNotebookItemsIntent(title=self.spoken(client.rng.choice(titles))) if titles else \
            notes.SearchForNotebookItemsIntent(item_type=notes.NOTEBOOK_ITEM_TYPE_TASK_LIST)
        self.sirikit_round(client, user, "notes", "INSearchForNotebookItemsIntent", query,
                           notes.SearchForNotebookItemsIntentResponse)

    def client_loop(self, index):
        client = self.make_client(f"client-{index}", index + 1)
        operations = [
            (self.op_send_message, 3), (self.op_search_messages, 1),
            (self.op_send_payment, 3), (self.op_request_and_pay_bill, 1.2), (self.op_transfer, 1.5),
            (self.op_search_payments, 1),
            (self.op_ride, 1.5), (self.op_ride_status, 0.5),
            (self.op_create_note, 1.5), (self.op_append, 1), (self.op_reminder, 1.5), (self.op_task_list, 1),
            (self.op_search_notes, 1),
        ]
        functions = [f for f, _ in operations]
        weights = [w for _, w in operations]
        try:
            while not self.stop_workload.is_set() and not self.abort.is_set():
                operation = client.rng.choices(functions, weights)[0]
                try:
                    operation(client)
                except Stopping:
                    return
                except Exception:  # a harness bug: keep the evidence, go on
                    with self.rec.lock:
                        self.rec.other_failures.append({"domain": "harness", "method": operation.__name__,
                                                        "intent": "", "code": "EXCEPTION",
                                                        "details": traceback.format_exc()[-1500:],
                                                        "t": round(self.rec.now(), 3)})
                if self.config.think:
                    time.sleep(self.config.think)
        finally:
            client.channel.close()

    # -- the audit -------------------------------------------------------------------------------

    def audit_stores(self):
        client = self.make_client("audit")
        budget = 60

        def call(domain, method, callable_, request, user):
            return self.rpc(client, domain, method, callable_, request, user.auth, budget=budget)

        mailbox, payments, requests, accounts, ride_lists, charges, notebooks = {}, {}, {}, {}, {}, {}, {}
        incomplete = []
        for user in self.users:
            listed = call("messaging", "ListMessages", client.chat.ListMessages,
                          chat_app.ListMessagesRequest(limit=500), user).messages
            if len(listed) >= 500:
                incomplete.append(f"{user.id}: ListMessages hit its limit of 500")
            mailbox[user.id] = listed
            listed = call("payments", "ListPayments", client.pay.ListPayments,
                          pay_app.ListPaymentsRequest(limit=500), user).payments
            if len(listed) >= 500:
                incomplete.append(f"{user.id}: ListPayments hit its limit of 500")
            payments[user.id] = listed
            requests[user.id] = call("payments", "ListRequests", client.pay.ListRequests,
                                     pay_app.ListRequestsRequest(), user).requests
            accounts[user.id] = call("payments", "ListAccounts", client.pay.ListAccounts,
                                     pay_app.ListAccountsRequest(), user).accounts
            listed = call("ridebooking", "ListRides", client.rides.ListRides, rides_app.ListRidesRequest(limit=100),
                          user).rides
            if len(listed) >= 100:
                incomplete.append(f"{user.id}: ListRides hit its limit of 100")
            ride_lists[user.id] = listed
            charges[user.id] = call("ridebooking", "ListCharges", client.rides.ListCharges,
                                    rides_app.ListChargesRequest(), user).charges
            found = self.sirikit_round(client, user, "notes", "INSearchForNotebookItemsIntent",
                                       notes.SearchForNotebookItemsIntent(), notes.SearchForNotebookItemsIntentResponse)
            if not found or found[0] != "success":
                raise SetupError(f"the audit could not read {user.id}'s notebook: {found and found[0]}")
            notebooks[user.id] = found[1]
        client.channel.close()
        return self.check(mailbox, payments, requests, accounts, ride_lists, charges, notebooks, incomplete)

    def check(self, mailbox, payments, requests, accounts, ride_lists, charges, notebooks, incomplete):
        problems = collections.defaultdict(list)  # category → [details]
        stats = collections.Counter()

        def count_tokens(texts):
            counted = collections.Counter()
            for text in texts:
                for token in set(TOKEN_RE.findall(text)):
                    counted[token] += 1
            return counted

        in_mailbox = {uid: count_tokens(m.content for m in msgs) for uid, msgs in mailbox.items()}
        sent = {uid: count_tokens(p.note for p in ps if p.direction == pay_app.PAYMENT_DIRECTION_SENT)
                for uid, ps in payments.items()}
        received = {uid: count_tokens(p.note for p in ps if p.direction == pay_app.PAYMENT_DIRECTION_RECEIVED)
                    for uid, ps in payments.items()}
        requested = {uid: count_tokens(p.note for p in ps if p.direction == pay_app.PAYMENT_DIRECTION_REQUESTED)
                     for uid, ps in payments.items()}
        asked_of = {uid: count_tokens(r.note for r in rs) for uid, rs in requests.items()}
        request_status = {}
        for uid, rs in requests.items():
            for r in rs:
                for token in TOKEN_RE.findall(r.note):
                    request_status[token] = r.status
        note_titles = {uid: collections.Counter(n.title.spoken_phrase for n in nb.notes) for uid, nb in notebooks.items()}
        note_text = {uid: {n.title.spoken_phrase: "\n".join(c.text for c in n.contents) for n in nb.notes}
                     for uid, nb in notebooks.items()}
        task_titles = {uid: collections.Counter(t.title.spoken_phrase for t in nb.tasks) for uid, nb in notebooks.items()}
        list_titles = {uid: collections.Counter(l.title.spoken_phrase for l in nb.task_lists)
                       for uid, nb in notebooks.items()}
        list_items = {uid: {l.title.spoken_phrase: [t.title.spoken_phrase for t in l.tasks] for l in nb.task_lists}
                      for uid, nb in notebooks.items()}
        rides_by_id = {}
        for uid, listed in ride_lists.items():
            for ride in listed:
                rides_by_id.setdefault(ride.status.ride_identifier, []).append((uid, ride))
        charge_counts = collections.Counter()
        charge_amounts = collections.defaultdict(list)
        for uid, listed in charges.items():
            for charge in listed:
                charge_counts[(charge.ride_identifier, charge.kind)] += 1
                charge_amounts[(charge.ride_identifier, charge.kind)].append(cents(charge.amount))

        def expect(write, observed, acked_expected):
            """observed: {place: count}. Acknowledged: each place exactly its expected count; refused or
            never sent: nothing anywhere; unacknowledged: nothing or exactly the expected everywhere
            (all or nothing)."""
            status = write["status"]
            stats[f"{write['kind']} {status}"] += 1
            values = list(observed.values())
            expected = acked_expected
            if status == "acked":
                for place, n in observed.items():
                    want = expected[place]
                    if n < want:
                        problems["lost"].append(dict(write, place=place, found=n, expected=want))
                    elif n > want:
                        problems["duplicated"].append(dict(write, place=place, found=n, expected=want))
            elif status in ("refused", "not_sent"):
                if any(values):
                    problems["applied although refused or never sent"].append(dict(write, found=observed))
            else:  # unacked: may or may not have been applied, at most once, whole
                if any(n > expected[p] for p, n in observed.items()):
                    problems["duplicated"].append(dict(write, found=observed, expected=expected))
                elif any(values) and any(n != expected[p] for p, n in observed.items()):
                    problems["partly applied"].append(dict(write, found=observed, expected=expected))
                elif any(values):
                    stats["unacknowledged but applied (once)"] += 1

        transfers_unacked = collections.defaultdict(list)  # user → [(from, to, cents, id)]
        transfer_delta = collections.Counter()  # account → cents (acknowledged transfers)
        for write in self.rec.writes:
            kind, uid, token = write["kind"], write["user"], write.get("token")
            if kind == "message":
                observed = {f"{uid} (sender)": in_mailbox[uid][token]}
                expected = {f"{uid} (sender)": len(write["recipients"])}
                for r in write["recipients"]:
                    observed[r] = in_mailbox[r][token]
                    expected[r] = 1
                expect(write, observed, expected)
                elsewhere = {other: counts[token] for other, counts in in_mailbox.items()
                             if counts[token] and other != uid and other not in write["recipients"]}
                if elsewhere:
                    problems["misdelivered"].append(dict(write, found=elsewhere))
            elif kind == "payment":
                expect(write, {f"{uid} sent": sent[uid][token], f"{write['payee']} received":
                               received[write["payee"]][token]},
                       {f"{uid} sent": 1, f"{write['payee']} received": 1})
                elsewhere = {other: sent[other][token] + received[other][token] for other in sent
                             if other not in (uid, write["payee"]) and sent[other][token] + received[other][token]}
                if elsewhere:
                    problems["misdelivered"].append(dict(write, found=elsewhere))
            elif kind == "request":
                expect(write, {f"{uid} requested": requested[uid][token], f"{write['payer']} asked":
                               asked_of[write["payer"]][token]},
                       {f"{uid} requested": 1, f"{write['payer']} asked": 1})
            elif kind == "bill":
                observed = {f"{uid} sent": sent[uid][token], f"{write['requester']} received":
                            received[write["requester"]][token]}
                expect(write, observed, {f"{uid} sent": 1, f"{write['requester']} received": 1})
                paid = request_status.get(token) == pay.PAYMENT_STATUS_COMPLETED
                if paid != bool(observed[f"{uid} sent"]):
                    problems["inconsistent"].append(dict(write, found=observed,
                                                         request_status=pay.PaymentStatus.Name(
                                                             request_status.get(token, 0))))
            elif kind == "transfer":
                stats[f"transfer {write['status']}"] += 1
                if write["status"] == "acked":
                    transfer_delta[write["from"]] -= write["cents"]
                    transfer_delta[write["to"]] += write["cents"]
                elif write["status"] == "unacked":
                    transfers_unacked[uid].append(write)
            elif kind == "note":
                expect(write, {uid: note_titles[uid][write["title"]]}, {uid: 1})
            elif kind == "append":
                text = note_text[uid].get(write["title"], "")
                expect(write, {f"{uid} {write['title']}": text.count(token)}, {f"{uid} {write['title']}": 1})
            elif kind == "reminder":
                expect(write, {uid: task_titles[uid][write["title"]]}, {uid: 1})
            elif kind == "list":
                observed = {f"{uid} list": list_titles[uid][write["title"]]}
                for item in write["items"]:
                    observed[f"{uid} task {item[-1]}"] = task_titles[uid][item]
                expect(write, observed, {k: 1 for k in observed})
                items = list_items[uid].get(write["title"])
                if items is not None and sorted(items) != sorted(write["items"]):
                    problems["inconsistent"].append(dict(write, found_items=items))
            elif kind == "ride":
                stats[f"ride {write['status']}"] += 1
                if write["status"] == "acked":
                    listed = [x for x in rides_by_id.get(write.get("ride", ""), []) if x[0] == uid]
                    if not listed:
                        problems["lost"].append(dict(write, found=0, expected=1))
                    elif len(listed) > 1:
                        problems["duplicated"].append(dict(write, found=len(listed), expected=1))
            elif kind == "cancel":
                stats[f"cancel {write['status']}"] += 1
                listed = [x for x in rides_by_id.get(write["ride"], []) if x[0] == uid]
                outcome = listed[0][1].status.completion_status.outcome if listed else None
                canceled = outcome == rides.RideCompletionStatus.OUTCOME_CANCELED_BY_USER
                if write["status"] == "acked" and not canceled:
                    lost = dict(write, found_outcome=outcome,
                                found_phase=listed[0][1].status.phase if listed else None)
                    problems["lost"].append(lost)
                elif write["status"] in ("refused", "not_sent") and canceled:
                    problems["applied although refused or never sent"].append(dict(write, found_outcome=outcome))
            elif kind == "feedback":
                n = charge_counts[(write["ride"], rides_app.CHARGE_KIND_TIP)]
                expect(write, {f"{uid} tip": n}, {f"{uid} tip": 1})
                if write["status"] == "acked" and n == 1 and \
                        charge_amounts[(write["ride"], rides_app.CHARGE_KIND_TIP)] != [write["tip_cents"]]:
                    problems["inconsistent"].append(dict(write, found_tip=charge_amounts[
                        (write["ride"], rides_app.CHARGE_KIND_TIP)]))

        # Rides: no more rides than bookings that may have booked one; at most one charge of a kind.
        for user in self.users:
            bookings = [w for w in self.rec.writes if w["kind"] == "ride" and w["user"] == user.id]
            may_have = sum(1 for w in bookings if w["status"] in ("acked", "unacked"))
            if len(ride_lists[user.id]) > may_have:
                problems["duplicated"].append({"kind": "ride", "user": user.id, "rides_listed": len(ride_lists[user.id]),
                                               "bookings_acked_or_unacked": may_have})
            for ride in ride_lists[user.id]:
                status = ride.status
                if status.phase == rides.RIDE_PHASE_COMPLETED and \
                        status.completion_status.outcome == rides.RideCompletionStatus.OUTCOME_COMPLETED and \
                        charge_counts[(status.ride_identifier, rides_app.CHARGE_KIND_FARE)] != 1:
                    problems["inconsistent"].append({"kind": "fare", "user": user.id, "ride": status.ride_identifier,
                                                     "fares": charge_counts[(status.ride_identifier,
                                                                             rides_app.CHARGE_KIND_FARE)]})
        for (ride_id, kind), n in charge_counts.items():
            if n > 1:
                problems["duplicated"].append({"kind": f"charge {rides_app.ChargeKind.Name(kind)}", "ride": ride_id,
                                               "found": n})

        # Money: per currency the same total as before the workload; no account below zero; every
        # account's balance explained by the payments it lists and the transfers made.
        final = {}
        for uid, listed in accounts.items():
            for account in listed:
                final[account.identifier] = {"user": uid, "nickname": account.nickname,
                                             "currency": account.balance.currency_code, "cents": cents(account.balance)}
        money = {}
        for currency in sorted({a["currency"] for a in list(final.values()) + list(self.initial_accounts.values())}):
            before = sum(a["cents"] for a in self.initial_accounts.values() if a["currency"] == currency)
            after = sum(a["cents"] for a in final.values() if a["currency"] == currency)
            money[currency] = {"before": before, "after": after}
            if before != after:
                problems["money not conserved"].append({"currency": currency, "before": before, "after": after})
        for identifier, account in final.items():
            if account["cents"] < 0:
                problems["account below its limit"].append(dict(account, account=identifier))
            if identifier not in self.initial_accounts:
                problems["unexpected account"].append(dict(account, account=identifier))
        record_delta = collections.Counter()
        for uid, listed in payments.items():
            for p in listed:
                if p.direction == pay_app.PAYMENT_DIRECTION_SENT:
                    record_delta[p.account_identifier] -= cents(p.amount)
                elif p.direction == pay_app.PAYMENT_DIRECTION_RECEIVED:
                    record_delta[p.account_identifier] += cents(p.amount)
        for user in self.users:
            mine = [a for a, v in self.initial_accounts.items() if v["user"] == user.id]
            residual = {a: final.get(a, {"cents": 0})["cents"] - self.initial_accounts[a]["cents"]
                        - record_delta[a] - transfer_delta[a] for a in mine}
            if all(v == 0 for v in residual.values()):
                continue
            subset = explain(residual, transfers_unacked[user.id])
            if subset is None:
                problems["balance not explained"].append({
                    "user": user.id, "residual_cents": {self.initial_accounts[a]["nickname"]: v
                                                        for a, v in residual.items()},
                    "unacknowledged_transfers": [(w["id"], w["cents"]) for w in transfers_unacked[user.id]]})
            else:
                stats["unacknowledged transfers applied (once)"] += len(subset)

        return {"problems": {k: v for k, v in problems.items()}, "stats": dict(stats), "money": money,
                "incomplete": incomplete,
                "counts": {"messages_listed": sum(len(v) for v in mailbox.values()),
                           "payment_records_listed": sum(len(v) for v in payments.values()),
                           "requests_listed": sum(len(v) for v in requests.values()),
                           "rides_listed": sum(len(v) for v in ride_lists.values()),
                           "charges_listed": sum(len(v) for v in charges.values()),
                           "notes_listed": sum(len(nb.notes) for nb in notebooks.values()),
                           "tasks_listed": sum(len(nb.tasks) for nb in notebooks.values()),
                           "task_lists_listed": sum(len(nb.task_lists) for nb in notebooks.values())}}

    # -- the run ---------------------------------------------------------------------------------

    def classify_errors(self):
        """Every failed attempt by domain: while that domain was down (inside a kill → SERVING window),
        while it was recovering (within GRACE after), or while it was up; an error of a domain that
        was up while another was down is an other-domain error."""
        windows = [(w["domain"], w["t_kill"], w["t_healthy"] if w["t_healthy"] is not None else float("inf"))
                   for w in self.windows]
        table = collections.defaultdict(collections.Counter)
        other = []
        for e in self.rec.errors:
            domain = e["domain"]
            full = {v: k for k, v in SHORT.items()}[domain]
            own = [w for w in windows if w[0] == full and w[1] <= e["t1"] and e["t0"] <= w[2]]
            recovering = [w for w in windows if w[0] == full and w[2] < e["t0"] <= w[2] + self.config.grace]
            others = [w for w in windows if w[0] != full and w[1] <= e["t1"] and e["t0"] <= w[2]]
            if own:
                table[domain]["down"] += 1
            elif recovering:
                table[domain]["recovering"] += 1
            else:
                table[domain]["up"] += 1
                if others:
                    other.append(dict(e, while_down=sorted({SHORT[w[0]] for w in others})))
        return table, other

    def log_deaths(self):
        """The supervisor's account of deaths: every line that says a service died, against the kills."""
        text = self.stack.log()
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

    def execute(self):
        cfg = self.config
        self.import_stubs()
        say(f"chaos: starting intentmesh up from {cfg.bin} (data {self.stack.data})")
        self.stack.start()
        self.phase = "setup"
        setup_began = time.monotonic()
        self.setup()
        say(f"chaos: {len(self.users)} users signed up, funded and introduced in "
            f"{time.monotonic() - setup_began:.1f} s; {cfg.duration:.0f} s of load from {cfg.clients} clients, "
            f"a SIGKILL every {cfg.kill_every:g} s (seed {cfg.seed}, run {self.run})")
        for domain in DOMAINS:
            self.domain_state[domain] = {"down": False, "up_since": time.monotonic() - cfg.min_uptime}
        self.phase = "load"
        self.load_began = self.rec.now()
        watcher = threading.Thread(target=self.watcher, daemon=True)
        watcher.start()
        threads = [threading.Thread(target=self.client_loop, args=(i,), daemon=True) for i in range(cfg.clients)]
        for thread in threads:
            thread.start()
        killer = threading.Thread(target=self.killer, daemon=True)
        killer.start()
        progress = threading.Thread(target=self.progress, daemon=True)
        progress.start()
        end = time.monotonic() + cfg.duration
        while time.monotonic() < end and not self.abort.is_set():
            time.sleep(0.1)
        self.stop_workload.set()
        killer.join()
        drain_deadline = time.monotonic() + cfg.retry_budget * 3 + 30
        for thread in threads:
            thread.join(max(0.1, drain_deadline - time.monotonic()))
        stuck = [t for t in threads if t.is_alive()]
        if stuck:
            self.failures.append(f"{len(stuck)} client threads did not finish within the drain time")
            self.abort.set()
        self.load_ended = self.rec.now()
        progress.join()
        self.phase = "audit"
        still_down = self.wait_healthy(DOMAINS, 60)
        if still_down:
            self.failures.append(f"not SERVING 60 s after the load: {still_down}")
        unrecovered = [w for w in self.windows if w["t_healthy"] is None]
        for w in unrecovered:
            self.failures.append(f"{w['domain']} killed at {w['t_kill']:.2f} s never answered SERVING again")
        if self.abort.is_set():
            raise SetupError("aborted: " + "; ".join(self.failures + [str(d) for d in self.unexpected_deaths]))
        say("chaos: load done; auditing the stores through the gateway")
        audit_began = time.monotonic()
        self.audit = self.audit_stores()
        self.audit["seconds"] = round(time.monotonic() - audit_began, 1)
        # RSS at the end, of every process the stack runs (and of this harness).
        self.rss = {"intentmesh up": rss_kib(self.stack.process.pid)}
        for name, pid in sorted(self.stack.children().items()):
            self.rss[name] = rss_kib(pid)
        self.rss["harness (python)"] = rss_kib(os.getpid())
        self.phase = "stopping"
        watcher.join(2)
        status, clean = self.stack.stop()
        if status != 0 or not clean:
            self.failures.append(f"intentmesh up did not stop cleanly on SIGINT (status {status})")

    # -- the report ------------------------------------------------------------------------------

    def summarize(self):
        cfg = self.config
        table, other = self.classify_errors()
        died_in_log, strange = self.log_deaths()
        kills_by_domain = collections.Counter(w["domain"] for w in self.kills)
        for domain in DOMAINS:
            if died_in_log[domain] != kills_by_domain[domain]:
                strange.append(f"{domain}: the supervisor reports {died_in_log[domain]} SIGKILL deaths, the killer "
                               f"made {kills_by_domain[domain]}")
        writes = self.rec.writes
        statuses = collections.Counter(w["status"] for w in writes)
        problems = self.audit.get("problems", {})
        lost = len(problems.get("lost", []))
        duplicated = len(problems.get("duplicated", []))
        verdicts = []
        if lost:
            verdicts.append(f"lost {lost}")
        if duplicated:
            verdicts.append(f"duplicated {duplicated}")
        for category in ("partly applied", "applied although refused or never sent", "inconsistent", "misdelivered",
                         "money not conserved", "account below its limit", "balance not explained",
                         "unexpected account"):
            if problems.get(category):
                verdicts.append(f"{category}: {len(problems[category])}")
        if self.audit.get("incomplete"):
            verdicts.append(f"audit incomplete: {self.audit['incomplete']}")
        if other:
            verdicts.append(f"other-domain errors while one was down: {len(other)}")
        if self.unexpected_deaths:
            verdicts.append(f"unexpected deaths: {self.unexpected_deaths}")
        if strange:
            verdicts.append(f"supervisor log: {strange}")
        verdicts += self.failures
        downs = [w["t_healthy"] - w["t_kill"] for w in self.windows if w["t_healthy"] is not None]
        latency = {}
        for intent in sorted(self.rec.latency):
            values = sorted(self.rec.latency[intent])
            handle = sorted(self.rec.handle_latency[intent])
            latency[intent] = {"n": len(values), "p50_ms": ms(pct(values, 50)), "p99_ms": ms(pct(values, 99)),
                               "max_ms": ms(values[-1]), "handle_p50_ms": ms(pct(handle, 50)),
                               "handle_p99_ms": ms(pct(handle, 99))}
        calls = sum(self.rec.attempts.values())
        summary = {
            "started_at": self.started_at, "run": self.run, "seed": cfg.seed,
            "config": {k: v for k, v in cfg.as_dict().items() if k not in ("bin",)} | {"bin": cfg.bin},
            "endpoints": self.stack.endpoints, "data": self.stack.data,
            "load_seconds": round(self.load_ended - self.load_began, 1) if hasattr(self, "load_ended") else None,
            "rpc_attempts": calls,
            "rpc_attempts_by_domain": {d: {"ok": self.rec.attempts[(d, "ok")], "err": self.rec.attempts[(d, "err")]}
                                       for d in sorted({d for d, _ in self.rec.attempts})},
            "rounds": {f"{i} {o}": n for (i, o), n in sorted(self.rec.rounds.items())},
            "writes": dict(statuses), "acknowledged_writes": statuses["acked"],
            "replayed_acknowledgements": self.rec.replayed,
            "lost": lost, "duplicated": duplicated,
            "errors_by_domain": {d: dict(c) for d, c in sorted(table.items())},
            "error_codes": {f"{d} {c}": n for (d, c), n in sorted(self.rec.error_codes.items())},
            "calls_out_of_budget": {f"{d} {m}": n for (d, m), n in sorted(self.rec.calls_failed.items())},
            "other_domain_errors_while_down": other,
            "non_transport_errors": self.rec.other_failures,
            "kills": self.kills, "kills_by_domain": dict(kills_by_domain),
            "down_seconds": {"n": len(downs), "p50": round(pct(sorted(downs), 50), 3) if downs else None,
                             "max": round(max(downs), 3) if downs else None},
            "latency": latency, "rss_kib": self.rss, "unexpected_deaths": self.unexpected_deaths,
            "supervisor_deaths": dict(died_in_log), "supervisor_strange": strange,
            "skipped": dict(self.rec.skipped), "audit": self.audit, "failures": verdicts,
            "passed": not verdicts,
            "writes_detail": writes,
            "errors_detail": self.rec.errors[:5000],
        }
        return summary

    def print_summary(self, s):
        lines = []
        add = lines.append
        add("")
        add(f"chaos: {s['load_seconds']} s of load, {self.config.clients} clients, {len(self.users)} users, "
            f"seed {s['seed']}")
        w = s["writes"]
        add(f"  calls made (RPC attempts)        {s['rpc_attempts']}")
        add(f"  intents attempted                {sum(n for k, n in s['rounds'].items() if not k.startswith('follow'))}")
        add(f"  acknowledged writes              {s['acknowledged_writes']}  (of them {s['replayed_acknowledgements']} "
            f"answered by a replay after a retry)")
        add(f"  writes refused by the domain     {w.get('refused', 0) + w.get('not_sent', 0)}  (business answers: "
            f"no driver, insufficient funds, …; nothing may be applied)")
        add(f"  writes never acknowledged        {w.get('unacked', 0)}  (retry budget spent; at most once)")
        add(f"  lost (must be 0)                 {s['lost']}")
        add(f"  duplicated (must be 0)           {s['duplicated']}")
        add(f"  kills (SIGKILL)                  {len(s['kills'])}  {s['kills_by_domain']}; down p50 "
            f"{s['down_seconds']['p50']} s, max {s['down_seconds']['max']} s")
        add("  errors per domain (failed attempts)  while down / recovering (≤ GRACE after) / while up")
        for domain in ("messaging", "payments", "ridebooking", "notes", "gateway"):
            c = s["errors_by_domain"].get(domain, {})
            if c or domain != "gateway":
                add(f"    {domain:<12} {c.get('down', 0):>6} / {c.get('recovering', 0):>4} / {c.get('up', 0):>4}")
        add(f"  other domains' errors while one was down (must be 0)  {len(s['other_domain_errors_while_down'])}")
        if s["calls_out_of_budget"]:
            add(f"  calls that ran out of retry budget  {s['calls_out_of_budget']}")
        add(f"  non-transport errors             {len(s['non_transport_errors'])}")
        money = s["audit"].get("money", {})
        add("  money per currency (cents)       " + ", ".join(
            f"{c} {v['before']} → {v['after']}" for c, v in money.items()))
        add("  latency per intent (acknowledged rounds: Resolve+Confirm+Handle incl. retries)")
        add(f"    {'intent':<32} {'n':>5} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  {'Handle p50/p99 ms':>18}")
        for intent, v in s["latency"].items():
            add(f"    {intent:<32} {v['n']:>5} {v['p50_ms']:>8} {v['p99_ms']:>8} {v['max_ms']:>8}  "
                f"{v['handle_p50_ms']:>8} / {v['handle_p99_ms']:<8}")
        add("  RSS at the end (MiB)             " + ", ".join(
            f"{k} {v / 1024:.1f}" for k, v in s["rss_kib"].items() if v))
        if s["failures"]:
            add("chaos: FAILED")
            for failure in s["failures"]:
                add(f"  - {str(failure)[:2000]}")
            for category, items in s["audit"].get("problems", {}).items():
                for item in items[:10]:
                    add(f"    {category}: {json.dumps(item, default=str)[:600]}")
        else:
            add("chaos: passed (every acknowledged write present exactly once, money conserved, "
                "no other domain hurt)")
        say("\n".join(lines))


def explain(residual, unacked):
    """A subset of the unacknowledged transfers (each at most once) whose movements make up the
    residual of every account, or None."""
    if len(unacked) > 20:
        return None
    for size in range(0, len(unacked) + 1):
        from itertools import combinations
        for chosen in combinations(unacked, size):
            delta = collections.Counter()
            for w in chosen:
                delta[w["from"]] -= w["cents"]
                delta[w["to"]] += w["cents"]
            if all(delta[a] == v for a, v in residual.items()):
                return list(chosen)
    return None


def cents(amount):
    return amount.units * 100 + amount.nanos // 10_000_000


def pct(values, p):
    if not values:
        return 0.0
    index = min(len(values) - 1, max(0, math.ceil(p / 100 * len(values)) - 1))
    return values[index]


def ms(seconds):
    return round(seconds * 1000, 1)


def main():
    config = Config(sys.argv[1:])
    if config.postgres:
        say("chaos: --postgres is not there yet: the harness runs the stack on SQLite only "
            "(`intentmesh up` keeps one SQLite file per domain)")
        return 2
    if not config.bin:
        say("chaos: no --bin given")
        return 2
    work = config.work or tempfile.mkdtemp(prefix="chaos-")
    chaos = Chaos(config, work)

    def interrupted(signum, frame):
        # Once: a second signal (Ctrl-C reaches this process and scripts/chaos, which then sends
        # SIGTERM) must not interrupt the cleanup it started.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise KeyboardInterrupt()

    # Started in the background by scripts/chaos, this process has SIGINT ignored: both stop it
    # the same way, through the cleanup below.
    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)

    def hard_stop():
        say(f"chaos: hard deadline of {config.hard_deadline:.0f} s passed: stopping everything")
        chaos.abort.set()
        try:
            chaos.stack.stop(timeout=10)
        finally:
            os._exit(3)

    watchdog = threading.Timer(config.hard_deadline, hard_stop)
    watchdog.daemon = True
    watchdog.start()
    status = 0
    summary = None
    try:
        chaos.execute()
        summary = chaos.summarize()
        chaos.print_summary(summary)
        status = 0 if summary["passed"] else 1
    except SetupError as error:
        say(f"chaos: could not run: {error}")
        status = 2
    except KeyboardInterrupt:
        say("chaos: interrupted")
        status = 130
    except Exception:
        say("chaos: harness error:\n" + traceback.format_exc())
        status = 2
    finally:
        chaos.abort.set()
        chaos.stop_workload.set()
        if chaos.stack.process is not None and chaos.stack.process.poll() is None:
            chaos.stack.stop()
        watchdog.cancel()
    if summary is None:
        try:
            summary = chaos.summarize()
            summary["passed"] = False
            summary["failures"].append(f"the run did not complete (exit status {status})")
        except Exception:
            summary = {"passed": False, "failures": [f"the run did not complete (exit status {status})"],
                       "log": chaos.stack.log()[-5000:]}
    os.makedirs(os.path.dirname(config.report), exist_ok=True)
    with open(config.report, "w") as f:
        json.dump(summary, f, indent=1, default=str)
    shutil_copy(chaos.stack.log_path, re.sub(r"\.json$", "", config.report) + ".up.log")
    say(f"chaos: report in {os.path.relpath(config.report, os.getcwd()) if config.report.startswith(os.getcwd()) else config.report}")
    if status != 0 or config.keep:
        say(f"chaos: data and logs kept in {chaos.stack.data}")
        with open(os.path.join(work, "keep"), "w") as f:
            f.write(chaos.stack.data + "\n")
    return status


def shutil_copy(source, target):
    try:
        import shutil
        shutil.copyfile(source, target)
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main())
