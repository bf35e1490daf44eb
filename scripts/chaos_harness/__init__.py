"""Chaos under load with an audit of every acknowledged write: the harness scripts/chaos runs
(through scripts/chaos.py). See scripts/chaos.py for the modules and scripts/chaos for the options."""
