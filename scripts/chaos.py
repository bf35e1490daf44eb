#!/usr/bin/env python3
"""Chaos under load with an audit of every acknowledged write (run by scripts/chaos; its header
lists the options). The harness is the package scripts/chaos_harness:

  config.py    settings (environment), the domains, names          protos.py   stubs of Protos/
  stacks.py    the stack under test: `intentmesh up` (SQLite) or replicas on PostgreSQL (--postgres):
               how it is started, found, killed, restarted and stopped
  calls.py     SiriKit rounds through the gateway with a real client's retries
  workload.py  users and the mixed workload       killer.py   the killer and the watcher
  audit.py     the audit through the public API   report.py   verdicts, the JSON report, the summary
  run.py       one run (`Chaos`)                  main.py     the entry point and the cleanup

Exit status: 0 when every check passed, 1 when one failed (the summary says which, the report
keeps the evidence), 2 when the harness could not run (setup failed), 3 at the hard deadline.
"""
import sys

from chaos_harness.main import main

if __name__ == "__main__":
    sys.exit(main())
