"""The users and the workload: sign-up through the app APIs, then CLIENTS threads of mixed intents
through the gateway (messages, payments, requests paid as bills, transfers, rides, notes, appends,
reminders, task lists, searches), every write carrying a unique token the audit looks for."""
import datetime
import queue
import threading
import time
import traceback

import grpc
from intentmesh.messaging.v1 import messaging_pb2 as chat, app_pb2 as chat_app
from intentmesh.notebook.v1 import notebook_pb2 as notes
from intentmesh.payments.v1 import payments_pb2 as pay, app_pb2 as pay_app
from intentmesh.ridebooking.v1 import ridebooking_pb2 as rides, app_pb2 as rides_app
from intentmesh.v1 import extension_service_pb2 as ext_pb2
from intentmesh.v1 import intent_pb2, types_pb2 as types

from .audit import cents
from .config import APP, FAMILY_NAMES, FIRST_NAMES, RETRYABLE, SetupError
from .record import CallFailed, Stopping


class User:
    def __init__(self, index, run):
        first = FIRST_NAMES[index]
        self.index = index
        self.id = f"chaos-{run}-{first.lower()}"
        self.name = f"{first} {FAMILY_NAMES[index % len(FAMILY_NAMES)]}"
        self.chat_handle = f"{self.id}@unicorn.chat"
        self.pay_handle = f"{self.id}@unicornpay.example"
        self.auth = None
        self.friends = []
        self.accounts = {}  # role → account identifier ("balance", "euro", "savings")
        # What each user may hold before a listing no longer shows everything (limits 500 / 100).
        self.mailbox = 0
        self.pay_records = 0
        self.rides = 0


MAILBOX_CAP = 460
PAY_RECORDS_CAP = 460
RIDES_CAP = 90


