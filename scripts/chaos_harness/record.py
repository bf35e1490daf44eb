"""Recording: every RPC attempt, every write, every round."""
import collections
import threading
import time


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
        self.replayed_by_gateway = 0  # of them, on the client's first attempt: the gateway placed it again
        # (domain, method) → attempts answered although a process of their domain was killed meanwhile
        self.answered_across_kill = collections.Counter()
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

