#!/usr/bin/env python3
"""Books a UnicornRides ride ("get me a bicorn ride to the forest") and follows its live status
(StartSendingUpdates) for a few updates.

    clients/python/generate.sh
    export INTENTMESH_TOKEN=$(intentmesh token --user diana)     # or pass --token
    python3 clients/python/book_ride.py --target 127.0.0.1:50063 --from "300 Post Street" --to "the forest" --ride bicorn
"""
import argparse
import sys

import intentmesh_client as client
from intentmesh.ridebooking.v1 import ridebooking_pb2
from intentmesh.v1 import extension_service_pb2, types_pb2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", default="127.0.0.1:50063")
    client.add_token_argument(parser)
    parser.add_argument("--from", dest="pickup", required=True)
    parser.add_argument("--to", dest="drop_off", required=True)
    parser.add_argument("--ride", default="")
    parser.add_argument("--updates", type=int, default=1, help="how many live updates to print before leaving")
    args = parser.parse_args()
    extension = client.stub(args.target, args.token)
    context = client.context(time_zone="America/Los_Angeles")
    request = ridebooking_pb2.RequestRideIntent(
        pickup_location=types_pb2.Placemark(name=args.pickup), drop_off_location=types_pb2.Placemark(name=args.drop_off),
        ride_option_name=types_pb2.SpeakableString(spoken_phrase=args.ride))
    status, response = client.run(
        extension, context, client.intent("INRequestRideIntent", request, "UnicornRides"),
        ridebooking_pb2.RequestRideIntentResponse)
    if response is None:
        return status
    ride = response.ride_status
    print(f"ride {ride.ride_identifier}: {ride.ride_option.name} with {ride.driver.person.display_name} "
          f"({ride.vehicle.registration_plate})")
    updates = extension.StartSendingUpdates(extension_service_pb2.StartSendingUpdatesRequest(
        context=context, intent=client.intent("INGetRideStatusIntent", ridebooking_pb2.GetRideStatusIntent())))
    for count, update in enumerate(updates, start=1):
        status_response = ridebooking_pb2.GetRideStatusIntentResponse()
        update.response.payload.Unpack(status_response)
        location = status_response.ride_status.vehicle.location
        print(f"update {count}: {ridebooking_pb2.RidePhase.Name(status_response.ride_status.phase)} "
              f"vehicle at {location.latitude:.4f}, {location.longitude:.4f}")
        if count >= args.updates:
            updates.cancel()
            break
    return status


if __name__ == "__main__":
    sys.exit(main())
