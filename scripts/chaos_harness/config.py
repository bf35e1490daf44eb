"""The run's settings (environment variables, listed in scripts/chaos), the domains and the names
every other module shares."""
import math
import os
import random
import re

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

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


class SetupError(Exception):
    """The harness could not run (exit status 2): a stack that did not start, a failed setup call."""


def env_float(name, default):
    value = os.environ.get(name, "").strip()
    return float(value) if value else default


def env_int(name, default):
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


def say(message):
    print(message, flush=True)


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
        # SQLite (`intentmesh up`): the supervisor counts a death within 10 s of a start as a quick
        # crash and leaves a service down after five in a row (RestartPolicy): only a domain up this
        # long is killed. PostgreSQL: the harness restarts the replicas itself; a replica is killed
        # only when it and every other replica of its domain have been up this long.
        self.min_uptime = env_float("MIN_UPTIME", 5.0 if self.postgres else 11.0)
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
        default_report = "report-postgres.json" if self.postgres else "report.json"
        self.report = os.environ.get("REPORT", "").strip() or os.path.join(REPO, "artifacts", "chaos", default_report)
        self.hard_deadline = env_float("HARD_DEADLINE", self.duration + 600)
        self.progress_every = env_float("PROGRESS_EVERY", 10.0)
        # PostgreSQL only: replicas per domain, and the pause between a replica's death and its restart.
        self.replicas = max(2, env_int("REPLICAS", 2)) if self.postgres else 1
        self.restart_delay = env_float("RESTART_DELAY", 0.5) if self.postgres else None

    def as_dict(self):
        return {k: v for k, v in vars(self).items()}
