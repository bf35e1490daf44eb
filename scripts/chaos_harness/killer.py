"""The killer and the watcher, on any stack (stacks.py): every KILL_EVERY seconds a random target (a
domain process, or one replica of a domain) gets SIGKILL, aimed at a moment when a Handle to its
domain is in flight; its down window ends at the first SERVING health check of the new process on
the target's own port. Never the gateway; never a second target of a domain while one is down."""
import os
import random
import signal
import threading
import time

from .config import SHORT
from .stacks import serving


class Killer:
    """Part of `Chaos` (run.py): needs self.stack, self.config, self.rec, self.lock, self.abort,
    self.stop_workload, self.phase, self.in_flight; keeps self.kills, self.windows,
    self.target_state, self.killed_pids, self.unexpected_deaths, self.failures."""

    def health(self, address, timeout=0.5):
        return serving(address, timeout)

    def wait_healthy(self, targets, timeout):
        """The targets not SERVING on their own address within `timeout`."""
        deadline = time.monotonic() + timeout
        pending = list(targets)
        while pending and time.monotonic() < deadline:
            pending = [t for t in pending if not self.health(t.address)]
            if pending:
                time.sleep(0.1)
        return [t.name for t in pending]

    def watcher(self):
        """Every 100 ms: which process serves each part of the stack; a process that died without
        the killer killing it is an unexpected death (so is the end of `up` or of the gateway)."""
        known = dict(self.stack.processes())
        while not self.abort.is_set() and self.phase != "stopping":
            time.sleep(0.1)
            if self.phase == "stopping":
                break
            ended = self.stack.failed()
            if ended is not None:
                self.unexpected_deaths.append(dict(ended, t=round(self.rec.now(), 3)))
                self.abort.set()
                break
            now_running = self.stack.processes()
            for name, pid in list(known.items()):
                if self.stack.running(name, pid):
                    continue
                with self.lock:
                    expected = pid in self.killed_pids
                if not expected:
                    self.unexpected_deaths.append({"service": name, "pid": pid, "t": round(self.rec.now(), 3)})
                del known[name]
            for name, pid in now_running.items():
                if name not in known:
                    known[name] = pid

    def eligible(self, now):
        """Targets the killer may kill now: up MIN_UPTIME, and so is every other target of their
        domain (with replicas: the one that keeps serving is not itself just back)."""
        cfg = self.config
        state = self.target_state
        by_domain = {}
        for target in self.stack.targets:
            by_domain.setdefault(target.domain, []).append(target)
        return [t for t in self.stack.targets
                if all(not state[s.name]["down"] and now - state[s.name]["up_since"] >= cfg.min_uptime
                       for s in by_domain[t.domain])]

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
            with self.lock:
                eligible = self.eligible(now)
            if not eligible:
                next_kill = now + 0.25
                continue
            target = rng.choice(eligible)
            domain = target.domain
            if cfg.aim:
                # Aimed: the kill waits (up to 0.5 s) for a Handle to that domain that has been in
                # flight for a random 0–25 ms (before, during or after its commit), so that kills land
                # where exactly-once matters most. With replicas the gateway picks one for each call:
                # the Handle may be on the other one.
                age = rng.uniform(0, 0.025)
                aim_until = time.monotonic() + 0.5
                while time.monotonic() < aim_until:
                    with self.lock:
                        started = list(self.in_flight[SHORT[domain]].values())
                    if any(time.monotonic() - t >= age for t in started):
                        break
                    time.sleep(0.0005)
            pid = self.stack.pid(target.name)
            if not pid or not self.stack.running(target.name, pid):
                next_kill = now + 0.25
                continue
            with self.lock:
                self.killed_pids.add(pid)
            t_kill = self.rec.now()
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError as error:
                self.failures.append(f"could not SIGKILL {target.name} ({pid}): {error}")
                next_kill = now + cfg.kill_every
                continue
            window = {"domain": domain, "pid": pid, "t_kill": round(t_kill, 4), "t_healthy": None, "new_pid": None,
                      "handles_in_flight": len(self.in_flight[SHORT[domain]])}
            if target.name != domain:
                window["replica"] = target.name
            with self.lock:
                self.kills.append(window)
                self.windows.append(window)
                self.target_state[target.name]["down"] = True
            threading.Thread(target=self.await_restart, args=(target, window), daemon=True).start()
            next_kill += cfg.kill_every
            if next_kill < now:
                next_kill = now + cfg.kill_every

    def await_restart(self, target, window):
        """The down window: kill → first SERVING health check of the target, direct on its port, from
        a process other than the one killed."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not self.abort.is_set():
            pid = self.stack.pid(target.name)
            if pid and pid != window["pid"] and self.health(target.address, timeout=0.3):
                t = self.rec.now()
                with self.lock:
                    window["t_healthy"] = round(t, 4)
                    window["new_pid"] = pid
                    self.target_state[target.name]["down"] = False
                    self.target_state[target.name]["up_since"] = time.monotonic()
                return
            time.sleep(0.03)
        with self.lock:
            self.failures.append(f"{target.name} did not answer SERVING within 60 s of its SIGKILL at "
                                 f"{window['t_kill']:.2f} s")
