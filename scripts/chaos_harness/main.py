"""The entry point (scripts/chaos.py runs `main`): the settings, the stubs, the run, the report,
and everything stopped on the way out — Ctrl-C, SIGTERM, an exception or the hard deadline."""
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import traceback

from . import protos
from .config import Config, SetupError, say


def main(argv=None):
    config = Config(sys.argv[1:] if argv is None else argv)
    if not config.bin:
        say("chaos: no --bin given")
        return 2
    work = config.work or tempfile.mkdtemp(prefix="chaos-")
    try:
        protos.generate(work)
    except SetupError as error:
        say(f"chaos: could not run: {error}")
        return 2
    from .run import Chaos  # imports the generated stubs: only now
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
        try:
            chaos.stack.stop()  # a no-op when the run stopped it already
        except KeyboardInterrupt:  # a signal during the stop: the second one is ignored
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
    copy(chaos.stack.log_path, re.sub(r"\.json$", "", config.report) + chaos.stack.log_suffix)
    say(f"chaos: report in {os.path.relpath(config.report, os.getcwd()) if config.report.startswith(os.getcwd()) else config.report}")
    postgres = getattr(chaos.stack, "postgres", None)
    if status != 0 or config.keep:
        for line in chaos.stack.kept():
            say(f"chaos: {line}")
        with open(os.path.join(work, "keep"), "w") as f:
            f.write(chaos.stack.data + "\n")
    elif postgres is not None:
        postgres.remove()
    return status


def copy(source, target):
    try:
        shutil.copyfile(source, target)
    except OSError:
        pass
