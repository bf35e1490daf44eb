"""UnicornFit: SiriKit's workouts domain as an IntentMesh domain service, written in Python.

It implements `intentmesh.v1.IntentsExtension` from the same `Protos/` every client uses, so the
gateway routes it like the Swift domains: no gateway change, no shared code.
"""
