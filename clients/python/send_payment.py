#!/usr/bin/env python3
"""Sends a UnicornPay payment ("send Buttercup 85 bucks for rainbow polish"): resolve, confirm, handle.

    clients/python/generate.sh
    export INTENTMESH_TOKEN=$(intentmesh token --user diana)     # or pass --token
    python3 clients/python/send_payment.py --target 127.0.0.1:50062 --to Buttercup --amount 85 --note "rainbow polish"
"""
import argparse
import sys

import intentmesh_client as client
from intentmesh.payments.v1 import payments_pb2
from intentmesh.v1 import types_pb2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", default="127.0.0.1:50062")
    client.add_token_argument(parser)
    parser.add_argument("--to", required=True)
    parser.add_argument("--amount", required=True, help="e.g. 85 or 18.50")
    parser.add_argument("--currency", default="USD")
    parser.add_argument("--note", default="")
    args = parser.parse_args()
    units, _, fraction = args.amount.partition(".")
    nanos = int((fraction + "000000000")[:9]) if fraction else 0
    payment = payments_pb2.SendPaymentIntent(
        payee=types_pb2.Person(display_name=args.to),
        currency_amount=types_pb2.CurrencyAmount(currency_code=args.currency, units=int(units), nanos=nanos),
        note=args.note)
    status, response = client.run(
        client.stub(args.target, args.token), client.context(),
        client.intent("INSendPaymentIntent", payment, "UnicornPay"), payments_pb2.SendPaymentIntentResponse)
    if response is not None:
        record = response.payment_record
        print(f"paid {record.currency_amount.units}.{record.currency_amount.nanos // 10_000_000:02d} "
              f"{record.currency_amount.currency_code} to {record.payee.display_name} from {record.payment_method.name}: "
              f"{payments_pb2.PaymentStatus.Name(record.status)}")
    return status


if __name__ == "__main__":
    sys.exit(main())
