"""Measures the gateway's Understand against sentences with known answers (Evaluation/*.jsonl):
top-1 intent accuracy (class and app of the best candidate), slot exact match (every expected
slot, and no other, read as the expected words), out-of-scope precision (sentences no app handles
answered with no candidate), and the latency of a call as a client sees it with CONCURRENCY callers
at once. Fails when a figure is under its floor.

usage: evaluate_understanding.py GATEWAY TOKEN SET.jsonl [SET.jsonl …]
environment: FLOOR_TOP1 (0.95), FLOOR_SLOTS (0.90), FLOOR_OUT_OF_SCOPE (0.95), CONCURRENCY (16),
LATENCY_SECONDS (5: how long the latency run lasts), VERBOSE=1 (every miss)."""
import json
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "clients", "python", "generated"))
import grpc  # noqa: E402
from intentmesh.gateway.v1 import gateway_pb2, gateway_pb2_grpc  # noqa: E402
from intentmesh.v1 import intent_pb2  # noqa: E402

CONTEXT = intent_pb2.RequestContext(time_zone="Europe/Zurich", locale="en-US")


# The little word that leads a date, an amount or a place ("on Friday", "from last month") is the
# sentence's, not the value's: compared without it, whichever way a set labels it.
LEADING = {"on", "at", "for", "from", "by", "in", "due", "of"}


def normalized(text):
    words = text.lower().replace("’", "'").strip(" .,!?:").split()
    if len(words) > 1 and words[0] in LEADING:
        words = words[1:]
    return " ".join(words)


def evaluate(stub, metadata, items):
    """(top1, slots, out_of_scope, counts, misses) over `items`."""
    in_scope = [item for item in items if item["intent"]]
    out_of_scope = [item for item in items if not item["intent"]]
    right_intent = right_slots = quiet = 0
    misses = []
    for item in items:
        answer = stub.Understand(gateway_pb2.UnderstandRequest(context=CONTEXT, text=item["text"]),
                                 metadata=metadata, timeout=10)
        best = answer.candidates[0] if answer.candidates else None
        if not item["intent"]:
            if best is None:
                quiet += 1
            else:
                misses.append(f"out of scope, got {best.intent.app_name} {best.intent.intent_class} "
                              f"({best.confidence:.2f}): {item['text']!r}")
            continue
        if best is None or (best.intent.intent_class, best.intent.app_name) != (item["intent"], item["app"]):
            got = f"{best.intent.app_name} {best.intent.intent_class} ({best.confidence:.2f})" if best else "nothing"
            misses.append(f"intent: want {item['app']} {item['intent']}, got {got}: {item['text']!r}")
            continue
        right_intent += 1
        said = {slot.name: normalized(slot.text) for slot in best.slots}
        wanted = {name: normalized(text) for name, text in item["slots"].items()}
        if said == wanted:
            right_slots += 1
        else:
            misses.append(f"slots: want {wanted}, got {said}: {item['text']!r}")
    top1 = right_intent / len(in_scope) if in_scope else 1.0
    # Exact slots over the in-scope sentences (a wrong intent counts as wrong slots).
    slots = right_slots / len(in_scope) if in_scope else 1.0
    out = quiet / len(out_of_scope) if out_of_scope else 1.0
    return top1, slots, out, (len(in_scope), len(out_of_scope)), misses


def latency(address, metadata, texts, concurrency, seconds):
    """Per-call latencies (ms) of `concurrency` callers, each on its own channel, for `seconds`."""
    results = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def caller(offset):
        with grpc.insecure_channel(address) as channel:
            stub = gateway_pb2_grpc.GatewayStub(channel)
            mine = []
            index = offset
            # A warm-up call each (the channel's connection), not counted.
            stub.Understand(gateway_pb2.UnderstandRequest(context=CONTEXT, text=texts[0]), metadata=metadata)
            while time.monotonic() < stop:
                text = texts[index % len(texts)]
                index += 1
                started = time.perf_counter()
                stub.Understand(gateway_pb2.UnderstandRequest(context=CONTEXT, text=text), metadata=metadata,
                                timeout=10)
                mine.append((time.perf_counter() - started) * 1000)
        with lock:
            results.extend(mine)

    threads = [threading.Thread(target=caller, args=(i * 7,)) for i in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(results)


def main():
    address, token, *sets = sys.argv[1:]
    metadata = [("authorization", f"Bearer {token}")]
    floors = {"top1": float(os.environ.get("FLOOR_TOP1", "0.95")),
              "slots": float(os.environ.get("FLOOR_SLOTS", "0.90")),
              "out": float(os.environ.get("FLOOR_OUT_OF_SCOPE", "0.95"))}
    failed = []
    texts = []
    with grpc.insecure_channel(address) as channel:
        stub = gateway_pb2_grpc.GatewayStub(channel)
        print("| set | sentences (in scope / out) | top-1 intent | slots exact | out of scope answered with nothing |")
        print("|---|---|---|---|---|")
        all_misses = []
        for path in sets:
            items = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
            texts += [item["text"] for item in items]
            top1, slots, out, (inside, outside), misses = evaluate(stub, metadata, items)
            name = os.path.basename(path)
            print(f"| {name} | {inside} / {outside} | {top1:.1%} | {slots:.1%} | {out:.1%} |")
            all_misses += [f"{name}: {miss}" for miss in misses]
            for label, value, floor in (("top-1", top1, floors["top1"]), ("slots", slots, floors["slots"]),
                                        ("out of scope", out, floors["out"])):
                if value < floor:
                    failed.append(f"{name}: {label} {value:.1%} under its floor {floor:.0%}")
    if os.environ.get("VERBOSE") == "1" or failed:
        print("\nmisses:")
        for miss in all_misses:
            print("  " + miss)
    concurrency = int(os.environ.get("CONCURRENCY", "16"))
    seconds = float(os.environ.get("LATENCY_SECONDS", "5"))
    measured = latency(address, metadata, texts, concurrency, seconds)
    if measured:
        p50 = statistics.median(measured)
        p99 = measured[min(len(measured) - 1, int(0.99 * len(measured)))]
        print(f"\nlatency as a Python gRPC client sees it, {concurrency} callers for {seconds:.0f} s over every "
              f"sentence: {len(measured)} calls, {len(measured) / seconds:.0f}/s, p50 {p50:.2f} ms, p99 {p99:.2f} ms")
    for line in failed:
        print("evaluate-understanding: " + line, file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
