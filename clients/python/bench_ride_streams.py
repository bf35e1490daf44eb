"""Load for scripts/bench-ride-streams: Diana books a ride and N clients follow it with
StartSendingUpdates, all streams open at once; prints the service's RSS idle, with the streams open,
and after every client has left, so a leak of stream resources shows."""
import argparse
import asyncio
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "generated"))
import grpc  # noqa: E402
from intentmesh.ridebooking.v1 import ridebooking_pb2  # noqa: E402
from intentmesh.v1 import extension_service_pb2, extension_service_pb2_grpc, intent_pb2, types_pb2  # noqa: E402


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1])
    return -1


#: Diana's bearer token ($INTENTMESH_TOKEN), on every call.
METADATA = [("authorization", f"Bearer {os.environ['INTENTMESH_TOKEN']}")]


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--channels", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    # A local subchannel pool per channel: one TCP connection each (grpc shares them otherwise).
    channels = [
        grpc.aio.insecure_channel(args.target, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(args.channels)
    ]
    stubs = [extension_service_pb2_grpc.IntentsExtensionStub(channel) for channel in channels]
    print(f"rss_idle_kib={rss_kib(args.pid)}")
    booking = extension_service_pb2.HandleRequest(context=intent_pb2.RequestContext())
    booking.intent.intent_class = "INRequestRideIntent"
    booking.intent.identifier = "bench-ride-" + os.urandom(6).hex()
    booking.intent.payload.Pack(
        ridebooking_pb2.RequestRideIntent(
            pickup_location=types_pb2.Placemark(name="300 Post Street"),
            drop_off_location=types_pb2.Placemark(name="the forest"),
        )
    )
    confirmed = await stubs[0].Confirm(
        extension_service_pb2.ConfirmRequest(context=booking.context, intent=booking.intent), metadata=METADATA)
    booking.confirmation_token = confirmed.confirmation_token
    booked = await stubs[0].Handle(booking, metadata=METADATA)
    assert booked.response.code_name == "success", booked.response.code_name
    for round_number in range(1, args.rounds + 1):
        await one_round(stubs, args, round_number)
    for channel in channels:
        await channel.close()


async def one_round(stubs, args, round_number):
    started = asyncio.Event()
    first_updates = 0
    calls = []

    async def follow(index):
        nonlocal first_updates
        stub = stubs[index % len(stubs)]
        request = extension_service_pb2.StartSendingUpdatesRequest(context=intent_pb2.RequestContext())
        request.intent.intent_class = "INGetRideStatusIntent"
        request.intent.payload.Pack(ridebooking_pb2.GetRideStatusIntent())
        call = stub.StartSendingUpdates(request, metadata=METADATA)
        calls.append(call)
        async for _ in call:
            first_updates += 1
            if first_updates == args.streams:
                started.set()
            await started.wait()
            return

    tasks = [asyncio.create_task(follow(i)) for i in range(args.streams)]
    await asyncio.wait_for(started.wait(), timeout=120)
    await asyncio.sleep(1)
    print(f"round={round_number} rss_streams_open_kib={rss_kib(args.pid)} streams={first_updates}")
    for call in calls:
        call.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.sleep(2)
    print(f"round={round_number} rss_after_kib={rss_kib(args.pid)}")


asyncio.run(main())
