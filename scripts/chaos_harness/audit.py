"""The audit, through the public API only (each owner's ListMessages, ListPayments, ListRequests,
ListAccounts, ListRides, ListCharges and INSearchForNotebookItemsIntent): every acknowledged
effect present exactly once, a write never acknowledged at most once and whole, one refused or
never sent not at all; money conserved per currency, no account below zero, every balance
explained by its payment records and the transfers; at most one fare, fee and tip per ride."""
import collections
from itertools import combinations

from intentmesh.messaging.v1 import app_pb2 as chat_app
from intentmesh.notebook.v1 import notebook_pb2 as notes
from intentmesh.payments.v1 import payments_pb2 as pay, app_pb2 as pay_app
from intentmesh.ridebooking.v1 import ridebooking_pb2 as rides, app_pb2 as rides_app

from .config import TOKEN_RE, SetupError


class Audit:
    """Part of `Chaos` (run.py): reads every user's stores after the load and checks them against
    the recorded writes (self.rec.writes) and the books before the load (self.initial_accounts)."""

    def audit_stores(self):
        client = self.make_client("audit")
        budget = 60

        def call(domain, method, callable_, request, user):
            return self.rpc(client, domain, method, callable_, request, user.auth, budget=budget)

        mailbox, payments, requests, accounts, ride_lists, charges, notebooks = {}, {}, {}, {}, {}, {}, {}
        incomplete = []
        for user in self.users:
            listed = call("messaging", "ListMessages", client.chat.ListMessages,
                          chat_app.ListMessagesRequest(limit=500), user).messages
            if len(listed) >= 500:
                incomplete.append(f"{user.id}: ListMessages hit its limit of 500")
            mailbox[user.id] = listed
            listed = call("payments", "ListPayments", client.pay.ListPayments,
                          pay_app.ListPaymentsRequest(limit=500), user).payments
            if len(listed) >= 500:
                incomplete.append(f"{user.id}: ListPayments hit its limit of 500")
            payments[user.id] = listed
            requests[user.id] = call("payments", "ListRequests", client.pay.ListRequests,
                                     pay_app.ListRequestsRequest(), user).requests
            accounts[user.id] = call("payments", "ListAccounts", client.pay.ListAccounts,
                                     pay_app.ListAccountsRequest(), user).accounts
            listed = call("ridebooking", "ListRides", client.rides.ListRides, rides_app.ListRidesRequest(limit=100),
                          user).rides
            if len(listed) >= 100:
                incomplete.append(f"{user.id}: ListRides hit its limit of 100")
            ride_lists[user.id] = listed
            charges[user.id] = call("ridebooking", "ListCharges", client.rides.ListCharges,
                                    rides_app.ListChargesRequest(), user).charges
            found = self.sirikit_round(client, user, "notes", "INSearchForNotebookItemsIntent",
                                       notes.SearchForNotebookItemsIntent(), notes.SearchForNotebookItemsIntentResponse)
            if not found or found[0] != "success":
                raise SetupError(f"the audit could not read {user.id}'s notebook: {found and found[0]}")
            notebooks[user.id] = found[1]
        client.channel.close()
        return self.check(mailbox, payments, requests, accounts, ride_lists, charges, notebooks, incomplete)

    def check(self, mailbox, payments, requests, accounts, ride_lists, charges, notebooks, incomplete):
        problems = collections.defaultdict(list)  # category → [details]
        stats = collections.Counter()

        def count_tokens(texts):
            counted = collections.Counter()
            for text in texts:
                for token in set(TOKEN_RE.findall(text)):
                    counted[token] += 1
            return counted

        in_mailbox = {uid: count_tokens(m.content for m in msgs) for uid, msgs in mailbox.items()}
        sent = {uid: count_tokens(p.note for p in ps if p.direction == pay_app.PAYMENT_DIRECTION_SENT)
                for uid, ps in payments.items()}
        received = {uid: count_tokens(p.note for p in ps if p.direction == pay_app.PAYMENT_DIRECTION_RECEIVED)
                    for uid, ps in payments.items()}
        requested = {uid: count_tokens(p.note for p in ps if p.direction == pay_app.PAYMENT_DIRECTION_REQUESTED)
                     for uid, ps in payments.items()}
        asked_of = {uid: count_tokens(r.note for r in rs) for uid, rs in requests.items()}
        request_status = {}
        for uid, rs in requests.items():
            for r in rs:
                for token in TOKEN_RE.findall(r.note):
                    request_status[token] = r.status
        note_titles = {uid: collections.Counter(n.title.spoken_phrase for n in nb.notes) for uid, nb in notebooks.items()}
        note_text = {uid: {n.title.spoken_phrase: "\n".join(c.text for c in n.contents) for n in nb.notes}
                     for uid, nb in notebooks.items()}
        task_titles = {uid: collections.Counter(t.title.spoken_phrase for t in nb.tasks) for uid, nb in notebooks.items()}
        list_titles = {uid: collections.Counter(l.title.spoken_phrase for l in nb.task_lists)
                       for uid, nb in notebooks.items()}
        list_items = {uid: {l.title.spoken_phrase: [t.title.spoken_phrase for t in l.tasks] for l in nb.task_lists}
                      for uid, nb in notebooks.items()}
        rides_by_id = {}
        for uid, listed in ride_lists.items():
            for ride in listed:
                rides_by_id.setdefault(ride.status.ride_identifier, []).append((uid, ride))
        charge_counts = collections.Counter()
        charge_amounts = collections.defaultdict(list)
        for uid, listed in charges.items():
            for charge in listed:
                charge_counts[(charge.ride_identifier, charge.kind)] += 1
                charge_amounts[(charge.ride_identifier, charge.kind)].append(cents(charge.amount))

        def expect(write, observed, acked_expected):
            """observed: {place: count}. Acknowledged: each place exactly its expected count; refused or
            never sent: nothing anywhere; unacknowledged: nothing or exactly the expected everywhere
            (all or nothing)."""
            status = write["status"]
            stats[f"{write['kind']} {status}"] += 1
            values = list(observed.values())
            expected = acked_expected
            if status == "acked":
                for place, n in observed.items():
                    want = expected[place]
                    if n < want:
                        problems["lost"].append(dict(write, place=place, found=n, expected=want))
                    elif n > want:
                        problems["duplicated"].append(dict(write, place=place, found=n, expected=want))
            elif status in ("refused", "not_sent"):
                if any(values):
                    problems["applied although refused or never sent"].append(dict(write, found=observed))
            else:  # unacked: may or may not have been applied, at most once, whole
                if any(n > expected[p] for p, n in observed.items()):
                    problems["duplicated"].append(dict(write, found=observed, expected=expected))
                elif any(values) and any(n != expected[p] for p, n in observed.items()):
                    problems["partly applied"].append(dict(write, found=observed, expected=expected))
                elif any(values):
                    stats["unacknowledged but applied (once)"] += 1

        transfers_unacked = collections.defaultdict(list)  # user → [(from, to, cents, id)]
        transfer_delta = collections.Counter()  # account → cents (acknowledged transfers)
        for write in self.rec.writes:
            kind, uid, token = write["kind"], write["user"], write.get("token")
            if kind == "message":
                observed = {f"{uid} (sender)": in_mailbox[uid][token]}
                expected = {f"{uid} (sender)": len(write["recipients"])}
                for r in write["recipients"]:
                    observed[r] = in_mailbox[r][token]
                    expected[r] = 1
                expect(write, observed, expected)
                elsewhere = {other: counts[token] for other, counts in in_mailbox.items()
                             if counts[token] and other != uid and other not in write["recipients"]}
                if elsewhere:
                    problems["misdelivered"].append(dict(write, found=elsewhere))
            elif kind == "payment":
                expect(write, {f"{uid} sent": sent[uid][token], f"{write['payee']} received":
                               received[write["payee"]][token]},
                       {f"{uid} sent": 1, f"{write['payee']} received": 1})
                elsewhere = {other: sent[other][token] + received[other][token] for other in sent
                             if other not in (uid, write["payee"]) and sent[other][token] + received[other][token]}
                if elsewhere:
                    problems["misdelivered"].append(dict(write, found=elsewhere))
            elif kind == "request":
                expect(write, {f"{uid} requested": requested[uid][token], f"{write['payer']} asked":
                               asked_of[write["payer"]][token]},
                       {f"{uid} requested": 1, f"{write['payer']} asked": 1})
            elif kind == "bill":
                observed = {f"{uid} sent": sent[uid][token], f"{write['requester']} received":
                            received[write["requester"]][token]}
                expect(write, observed, {f"{uid} sent": 1, f"{write['requester']} received": 1})
                paid = request_status.get(token) == pay.PAYMENT_STATUS_COMPLETED
                if paid != bool(observed[f"{uid} sent"]):
                    problems["inconsistent"].append(dict(write, found=observed,
                                                         request_status=pay.PaymentStatus.Name(
                                                             request_status.get(token, 0))))
            elif kind == "transfer":
                stats[f"transfer {write['status']}"] += 1
                if write["status"] == "acked":
                    transfer_delta[write["from"]] -= write["cents"]
                    transfer_delta[write["to"]] += write["cents"]
                elif write["status"] == "unacked":
                    transfers_unacked[uid].append(write)
            elif kind == "note":
                expect(write, {uid: note_titles[uid][write["title"]]}, {uid: 1})
            elif kind == "append":
                text = note_text[uid].get(write["title"], "")
                expect(write, {f"{uid} {write['title']}": text.count(token)}, {f"{uid} {write['title']}": 1})
            elif kind == "reminder":
                expect(write, {uid: task_titles[uid][write["title"]]}, {uid: 1})
            elif kind == "list":
                observed = {f"{uid} list": list_titles[uid][write["title"]]}
                for item in write["items"]:
                    observed[f"{uid} task {item[-1]}"] = task_titles[uid][item]
                expect(write, observed, {k: 1 for k in observed})
                items = list_items[uid].get(write["title"])
                if items is not None and sorted(items) != sorted(write["items"]):
                    problems["inconsistent"].append(dict(write, found_items=items))
            elif kind == "ride":
                stats[f"ride {write['status']}"] += 1
                if write["status"] == "acked":
                    listed = [x for x in rides_by_id.get(write.get("ride", ""), []) if x[0] == uid]
                    if not listed:
                        problems["lost"].append(dict(write, found=0, expected=1))
                    elif len(listed) > 1:
                        problems["duplicated"].append(dict(write, found=len(listed), expected=1))
            elif kind == "cancel":
                stats[f"cancel {write['status']}"] += 1
                listed = [x for x in rides_by_id.get(write["ride"], []) if x[0] == uid]
                outcome = listed[0][1].status.completion_status.outcome if listed else None
                canceled = outcome == rides.RideCompletionStatus.OUTCOME_CANCELED_BY_USER
                if write["status"] == "acked" and not canceled:
                    lost = dict(write, found_outcome=outcome,
                                found_phase=listed[0][1].status.phase if listed else None)
                    problems["lost"].append(lost)
                elif write["status"] in ("refused", "not_sent") and canceled:
                    problems["applied although refused or never sent"].append(dict(write, found_outcome=outcome))
            elif kind == "feedback":
                n = charge_counts[(write["ride"], rides_app.CHARGE_KIND_TIP)]
                expect(write, {f"{uid} tip": n}, {f"{uid} tip": 1})
                if write["status"] == "acked" and n == 1 and \
                        charge_amounts[(write["ride"], rides_app.CHARGE_KIND_TIP)] != [write["tip_cents"]]:
                    problems["inconsistent"].append(dict(write, found_tip=charge_amounts[
                        (write["ride"], rides_app.CHARGE_KIND_TIP)]))

        # Rides: no more rides than bookings that may have booked one; at most one charge of a kind.
        for user in self.users:
            bookings = [w for w in self.rec.writes if w["kind"] == "ride" and w["user"] == user.id]
            may_have = sum(1 for w in bookings if w["status"] in ("acked", "unacked"))
            if len(ride_lists[user.id]) > may_have:
                problems["duplicated"].append({"kind": "ride", "user": user.id, "rides_listed": len(ride_lists[user.id]),
                                               "bookings_acked_or_unacked": may_have})
            for ride in ride_lists[user.id]:
                status = ride.status
                if status.phase == rides.RIDE_PHASE_COMPLETED and \
                        status.completion_status.outcome == rides.RideCompletionStatus.OUTCOME_COMPLETED and \
                        charge_counts[(status.ride_identifier, rides_app.CHARGE_KIND_FARE)] != 1:
                    problems["inconsistent"].append({"kind": "fare", "user": user.id, "ride": status.ride_identifier,
                                                     "fares": charge_counts[(status.ride_identifier,
                                                                             rides_app.CHARGE_KIND_FARE)]})
        for (ride_id, kind), n in charge_counts.items():
            if n > 1:
                problems["duplicated"].append({"kind": f"charge {rides_app.ChargeKind.Name(kind)}", "ride": ride_id,
                                               "found": n})

        # Money: per currency the same total as before the workload; no account below zero; every
        # account's balance explained by the payments it lists and the transfers made.
        final = {}
        for uid, listed in accounts.items():
            for account in listed:
                final[account.identifier] = {"user": uid, "nickname": account.nickname,
                                             "currency": account.balance.currency_code, "cents": cents(account.balance)}
        money = {}
        for currency in sorted({a["currency"] for a in list(final.values()) + list(self.initial_accounts.values())}):
            before = sum(a["cents"] for a in self.initial_accounts.values() if a["currency"] == currency)
            after = sum(a["cents"] for a in final.values() if a["currency"] == currency)
            money[currency] = {"before": before, "after": after}
            if before != after:
                problems["money not conserved"].append({"currency": currency, "before": before, "after": after})
        for identifier, account in final.items():
            if account["cents"] < 0:
                problems["account below its limit"].append(dict(account, account=identifier))
            if identifier not in self.initial_accounts:
                problems["unexpected account"].append(dict(account, account=identifier))
        record_delta = collections.Counter()
        for uid, listed in payments.items():
            for p in listed:
                if p.direction == pay_app.PAYMENT_DIRECTION_SENT:
                    record_delta[p.account_identifier] -= cents(p.amount)
                elif p.direction == pay_app.PAYMENT_DIRECTION_RECEIVED:
                    record_delta[p.account_identifier] += cents(p.amount)
        for user in self.users:
            mine = [a for a, v in self.initial_accounts.items() if v["user"] == user.id]
            residual = {a: final.get(a, {"cents": 0})["cents"] - self.initial_accounts[a]["cents"]
                        - record_delta[a] - transfer_delta[a] for a in mine}
            if all(v == 0 for v in residual.values()):
                continue
            subset = explain(residual, transfers_unacked[user.id])
            if subset is None:
                problems["balance not explained"].append({
                    "user": user.id, "residual_cents": {self.initial_accounts[a]["nickname"]: v
                                                        for a, v in residual.items()},
                    "unacknowledged_transfers": [(w["id"], w["cents"]) for w in transfers_unacked[user.id]]})
            else:
                stats["unacknowledged transfers applied (once)"] += len(subset)

        return {"problems": {k: v for k, v in problems.items()}, "stats": dict(stats), "money": money,
                "incomplete": incomplete,
                "counts": {"messages_listed": sum(len(v) for v in mailbox.values()),
                           "payment_records_listed": sum(len(v) for v in payments.values()),
                           "requests_listed": sum(len(v) for v in requests.values()),
                           "rides_listed": sum(len(v) for v in ride_lists.values()),
                           "charges_listed": sum(len(v) for v in charges.values()),
                           "notes_listed": sum(len(nb.notes) for nb in notebooks.values()),
                           "tasks_listed": sum(len(nb.tasks) for nb in notebooks.values()),
                           "task_lists_listed": sum(len(nb.task_lists) for nb in notebooks.values())}}


def explain(residual, unacked):
    """A subset of the unacknowledged transfers (each at most once) whose movements make up the
    residual of every account, or None."""
    if len(unacked) > 20:
        return None
    for size in range(0, len(unacked) + 1):
        for chosen in combinations(unacked, size):
            delta = collections.Counter()
            for w in chosen:
                delta[w["from"]] -= w["cents"]
                delta[w["to"]] += w["cents"]
            if all(delta[a] == v for a, v in residual.items()):
                return list(chosen)
    return None


def cents(amount):
    return amount.units * 100 + amount.nanos // 10_000_000
