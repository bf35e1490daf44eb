"""Load for scripts/bench-payments: N SendPayments of 1.00 USD (Confirm, then Handle with its
confirmation token; $INTENTMESH_TOKEN on both), each with its own intent
identifier, at a fixed concurrency; every answer must be a success, and Rainbow Checking must have
gone down by exactly N × 1.00 afterwards.

The payments come from this process (grpc.aio), or, with --c-load, from clients/c's
intentmesh-pay-load (C threads, a small part of this client's CPU per payment: on a machine of
two cores the figure is then the service's, not the client's); the balance is audited here either way."""
import argparse
import asyncio
import os
import re
import subprocess
import sys
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "generated"))
import grpc  # noqa: E402
from intentmesh.payments.v1 import payments_pb2  # noqa: E402
from intentmesh.v1 import extension_service_pb2, extension_service_pb2_grpc, intent_pb2, types_pb2  # noqa: E402


def metadata():
    """Diana's bearer token ($INTENTMESH_TOKEN), on every call."""
    return [("authorization", f"Bearer {os.environ['INTENTMESH_TOKEN']}")]


def handle_request(identifier):
    request = extension_service_pb2.HandleRequest(context=intent_pb2.RequestContext())
    request.intent.intent_class = "INSendPaymentIntent"
    request.intent.identifier = identifier
    request.intent.payload.Pack(
        payments_pb2.SendPaymentIntent(
            payee=types_pb2.Person(display_name="Buttercup"),
            currency_amount=types_pb2.CurrencyAmount(currency_code="USD", units=1),
        )
    )
    return request


async def checking_balance(stub):
    request = extension_service_pb2.HandleRequest(context=intent_pb2.RequestContext())
    request.intent.intent_class = "INSearchForAccountsIntent"
    request.intent.identifier = "bench-balance-" + uuid.uuid4().hex
    request.intent.payload.Pack(
        payments_pb2.SearchForAccountsIntent(account_nickname=types_pb2.SpeakableString(spoken_phrase="Rainbow Checking"))
    )
    confirmed = await stub.Confirm(
        extension_service_pb2.ConfirmRequest(context=request.context, intent=request.intent), metadata=metadata())
    request.confirmation_token = confirmed.confirmation_token
    answer = await stub.Handle(request, metadata=metadata())
    response = payments_pb2.SearchForAccountsIntentResponse()
    answer.response.payload.Unpack(response)
    balance = response.accounts[0].balance
    return balance.units * 100 + balance.nanos // 10_000_000


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--payments", type=int, default=1200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--round", default="1")
    parser.add_argument("--c-load", help="clients/c/build/intentmesh-pay-load: make the payments with it")
    args = parser.parse_args()
    async with grpc.aio.insecure_channel(args.target) as channel:
        stub = extension_service_pb2_grpc.IntentsExtensionStub(channel)
        before = await checking_balance(stub)
        if args.c_load:
            rate, p50, p99 = c_load(args)
        else:
            rate, p50, p99 = await python_load(stub, args)
        after = await checking_balance(stub)
    if before - after != args.payments * 100:
        sys.exit(f"Rainbow Checking went from {before} to {after} cents, expected -{args.payments * 100}")
    print(
        f"result round={args.round} concurrency={args.concurrency} payments={args.payments} "
        f"rate={rate:.1f} p50_ms={p50:.2f} p99_ms={p99:.2f} balance_checked=yes "
        f"load={'c' if args.c_load else 'python'}"
    )


def c_load(args):
    """The payments made by intentmesh-pay-load: its rate, p50 and p99 (ms)."""
    done = subprocess.run(
        [args.c_load, "--target", args.target, "--payments", str(args.payments),
         "--concurrency", str(args.concurrency), "--round", str(args.round)],
        capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"intentmesh-pay-load failed ({done.returncode}): {done.stderr.strip()}")
    figures = re.search(r"rate=([0-9.]+) p50_ms=([0-9.]+) p99_ms=([0-9.]+)", done.stdout)
    if not figures:
        sys.exit(f"intentmesh-pay-load printed no result: {done.stdout!r}")
    return float(figures[1]), float(figures[2]), float(figures[3])


async def python_load(stub, args):
    """The payments made from this process: their rate, p50 and p99 (ms)."""
    requests = [handle_request(f"bench-{uuid.uuid4().hex}") for _ in range(args.payments)]
    latencies = []
    failures = []
    queue = iter(requests)

    async def worker():
        for request in queue:
            started = time.perf_counter()
            # A payment is the user's yes and its effect: Confirm gives the token Handle needs.
            confirmed = await stub.Confirm(
                extension_service_pb2.ConfirmRequest(context=request.context, intent=request.intent),
                metadata=metadata())
            request.confirmation_token = confirmed.confirmation_token
            answer = await stub.Handle(request, metadata=metadata())
            latencies.append(time.perf_counter() - started)
            if answer.response.code_name != "success" or answer.replayed:
                failures.append(answer.response.code_name)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(args.concurrency)))
    elapsed = time.perf_counter() - started
    if failures:
        sys.exit(f"{len(failures)} payments did not succeed: {sorted(set(failures))}")
    latencies.sort()
    p50 = latencies[len(latencies) // 2] * 1000
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
    return args.payments / elapsed, p50, p99


asyncio.run(main())
