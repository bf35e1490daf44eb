#!/usr/bin/env python3
"""Sends a UnicornChat message the SiriKit way: resolve until complete, confirm, handle.

    clients/python/generate.sh
    export INTENTMESH_TOKEN=$(intentmesh token --user diana)
    python3 clients/python/send_message.py --to "Sparkle Sparkly" --say "Are you ready for your talk?"
"""
import argparse
import os
import sys
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "generated"))

import grpc  # noqa: E402
from intentmesh.messaging.v1 import messaging_pb2  # noqa: E402
from intentmesh.v1 import extension_service_pb2, extension_service_pb2_grpc, intent_pb2, types_pb2  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", default="127.0.0.1:50061")
    parser.add_argument("--token", default=os.environ.get("INTENTMESH_TOKEN", ""),
                        help="bearer token of the user (default $INTENTMESH_TOKEN)")
    parser.add_argument("--to", action="append", required=True, help="a recipient's name (repeatable)")
    parser.add_argument("--say", default="")
    args = parser.parse_args()

    if not args.token:
        parser.error("no token: pass --token or export INTENTMESH_TOKEN=$(intentmesh token --user diana)")
    stub = extension_service_pb2_grpc.IntentsExtensionStub(grpc.insecure_channel(args.target))
    # Who the user is: the token's subject, on every call.
    auth = [("authorization", f"Bearer {args.token}")]
    context = intent_pb2.RequestContext(time_zone="Europe/Zurich")
    message = messaging_pb2.SendMessageIntent(
        recipients=[types_pb2.Person(display_name=name) for name in args.to], content=args.say)
    intent = intent_pb2.Intent(intent_class="INSendMessageIntent", identifier=str(uuid.uuid4()), app_name="UnicornChat")
    intent.payload.Pack(message)

    resolved = stub.Resolve(extension_service_pb2.ResolveRequest(context=context, intent=intent), metadata=auth)
    for resolution in resolved.resolutions:
        for result in resolution.results:
            kind = result.WhichOneof("kind")
            detail = {
                "success": lambda: result.success.value.display_text,
                "disambiguation": lambda: " / ".join(o.display_text for o in result.disambiguation.options),
                "needs_value": lambda: result.needs_value.prompt,
                "unsupported": lambda: result.unsupported.reason.message,
            }.get(kind, lambda: "")()
            print(f"{resolution.parameter}: {kind} {detail}".rstrip())
    if not resolved.complete:
        print("not complete: answer the prompts above and try again")
        return 2

    confirmed = stub.Confirm(
        extension_service_pb2.ConfirmRequest(context=context, intent=resolved.resolved_intent), metadata=auth)
    print(f"confirm: {confirmed.response.code_name}")
    if confirmed.response.code_name != "ready":
        print(dict(confirmed.response.user_activity.user_info))
        return 3

    # The user's yes: Confirm's token, bound to exactly this message.
    handled = stub.Handle(extension_service_pb2.HandleRequest(
        context=context, intent=resolved.resolved_intent, confirmation_token=confirmed.confirmation_token),
        metadata=auth)
    response = messaging_pb2.SendMessageIntentResponse()
    handled.response.payload.Unpack(response)
    print(f"handle: {handled.response.code_name}; sent {len(response.sent_messages)} message(s), "
          f"first id {response.sent_message.identifier}")
    return 0 if handled.response.code_name == "success" else 4


if __name__ == "__main__":
    sys.exit(main())