class Workload:
    """Part of `Chaos` (run.py): the setup of the users and the client threads' operations."""

    def setup(self):
        cfg = self.config
        self.users = [User(i, self.run) for i in range(cfg.users)]
        for user in self.users:
            user.auth = [("authorization", f"Bearer {self.stack.token(user.id)}")]
        for index, user in enumerate(self.users):
            user.friends = [self.users[(index + k) % len(self.users)] for k in range(1, cfg.friends + 1)]
        client = self.make_client("setup")
        budget = 30

        def call(domain, method, callable_, request, user):
            return self.rpc(client, domain, method, callable_, request, user.auth, budget=budget)

        for user in self.users:
            call("messaging", "SignUp", client.chat.SignUp,
                 chat_app.SignUpRequest(display_name=user.name, handle=user.chat_handle), user)
            signed = call("payments", "SignUp", client.pay.SignUp,
                          pay_app.SignUpRequest(display_name=user.name, handle=user.pay_handle, home_currency="USD"),
                          user)
            user.accounts["balance"] = signed.account.identifier
            euro = call("payments", "OpenAccount", client.pay.OpenAccount,
                        pay_app.OpenAccountRequest(nickname="Chaos Euro", type=pay.ACCOUNT_TYPE_PREPAID,
                                                   currency="EUR", make_default=True), user)
            user.accounts["euro"] = euro.account.identifier
            savings = call("payments", "OpenAccount", client.pay.OpenAccount,
                           pay_app.OpenAccountRequest(nickname="Chaos Savings", type=pay.ACCOUNT_TYPE_SAVING,
                                                      currency="USD"), user)
            user.accounts["savings"] = savings.account.identifier
            call("payments", "AddFunds", client.pay.AddFunds,
                 pay_app.AddFundsRequest(account_identifier=user.accounts["balance"],
                                         amount=types.CurrencyAmount(currency_code="USD", units=2000)), user)
            call("payments", "AddFunds", client.pay.AddFunds,
                 pay_app.AddFundsRequest(account_identifier=user.accounts["euro"],
                                         amount=types.CurrencyAmount(currency_code="EUR", units=1000)), user)
            card = types.PaymentMethod(type=types.PaymentMethod.TYPE_DEBIT, name=f"{user.name.split()[0]}'s Card",
                                       identification_hint=f"{4200 + user.index}")
            call("ridebooking", "SignUp", client.rides.SignUp,
                 rides_app.SignUpRequest(display_name=user.name, payment_method=card), user)
        for user in self.users:
            for friend in user.friends:
                call("messaging", "AddContact", client.chat.AddContact,
                     chat_app.AddContactRequest(contact=chat_app.Contact(display_name=friend.name,
                                                                         handle=friend.chat_handle)), user)
                call("payments", "AddPayee", client.pay.AddPayee,
                     pay_app.AddPayeeRequest(payee=pay_app.Payee(display_name=friend.name,
                                                                 handle=friend.pay_handle)), user)
        # The books before the workload: balances, and no payment records yet.
        for user in self.users:
            listed = call("payments", "ListAccounts", client.pay.ListAccounts, pay_app.ListAccountsRequest(), user)
            for account in listed.accounts:
                self.initial_accounts[account.identifier] = {
                    "user": user.id, "nickname": account.nickname, "currency": account.balance.currency_code,
                    "cents": cents(account.balance)}
            records = call("payments", "ListPayments", client.pay.ListPayments,
                           pay_app.ListPaymentsRequest(limit=500), user)
            if records.payments:
                raise SetupError(f"{user.id} has payment records before the workload: {records.payments}")
        client.channel.close()
        self.free_riders = queue.Queue()
        for user in self.users:
            self.free_riders.put(user)

    # -- the workload ----------------------------------------------------------------------------

    def take(self, items):
        """Takes room in users' listings ([(user, field, amount, cap)], all or nothing), so that at the
        audit a listing (ListMessages ≤ 500, ListPayments ≤ 500, ListRides ≤ 100) still shows
        everything; False when one of them is full."""
        with self.lock:
            if any(getattr(u, f) + a > cap for u, f, a, cap in items):
                return False
            for u, f, a, _ in items:
                setattr(u, f, getattr(u, f) + a)
            return True

    def op_send_message(self, client):
        rng = client.rng
        sender = rng.choice(self.users)
        recipients = rng.sample(sender.friends, rng.choice([1, 1, 2]))
        if not self.take([(sender, "mailbox", len(recipients), MAILBOX_CAP)] +
                         [(r, "mailbox", 1, MAILBOX_CAP) for r in recipients]):
            self.rec.skipped["message: mailbox full"] += 1
            return
        token = self.token()
        message = chat.SendMessageIntent(recipients=[types.Person(display_name=r.name) for r in recipients],
                                         content=f"chaos {token} says hi")
        self.sirikit_round(client, sender, "messaging", "INSendMessageIntent", message, chat.SendMessageIntentResponse,
                           effect={"kind": "message", "token": token, "recipients": [r.id for r in recipients]})

    def op_search_messages(self, client):
        user = client.rng.choice(self.users)
        who = client.rng.choice(user.friends)
        query = chat.SearchForMessagesIntent(recipients=[types.Person(display_name=who.name)])
        self.sirikit_round(client, user, "messaging", "INSearchForMessagesIntent", query,
                           chat.SearchForMessagesIntentResponse)

    @staticmethod
    def amount(rng, currency, low=100, high=2500):
        value = rng.randrange(low, high)
        return value, types.CurrencyAmount(currency_code=currency, units=value // 100, nanos=(value % 100) * 10_000_000)

    def op_send_payment(self, client):
        rng = client.rng
        payer = rng.choice(self.users)
        payee = rng.choice(payer.friends)
        if not self.take([(payer, "pay_records", 1, PAY_RECORDS_CAP), (payee, "pay_records", 1, PAY_RECORDS_CAP)]):
            self.rec.skipped["payment: records full"] += 1
            return
        currency = "USD" if rng.random() < 0.7 else "EUR"
        value, amount = self.amount(rng, currency)
        token = self.token()
        intent = pay.SendPaymentIntent(payee=types.Person(display_name=payee.name), currency_amount=amount,
                                       note=f"chaos {token}")
        self.sirikit_round(client, payer, "payments", "INSendPaymentIntent", intent, pay.SendPaymentIntentResponse,
                           effect={"kind": "payment", "token": token, "payee": payee.id, "currency": currency,
                                   "cents": value})

    def op_request_and_pay_bill(self, client):
        rng = client.rng
        requester = rng.choice(self.users)
        payer = rng.choice(requester.friends)
        if not self.take([(requester, "pay_records", 2, PAY_RECORDS_CAP), (payer, "pay_records", 1, PAY_RECORDS_CAP)]):
            self.rec.skipped["request: records full"] += 1
            return
        currency = "USD" if rng.random() < 0.7 else "EUR"
        value, amount = self.amount(rng, currency)
        token = self.token()
        note = f"chaos {token}"
        asked = self.sirikit_round(
            client, requester, "payments", "INRequestPaymentIntent",
            pay.RequestPaymentIntent(payer=types.Person(display_name=payer.name), currency_amount=amount, note=note),
            pay.RequestPaymentIntentResponse,
            effect={"kind": "request", "token": token, "payer": payer.id, "currency": currency, "cents": value})
        if not asked or asked[0] != "success":
            return
        try:
            listed = self.rpc(client, "payments", "ListRequests", client.pay.ListRequests,
                              pay_app.ListRequestsRequest(pending_only=True), payer.auth, "ListRequests")
        except CallFailed:
            return
        found = [r for r in listed.requests if r.note == note]
        if len(found) != 1:
            with self.rec.lock:
                self.rec.other_failures.append({"domain": "payments", "method": "ListRequests", "intent": "",
                                                "code": "NOT_LISTED", "t": round(self.rec.now(), 3),
                                                "details": f"acknowledged request {token} listed {len(found)} times"})
            return
        bill = pay.PayBillIntent(
            bill_payee=pay.BillPayee(nickname=types.SpeakableString(spoken_phrase=requester.name,
                                                                    vocabulary_identifier=found[0].identifier)),
            transaction_amount=pay.PaymentAmount(amount_type=pay.AMOUNT_TYPE_AMOUNT_DUE))
        self.sirikit_round(client, payer, "payments", "INPayBillIntent", bill, pay.PayBillIntentResponse,
                           effect={"kind": "bill", "token": token, "requester": requester.id, "currency": currency,
                                   "cents": value, "request": found[0].identifier})

    def op_transfer(self, client):
        rng = client.rng
        user = rng.choice(self.users)
        to_savings = rng.random() < 0.65
        source, target = ("balance", "savings") if to_savings else ("savings", "balance")
        nickname = {"balance": "UnicornPay Balance", "savings": "Chaos Savings"}
        value, amount = self.amount(rng, "USD", 100, 2000)
        token = self.token()

        def account(role):
            return pay.PaymentAccount(nickname=types.SpeakableString(spoken_phrase=nickname[role],
                                                                     vocabulary_identifier=user.accounts[role]))

        intent = pay.TransferMoneyIntent(from_account=account(source), to_account=account(target),
                                         transaction_amount=pay.PaymentAmount(amount=amount),
                                         transaction_note=f"chaos {token}")
        self.sirikit_round(client, user, "payments", "INTransferMoneyIntent", intent, pay.TransferMoneyIntentResponse,
                           effect={"kind": "transfer", "token": token, "from": user.accounts[source],
                                   "to": user.accounts[target], "cents": value})

    def op_search_payments(self, client):
        user = client.rng.choice(self.users)
        if client.rng.random() < 0.5:
            self.sirikit_round(client, user, "payments", "INSearchForAccountsIntent", pay.SearchForAccountsIntent(),
                               pay.SearchForAccountsIntentResponse)
        else:
            self.sirikit_round(client, user, "payments", "INSearchForBillsIntent",
                               pay.SearchForBillsIntent(status=pay.PAYMENT_STATUS_UNPAID),
                               pay.SearchForBillsIntentResponse)

    def op_ride(self, client):
        try:
            rider = self.free_riders.get_nowait()
        except queue.Empty:
            self.rec.skipped["ride: every rider busy"] += 1
            return
        try:
            self.ride(client, rider)
        finally:
            self.free_riders.put(rider)

    def ride(self, client, rider):
        rng = client.rng
        if not self.take([(rider, "rides", 1, RIDES_CAP)]):
            self.rec.skipped["ride: rider full"] += 1
            return
        request = rides.RequestRideIntent(pickup_location=types.Placemark(name="300 Post Street"),
                                          drop_off_location=types.Placemark(name="Moscone West"))
        booking = {"kind": "ride"}
        done = self.sirikit_round(client, rider, "ridebooking", "INRequestRideIntent", request,
                                  rides.RequestRideIntentResponse, effect=booking, time_zone="America/Los_Angeles")
        if not done or done[0] != "success":
            return
        ride_id = done[1].ride_status.ride_identifier
        booking["ride"] = ride_id
        if not ride_id:
            with self.rec.lock:
                self.rec.other_failures.append({"domain": "ridebooking", "method": "Handle",
                                                "intent": "INRequestRideIntent", "code": "NO_RIDE_ID",
                                                "details": "success without a ride identifier",
                                                "t": round(self.rec.now(), 3)})
            return
        # On the wall clock (RIDE_CLOCK_SPEED=1) a ride takes minutes: it is followed (its first live
        # update) and cancelled, so that the three drivers are free again. On a faster clock half the
        # rides are followed to their end and rated.
        wall_clock = self.config.ride_clock <= 1
        if wall_clock or rng.random() < 0.45:
            if wall_clock and rng.random() < 0.5:
                self.follow_ride(client, rider, ride_id, first_only=True)
            self.sirikit_round(client, rider, "ridebooking", "INCancelRideIntent",
                               rides.CancelRideIntent(ride_identifier=ride_id), rides.CancelRideIntentResponse,
                               effect={"kind": "cancel", "ride": ride_id}, time_zone="America/Los_Angeles")
            return
        if not self.follow_ride(client, rider, ride_id):
            return
        if rng.random() < 0.6:
            tip_value, tip = self.amount(rng, "USD", 100, 400)
            self.sirikit_round(client, rider, "ridebooking", "INSendRideFeedbackIntent",
                               rides.SendRideFeedbackIntent(ride_identifier=ride_id, rating=rng.randrange(6, 11),
                                                            tip=tip),
                               rides.SendRideFeedbackIntentResponse,
                               effect={"kind": "feedback", "ride": ride_id, "tip_cents": tip_value},
                               time_zone="America/Los_Angeles")

    def follow_ride(self, client, rider, ride_id, first_only=False):
        """Live updates of the ride through the gateway until it completes (a broken stream is
        opened again), or only its first update; True when it completed (or the first came)."""
        deadline = time.monotonic() + 25
        delay = 0.05
        while time.monotonic() < deadline and not self.abort.is_set():
            request = ext_pb2.StartSendingUpdatesRequest(
                context=intent_pb2.RequestContext(time_zone="America/Los_Angeles"),
                intent=self.intent("INGetRideStatusIntent", rides.GetRideStatusIntent(), APP["ridebooking"]))
            t0 = self.rec.now()
            ours = threading.Event()  # set when this harness ends the stream itself (the load is over)
            try:
                updates = client.ext.StartSendingUpdates(request, metadata=rider.auth,
                                                         timeout=max(1.0, deadline - time.monotonic()))

                def end_at_stop(updates=updates, ours=ours):
                    while not self.stop_workload.wait(0.2):
                        if updates.done():
                            return
                    ours.set()
                    updates.cancel()

                threading.Thread(target=end_at_stop, daemon=True).start()
                for update in updates:
                    answer = rides.GetRideStatusIntentResponse()
                    update.response.payload.Unpack(answer)
                    if answer.ride_status.ride_identifier != ride_id:
                        continue
                    if first_only:
                        updates.cancel()
                        self.rec.ok("ridebooking")
                        self.rec.round_outcome("follow INGetRideStatusIntent", "first update")
                        return True
                    if answer.ride_status.phase == rides.RIDE_PHASE_COMPLETED:
                        updates.cancel()
                        self.rec.ok("ridebooking")
                        self.rec.round_outcome("follow INGetRideStatusIntent", "completed")
                        return True
                self.rec.ok("ridebooking")
                self.rec.round_outcome("follow INGetRideStatusIntent", "ended")
                return False
            except grpc.RpcError as error:
                if ours.is_set():
                    self.rec.round_outcome("follow INGetRideStatusIntent", "ended by the harness (load over)")
                    return False
                if error.code() == grpc.StatusCode.DEADLINE_EXCEEDED and time.monotonic() >= deadline - 0.5:
                    break  # the follow's own time limit, not a failure of the service
                code = error.code().name if error.code() else "UNKNOWN"
                self.rec.error("ridebooking", "StartSendingUpdates", t0, self.rec.now(), code, error.details(),
                               client.name, "INGetRideStatusIntent")
                if code not in RETRYABLE:
                    with self.rec.lock:
                        self.rec.other_failures.append({"domain": "ridebooking", "method": "StartSendingUpdates",
                                                        "intent": "INGetRideStatusIntent", "code": code,
                                                        "details": (error.details() or "")[:300],
                                                        "t": round(self.rec.now(), 3)})
                    return False
                time.sleep(delay)
                delay = min(delay * 2, 0.5)
        self.rec.round_outcome("follow INGetRideStatusIntent", "gave up")
        return False

    def op_ride_status(self, client):
        rider = client.rng.choice(self.users)
        self.sirikit_round(client, rider, "ridebooking", "INGetRideStatusIntent", rides.GetRideStatusIntent(),
                           rides.GetRideStatusIntentResponse, time_zone="America/Los_Angeles")

    @staticmethod
    def spoken(text):
        return types.SpeakableString(spoken_phrase=text)

    def op_create_note(self, client):
        user = client.rng.choice(self.users)
        token = self.token()
        title = f"Note {token}"
        made = notes.CreateNoteIntent(title=self.spoken(title), content=notes.NoteContent(text=f"first {token}"))
        done = self.sirikit_round(client, user, "notes", "INCreateNoteIntent", made, notes.CreateNoteIntentResponse,
                                  effect={"kind": "note", "token": token, "title": title})
        if done and done[0] == "success":
            with self.lock:
                self.notes_by_user[user.id].append(title)

    def op_append(self, client):
        user = client.rng.choice(self.users)
        with self.lock:
            titles = list(self.notes_by_user[user.id])
        if not titles:
            return self.op_create_note(client)
        title = client.rng.choice(titles)
        token = self.token()
        append = notes.AppendToNoteIntent(target_note=notes.Note(title=self.spoken(title)),
                                          content=notes.NoteContent(text=f"more {token}"))
        self.sirikit_round(client, user, "notes", "INAppendToNoteIntent", append, notes.AppendToNoteIntentResponse,
                           effect={"kind": "append", "token": token, "title": title})

    def op_reminder(self, client):
        user = client.rng.choice(self.users)
        token = self.token()
        day = datetime.date.today() + datetime.timedelta(days=2)
        title = f"Remind {token}"
        add = notes.AddTasksIntent(
            task_titles=[self.spoken(title)],
            temporal_event_trigger=notes.TemporalEventTrigger(date_components_range=types.DateComponentsRange(
                start_date_components=types.DateComponents(year=day.year, month=day.month, day=day.day, hour=17))))
        self.sirikit_round(client, user, "notes", "INAddTasksIntent", add, notes.AddTasksIntentResponse,
                           effect={"kind": "reminder", "token": token, "title": title})

    def op_task_list(self, client):
        user = client.rng.choice(self.users)
        token = self.token()
        title = f"List {token}"
        items = [f"Item {token} a", f"Item {token} b"]
        made = notes.CreateTaskListIntent(title=self.spoken(title), task_titles=[self.spoken(t) for t in items])
        self.sirikit_round(client, user, "notes", "INCreateTaskListIntent", made, notes.CreateTaskListIntentResponse,
                           effect={"kind": "list", "token": token, "title": title, "items": items})

    def op_search_notes(self, client):
        user = client.rng.choice(self.users)
        with self.lock:
            titles = list(self.notes_by_user[user.id])
        query = notes.SearchForNotebookItemsIntent(title=self.spoken(client.rng.choice(titles))) if titles else \
            notes.SearchForNotebookItemsIntent(item_type=notes.NOTEBOOK_ITEM_TYPE_TASK_LIST)
        self.sirikit_round(client, user, "notes", "INSearchForNotebookItemsIntent", query,
                           notes.SearchForNotebookItemsIntentResponse)

    def client_loop(self, index):
        client = self.make_client(f"client-{index}", index + 1)
        operations = [
            (self.op_send_message, 3), (self.op_search_messages, 1),
            (self.op_send_payment, 3), (self.op_request_and_pay_bill, 1.2), (self.op_transfer, 1.5),
            (self.op_search_payments, 1),
            (self.op_ride, 1.5), (self.op_ride_status, 0.5),
            (self.op_create_note, 1.5), (self.op_append, 1), (self.op_reminder, 1.5), (self.op_task_list, 1),
            (self.op_search_notes, 1),
        ]
        functions = [f for f, _ in operations]
        weights = [w for _, w in operations]
        try:
            while not self.stop_workload.is_set() and not self.abort.is_set():
                operation = client.rng.choices(functions, weights)[0]
                try:
                    operation(client)
                except Stopping:
                    return
                except Exception:  # a harness bug: keep the evidence, go on
                    with self.rec.lock:
                        self.rec.other_failures.append({"domain": "harness", "method": operation.__name__,
                                                        "intent": "", "code": "EXCEPTION",
                                                        "details": traceback.format_exc()[-1500:],
                                                        "t": round(self.rec.now(), 3)})
                if self.config.think:
                    time.sleep(self.config.think)
        finally:
            client.channel.close()
