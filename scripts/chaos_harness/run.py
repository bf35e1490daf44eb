"""One chaos run: the stack (stacks.py), the users and the workload (workload.py) through the
gateway (calls.py), the killer and the watcher (killer.py), the audit (audit.py) and the summary
(report.py). `Chaos` holds the run's state; each part is a mixin that works on it."""
import collections
import datetime
import os
import random
import threading
import time

from .audit import Audit
from .calls import Calls
from .config import SetupError, say
from .killer import Killer
from .record import Recorder
from .report import Report
from .stacks import ReplicatedStack, UpStack, rss_kib
from .workload import Workload


class Chaos(Calls, Workload, Killer, Audit, Report):
    def __init__(self, config, work):
        self.config = config
        self.work = work
        self.rng = random.Random(config.seed)
        self.run = "".join(self.rng.choice("abcdefghijkmnpqrstuvwxyz23456789") for _ in range(4))
        self.t0 = time.monotonic()
        self.started_at = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        self.rec = Recorder(self.t0)
        self.stack = (ReplicatedStack if config.postgres else UpStack)(config, work, self.rec.now)
        self.stop_workload = threading.Event()
        self.abort = threading.Event()
        self.lock = threading.Lock()
        self.seq = 0
        self.users = []
        self.notes_by_user = collections.defaultdict(list)  # user id → acknowledged note titles
        self.free_riders = None
        self.kills = []
        self.windows = []  # {"domain", "replica" (PostgreSQL), "t_kill", "t_healthy", …}
        self.target_state = {}  # target name → {"up_since", "down"}
        self.killed_pids = set()
        self.in_flight = collections.defaultdict(dict)  # domain → {call: when sent} of Handles in flight
        self.unexpected_deaths = []
        self.initial_accounts = {}
        self.failures = []
        self.audit = {}
        self.rss = {}
        self.phase = "setup"

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
            down = [t.label for t in self.stack.targets if self.target_state[t.name]["down"]]
            say(f"chaos: {self.rec.now() - self.load_began:6.1f} s  calls {calls}  acknowledged writes {acked}  "
                f"call errors {errors}  kills {len(self.kills)}" + (f"  down now: {', '.join(down)}" if down else ""))

    def execute(self):
        cfg = self.config
        say(f"chaos: {self.stack.describe()}")
        self.stack.start()
        self.phase = "setup"
        setup_began = time.monotonic()
        self.setup()
        replicas = f", {cfg.replicas} replicas per domain on PostgreSQL" if cfg.postgres else ""
        say(f"chaos: {len(self.users)} users signed up, funded and introduced in "
            f"{time.monotonic() - setup_began:.1f} s; {cfg.duration:.0f} s of load from {cfg.clients} clients, "
            f"a SIGKILL every {cfg.kill_every:g} s{replicas} (seed {cfg.seed}, run {self.run})")
        for target in self.stack.targets:
            self.target_state[target.name] = {"down": False, "up_since": time.monotonic() - cfg.min_uptime}
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
        still_down = self.wait_healthy(self.stack.targets, 60)
        if still_down:
            self.failures.append(f"not SERVING 60 s after the load: {still_down}")
        unrecovered = [w for w in self.windows if w["t_healthy"] is None]
        for w in unrecovered:
            self.failures.append(f"{w.get('replica', w['domain'])} killed at {w['t_kill']:.2f} s never answered "
                                 "SERVING again")
        if self.abort.is_set():
            raise SetupError("aborted: " + "; ".join(self.failures + [str(d) for d in self.unexpected_deaths]))
        say("chaos: load done; auditing the stores through the gateway")
        audit_began = time.monotonic()
        self.audit = self.audit_stores()
        self.audit["seconds"] = round(time.monotonic() - audit_began, 1)
        # RSS at the end, of every process the stack runs (and of this harness).
        self.rss = self.stack.rss()
        self.rss["harness (python)"] = rss_kib(os.getpid())
        self.phase = "stopping"
        watcher.join(2)
        clean, problem = self.stack.stop()
        if not clean:
            self.failures.append(problem)
