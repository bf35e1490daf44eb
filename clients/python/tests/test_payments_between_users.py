"""UnicornPay between users (intentmesh.payments.v1.UnicornPayApp): users who exist only because they
signed up through the app API pay and ask each other, on the payments domain's own port and through
the gateway's public port (which relays the app service as it relays the intents). The stack is
shared by the whole suite, so every test makes its own users (ids with a uuid suffix) and checks
absolute values on their books. The last test checks that UnicornChat's app API is relayed too."""
import uuid

import grpc
import pytest
from intentmesh.payments.v1 import app_pb2 as app
from intentmesh.payments.v1 import app_pb2_grpc
from intentmesh.payments.v1 import payments_pb2 as pay
from intentmesh.v1 import types_pb2 as types

import support as s

APP = "UnicornPay"
HANDLE_DOMAIN = "unicornpay.example"


def target(via):
    return "payments-service" if via == "direct" else "gateway"


@pytest.fixture
def ext(stack, via):
    """The Intents extension on `via`; calls are signed in as their context's user."""
    return stack.extension(target(via))


@pytest.fixture
def pay_app(stack, via):
    """UnicornPayApp on `via`, on a channel that sends no token of its own (each call names its user)."""
    return app_pb2_grpc.UnicornPayAppStub(stack.raw_channel(target(via)))


class User:
    """A user of this test: id, token metadata, display name and handle."""

    def __init__(self, stack, prefix, name):
        self.id = f"{prefix}-{uuid.uuid4().hex[:10]}"
        self.name = name
        self.handle = f"{self.id}@{HANDLE_DOMAIN}"
        self.auth = [("authorization", f"Bearer {stack.token(self.id)}")]


def usd(units, nanos=0):
    return types.CurrencyAmount(currency_code="USD", units=units, nanos=nanos)


def money(amount):
    """(currency code, minor units) of a CurrencyAmount."""
    return amount.currency_code, s.money_cents(amount)


def sign_up(stub, user, handle=None, currency=""):
    return stub.SignUp(app.SignUpRequest(display_name=user.name, handle=handle or user.handle, home_currency=currency),
                       metadata=user.auth, timeout=s.TIMEOUT)


def balances(stub, user):
    """{nickname: (currency, minor units)} of the user's accounts."""
    listed = stub.ListAccounts(app.ListAccountsRequest(), metadata=user.auth, timeout=s.TIMEOUT).accounts
    return {account.nickname: money(account.balance) for account in listed}


def payments(stub, user):
    return list(stub.ListPayments(app.ListPaymentsRequest(), metadata=user.auth, timeout=s.TIMEOUT).payments)


def requests(stub, user, pending_only=False):
    return list(stub.ListRequests(app.ListRequestsRequest(pending_only=pending_only), metadata=user.auth,
                                  timeout=s.TIMEOUT).requests)


def add_payee(stub, user, other, display_name=None):
    return stub.AddPayee(app.AddPayeeRequest(payee=app.Payee(display_name=display_name or other.name,
                                                             handle=other.handle)),
                         metadata=user.auth, timeout=s.TIMEOUT).payee


def add_funds(stub, user, account_identifier, amount):
    return stub.AddFunds(app.AddFundsRequest(account_identifier=account_identifier, amount=amount),
                         metadata=user.auth, timeout=s.TIMEOUT).account


def send_payment(extension, user, payee, amount, note):
    """INSendPaymentIntent as `user`: the full round (resolve, confirm — waits for the user's yes —,
    handle with Confirm's confirmation token)."""
    payment = pay.SendPaymentIntent(payee=types.Person(display_name=payee), currency_amount=amount, note=note)
    return s.sirikit_round(extension, s.context(user.id), s.intent("INSendPaymentIntent", payment, APP),
                           pay.SendPaymentIntentResponse, needs_user_confirmation=True)


def request_payment(extension, user, payer, amount, note):
    request = pay.RequestPaymentIntent(payer=types.Person(display_name=payer), currency_amount=amount, note=note)
    return s.sirikit_round(extension, s.context(user.id), s.intent("INRequestPaymentIntent", request, APP),
                           pay.RequestPaymentIntentResponse, needs_user_confirmation=True)


def search_bills(extension, user, code_name="success", **fields):
    return s.handled_response(
        extension, s.context(user.id), s.intent("INSearchForBillsIntent", pay.SearchForBillsIntent(**fields), APP),
        pay.SearchForBillsIntentResponse, code_name=code_name).bills


@pytest.fixture
def ava_and_ben(stack, pay_app):
    """Ava (100.00 USD in her UnicornPay Balance) and Ben (empty), each the other's payee."""
    ava, ben = User(stack, "ava", "Ava Stardust"), User(stack, "ben", "Ben Moonbeam")
    signed_up = sign_up(pay_app, ava)
    sign_up(pay_app, ben)
    add_funds(pay_app, ava, signed_up.account.identifier, usd(100))
    add_payee(pay_app, ava, ben)
    add_payee(pay_app, ben, ava)
    return ava, ben, signed_up.account.identifier


def test_sign_up_makes_a_profile_and_an_empty_default_account(stack, pay_app):
    ava = User(stack, "ava", "Ava Stardust")
    s.expect_status(lambda: pay_app.GetProfile(app.GetProfileRequest(), metadata=ava.auth, timeout=s.TIMEOUT),
                    grpc.StatusCode.NOT_FOUND, "SignUp")
    done = sign_up(pay_app, ava, handle=f"  {ava.id.upper()}@UnicornPay.Example ")
    assert (done.profile.user_id, done.profile.display_name) == (ava.id, "Ava Stardust")
    assert done.profile.handle == ava.handle  # trimmed and lower-cased
    assert done.profile.home_currency == "USD"  # empty: USD
    account = done.account
    assert (account.nickname, account.type, account.organization_name) == (
        "UnicornPay Balance", pay.ACCOUNT_TYPE_PREPAID, "UnicornPay")
    assert account.is_default and account.identifier
    assert money(account.balance) == ("USD", 0)
    assert pay_app.GetProfile(app.GetProfileRequest(), metadata=ava.auth, timeout=s.TIMEOUT).profile == done.profile
    assert balances(pay_app, ava) == {"UnicornPay Balance": ("USD", 0)}

    funded = add_funds(pay_app, ava, account.identifier, usd(42, 500_000_000))
    assert money(funded.balance) == ("USD", 4250)
    assert balances(pay_app, ava) == {"UnicornPay Balance": ("USD", 4250)}

    euro = User(stack, "eur", "Elio Euro")
    assert sign_up(pay_app, euro, currency="EUR").account.balance.currency_code == "EUR"


def test_ava_pays_ben_and_both_see_it(stack, pay_app, ext, ava_and_ben):
    ava, ben, ava_account = ava_and_ben
    payees = pay_app.ListPayees(app.ListPayeesRequest(), metadata=ava.auth, timeout=s.TIMEOUT).payees
    assert [(p.display_name, p.given_name, p.family_name, p.handle, p.is_user) for p in payees] == [
        ("Ben Moonbeam", "Ben", "Moonbeam", ben.handle, True)]
    note = f"stardust {uuid.uuid4().hex[:6]}"

    done = send_payment(ext, ava, "Ben", usd(25), note)
    assert done.results["payee"][0].success.value.display_text == "Ben Moonbeam"
    record = done.response.payment_record
    assert record.status == pay.PAYMENT_STATUS_COMPLETED
    assert record.payee.display_name == "Ben Moonbeam"
    assert money(record.currency_amount) == ("USD", 2500)
    assert record.payment_method.name == "UnicornPay Balance"
    assert record.note == note
    # A retried Handle replays the first answer and moves nothing.
    assert s.handle(ext, s.context(ava.id), done.resolved.resolved_intent).replayed

    assert balances(pay_app, ava) == {"UnicornPay Balance": ("USD", 7500)}
    assert balances(pay_app, ben) == {"UnicornPay Balance": ("USD", 2500)}
    sent = payments(pay_app, ava)
    assert [(p.direction, p.counterparty_name, p.counterparty_handle, money(p.amount), p.note, p.status)
            for p in sent] == [(app.PAYMENT_DIRECTION_SENT, "Ben Moonbeam", ben.handle, ("USD", 2500), note,
                                pay.PAYMENT_STATUS_COMPLETED)]
    assert sent[0].account_identifier == ava_account
    received = payments(pay_app, ben)
    assert [(p.direction, p.counterparty_name, p.counterparty_handle, money(p.amount), p.note, p.status)
            for p in received] == [(app.PAYMENT_DIRECTION_RECEIVED, "Ava Stardust", ava.handle, ("USD", 2500), note,
                                    pay.PAYMENT_STATUS_COMPLETED)]
    ben_accounts = pay_app.ListAccounts(app.ListAccountsRequest(), metadata=ben.auth, timeout=s.TIMEOUT).accounts
    assert received[0].account_identifier == ben_accounts[0].identifier
    assert received[0].identifier != sent[0].identifier

    # Ben pays some back by intent too: the money goes the other way.
    send_payment(ext, ben, "Ava", usd(5), "change")
    assert balances(pay_app, ava) == {"UnicornPay Balance": ("USD", 8000)}
    assert balances(pay_app, ben) == {"UnicornPay Balance": ("USD", 2000)}
    assert [p.direction for p in payments(pay_app, ava)] == [app.PAYMENT_DIRECTION_RECEIVED, app.PAYMENT_DIRECTION_SENT]


def test_ben_asks_ava_who_pays_one_request_and_declines_another(stack, pay_app, ext, ava_and_ben):
    ava, ben, ava_account = ava_and_ben
    cake_note, tour_note = f"moon cake {uuid.uuid4().hex[:6]}", f"comet tour {uuid.uuid4().hex[:6]}"
    asked = request_payment(ext, ben, "Ava", usd(10), cake_note)
    assert asked.results["payer"][0].success.value.display_text == "Ava Stardust"
    assert asked.response.payment_record.status == pay.PAYMENT_STATUS_PENDING
    assert money(asked.response.payment_record.currency_amount) == ("USD", 1000)
    request_payment(ext, ben, "Ava", usd(40), tour_note)
    assert balances(pay_app, ava) == {"UnicornPay Balance": ("USD", 10000)}  # asking moves nothing

    pending = requests(pay_app, ava, pending_only=True)
    assert sorted((r.note, money(r.amount), r.requester_name, r.requester_handle, r.status) for r in pending) == [
        (tour_note, ("USD", 4000), "Ben Moonbeam", ben.handle, pay.PAYMENT_STATUS_UNPAID),
        (cake_note, ("USD", 1000), "Ben Moonbeam", ben.handle, pay.PAYMENT_STATUS_UNPAID),
    ]
    assert [r.note for r in pending] == [tour_note, cake_note]  # newest first
    cake = next(r for r in pending if r.note == cake_note)
    tour = next(r for r in pending if r.note == tour_note)
    assert requests(pay_app, ben) == []  # Ben asked; nobody asked him
    ben_asked = payments(pay_app, ben)
    assert sorted((p.direction, p.note, p.counterparty_handle, p.status) for p in ben_asked) == sorted([
        (app.PAYMENT_DIRECTION_REQUESTED, cake_note, ava.handle, pay.PAYMENT_STATUS_PENDING),
        (app.PAYMENT_DIRECTION_REQUESTED, tour_note, ava.handle, pay.PAYMENT_STATUS_PENDING),
    ])

    # Each request is also one of Ava's bills, by the requester's name.
    bills = search_bills(ext, ava, bill_payee=pay.BillPayee(
        nickname=types.SpeakableString(spoken_phrase="Ben Moonbeam")))
    assert sorted((b.bill_payee.nickname.spoken_phrase, money(b.amount_due), b.payment_status) for b in bills) == [
        ("Ben Moonbeam", ("USD", 1000), pay.PAYMENT_STATUS_UNPAID),
        ("Ben Moonbeam", ("USD", 4000), pay.PAYMENT_STATUS_UNPAID),
    ]
    unpaid = search_bills(ext, ava, status=pay.PAYMENT_STATUS_UNPAID)
    assert sorted(s.money_cents(b.amount_due) for b in unpaid) == [1000, 4000]

    # An intruder, and Ben himself, can neither answer Ava's requests nor see them.
    eve = User(stack, "eve", "Eve Shadow")
    sign_up(pay_app, eve)
    for intruder in (eve, ben):
        s.expect_status(lambda: pay_app.PayRequest(app.PayRequestRequest(identifier=cake.identifier),
                                                   metadata=intruder.auth, timeout=s.TIMEOUT),
                        grpc.StatusCode.NOT_FOUND, cake.identifier)
        s.expect_status(lambda: pay_app.DeclineRequest(app.DeclineRequestRequest(identifier=tour.identifier),
                                                       metadata=intruder.auth, timeout=s.TIMEOUT),
                        grpc.StatusCode.NOT_FOUND, tour.identifier)
    assert requests(pay_app, eve) == [] and requests(pay_app, eve, pending_only=True) == []
    assert payments(pay_app, eve) == []
    assert [r.status for r in requests(pay_app, ava, pending_only=True)] == [pay.PAYMENT_STATUS_UNPAID] * 2
    assert balances(pay_app, eve) == {"UnicornPay Balance": ("USD", 0)}

    paid = pay_app.PayRequest(app.PayRequestRequest(identifier=cake.identifier), metadata=ava.auth, timeout=s.TIMEOUT)
    assert (paid.request.identifier, paid.request.status) == (cake.identifier, pay.PAYMENT_STATUS_COMPLETED)
    assert (paid.account.identifier, money(paid.account.balance)) == (ava_account, ("USD", 9000))
    s.expect_status(lambda: pay_app.PayRequest(app.PayRequestRequest(identifier=cake.identifier), metadata=ava.auth,
                                               timeout=s.TIMEOUT),
                    grpc.StatusCode.FAILED_PRECONDITION, "no longer pending")
    declined = pay_app.DeclineRequest(app.DeclineRequestRequest(identifier=tour.identifier), metadata=ava.auth,
                                      timeout=s.TIMEOUT)
    assert (declined.request.identifier, declined.request.status) == (tour.identifier, pay.PAYMENT_STATUS_CANCELED)
    s.expect_status(lambda: pay_app.PayRequest(app.PayRequestRequest(identifier=tour.identifier), metadata=ava.auth,
                                               timeout=s.TIMEOUT),
                    grpc.StatusCode.FAILED_PRECONDITION, "no longer pending")

    assert requests(pay_app, ava, pending_only=True) == []
    assert sorted((r.note, r.status) for r in requests(pay_app, ava)) == [
        (tour_note, pay.PAYMENT_STATUS_CANCELED), (cake_note, pay.PAYMENT_STATUS_COMPLETED)]
    # No unpaid bill is left: SiriKit's failureBillNotFound, not an empty success.
    assert search_bills(ext, ava, code_name="failureBillNotFound", status=pay.PAYMENT_STATUS_UNPAID) == []
    assert balances(pay_app, ava) == {"UnicornPay Balance": ("USD", 9000)}
    assert balances(pay_app, ben) == {"UnicornPay Balance": ("USD", 1000)}
    # Ben's view: one request completed, one canceled, 10.00 received from Ava.
    ben_view = payments(pay_app, ben)
    assert sorted((p.direction, p.note, money(p.amount), p.status) for p in ben_view) == sorted([
        (app.PAYMENT_DIRECTION_REQUESTED, cake_note, ("USD", 1000), pay.PAYMENT_STATUS_COMPLETED),
        (app.PAYMENT_DIRECTION_REQUESTED, tour_note, ("USD", 4000), pay.PAYMENT_STATUS_CANCELED),
        (app.PAYMENT_DIRECTION_RECEIVED, cake_note, ("USD", 1000), pay.PAYMENT_STATUS_COMPLETED),
    ])
    assert [(p.direction, p.counterparty_handle, money(p.amount)) for p in payments(pay_app, ava)] == [
        (app.PAYMENT_DIRECTION_SENT, ben.handle, ("USD", 1000))]
    assert payments(pay_app, eve) == [] and requests(pay_app, eve) == []


def test_a_request_is_paid_with_the_pay_bill_intent(stack, pay_app, ext, ava_and_ben):
    ava, ben, _ = ava_and_ben
    note = f"star map {uuid.uuid4().hex[:6]}"
    request_payment(ext, ben, "Ava", usd(15), note)
    [request] = requests(pay_app, ava, pending_only=True)
    bill = pay.PayBillIntent(bill_payee=pay.BillPayee(nickname=types.SpeakableString(spoken_phrase="Ben Moonbeam")),
                             transaction_amount=pay.PaymentAmount(amount=usd(15)))
    done = s.sirikit_round(ext, s.context(ava.id), s.intent("INPayBillIntent", bill, APP), pay.PayBillIntentResponse,
                           needs_user_confirmation=True)
    assert done.results["fromAccount"][0].success.value.display_text.startswith("UnicornPay Balance")
    assert s.money_cents(done.response.bill_details.amount_due) == 0
    assert balances(pay_app, ava) == {"UnicornPay Balance": ("USD", 8500)}
    assert balances(pay_app, ben) == {"UnicornPay Balance": ("USD", 1500)}
    assert [(r.identifier, r.status) for r in requests(pay_app, ava)] == [
        (request.identifier, pay.PAYMENT_STATUS_COMPLETED)]
    assert sorted((p.direction, p.note, p.status) for p in payments(pay_app, ben)) == sorted([
        (app.PAYMENT_DIRECTION_REQUESTED, note, pay.PAYMENT_STATUS_COMPLETED),
        (app.PAYMENT_DIRECTION_RECEIVED, note, pay.PAYMENT_STATUS_COMPLETED),
    ])


def test_a_payee_who_is_no_user_cannot_be_paid_or_asked_until_added_again_once_they_signed_up(stack, pay_app, ext):
    ava, cara = User(stack, "ava", "Ava Stardust"), User(stack, "cara", "Cara Comet")
    add_funds(pay_app, ava, sign_up(pay_app, ava).account.identifier, usd(20))
    assert add_payee(pay_app, ava, cara).is_user is False
    for intent_class, message, parameter in [
        ("INSendPaymentIntent", pay.SendPaymentIntent(payee=types.Person(display_name="Cara"), currency_amount=usd(5)),
         "payee"),
        ("INRequestPaymentIntent", pay.RequestPaymentIntent(payer=types.Person(display_name="Cara"),
                                                            currency_amount=usd(5)), "payer"),
    ]:
        resolved = s.resolve(ext, s.context(ava.id), s.intent(intent_class, message, APP))
        assert not resolved.complete
        [result] = s.results(resolved)[parameter]
        assert (s.kind(result), result.unsupported.reason.name) == ("unsupported", "noAccount")
        assert s.confirm(ext, s.context(ava.id), resolved.resolved_intent).response.code_name == "failure"

    # A payee is bound to the user who held the handle when it was added: Cara signing up later takes
    # nothing of Ava's until Ava adds the handle again, meaning her.
    sign_up(pay_app, cara)
    listed = pay_app.ListPayees(app.ListPayeesRequest(), metadata=ava.auth, timeout=s.TIMEOUT).payees
    assert [(p.handle, p.is_user) for p in listed] == [(cara.handle, False)]
    assert add_payee(pay_app, ava, cara).is_user is True
    listed = pay_app.ListPayees(app.ListPayeesRequest(), metadata=ava.auth, timeout=s.TIMEOUT).payees
    assert [(p.handle, p.is_user) for p in listed] == [(cara.handle, True)]
    send_payment(ext, ava, "Cara", usd(5), "welcome")
    assert balances(pay_app, ava) == {"UnicornPay Balance": ("USD", 1500)}
    assert balances(pay_app, cara) == {"UnicornPay Balance": ("USD", 500)}


def test_bad_input_is_refused_with_its_status_and_changes_nothing(stack, pay_app, ext, ava_and_ben):
    ava, ben, ava_account = ava_and_ben
    code = grpc.StatusCode

    def call(method, request, user):
        return lambda: method(request, metadata=user.auth, timeout=s.TIMEOUT)

    s.expect_status(call(pay_app.AddFunds, app.AddFundsRequest(
        account_identifier=ava_account, amount=types.CurrencyAmount(currency_code="EUR", units=10)), ava),
        code.INVALID_ARGUMENT, "USD", "EUR")
    s.expect_status(call(pay_app.AddFunds, app.AddFundsRequest(account_identifier=ava_account, amount=usd(0)), ava),
                    code.INVALID_ARGUMENT)
    # Nobody adds money to another user's account.
    s.expect_status(call(pay_app.AddFunds, app.AddFundsRequest(account_identifier=ava_account, amount=usd(10)), ben),
                    code.NOT_FOUND)
    eve = User(stack, "eve", "Eve Shadow")
    for currency in ("usd", "CHF"):
        s.expect_status(call(pay_app.SignUp, app.SignUpRequest(display_name=eve.name, handle=eve.handle,
                                                               home_currency=currency), eve),
                        code.INVALID_ARGUMENT, currency)
    s.expect_status(call(pay_app.SignUp, app.SignUpRequest(display_name=eve.name, handle="not a handle"), eve),
                    code.INVALID_ARGUMENT, "handle")
    s.expect_status(call(pay_app.GetProfile, app.GetProfileRequest(), eve), code.NOT_FOUND)  # none of it signed up
    s.expect_status(call(pay_app.AddPayee, app.AddPayeeRequest(payee=app.Payee(display_name="Me", handle=ava.handle)),
                         ava),
                    code.INVALID_ARGUMENT, "own payee")
    s.expect_status(call(pay_app.AddPayee, app.AddPayeeRequest(
        payee=app.Payee(display_name="Ben again", handle=ben.handle.upper())), ava), code.ALREADY_EXISTS)
    s.expect_status(call(pay_app.SignUp, app.SignUpRequest(display_name="Ava Again", handle=f"again-{ava.handle}"),
                         ava),
                    code.ALREADY_EXISTS, ava.id)
    s.expect_status(call(pay_app.SignUp, app.SignUpRequest(display_name="Thief", handle=ben.handle), eve),
                    code.ALREADY_EXISTS, ben.handle)
    s.expect_status(call(pay_app.ListPayments, app.ListPaymentsRequest(limit=501), ava), code.INVALID_ARGUMENT)
    s.expect_status(lambda: pay_app.ListPayments(app.ListPaymentsRequest(), metadata=[("authorization", "Bearer x")],
                                                 timeout=s.TIMEOUT),
                    code.UNAUTHENTICATED)

    # A request for more than Ava holds cannot be paid; it stays pending.
    request_payment(ext, ben, "Ava", usd(500), "comet")
    [comet] = requests(pay_app, ava, pending_only=True)
    s.expect_status(call(pay_app.PayRequest, app.PayRequestRequest(identifier=comet.identifier), ava),
                    code.FAILED_PRECONDITION, "500.00 USD")
    assert [r.status for r in requests(pay_app, ava)] == [pay.PAYMENT_STATUS_UNPAID]

    assert balances(pay_app, ava) == {"UnicornPay Balance": ("USD", 10000)}
    assert balances(pay_app, ben) == {"UnicornPay Balance": ("USD", 0)}
    assert pay_app.GetProfile(app.GetProfileRequest(), metadata=ava.auth, timeout=s.TIMEOUT).profile.display_name == (
        "Ava Stardust")
    assert [p.handle for p in pay_app.ListPayees(app.ListPayeesRequest(), metadata=ava.auth,
                                                 timeout=s.TIMEOUT).payees] == [ben.handle]
    assert payments(pay_app, ava) == []
    assert [(p.direction, p.status) for p in payments(pay_app, ben)] == [
        (app.PAYMENT_DIRECTION_REQUESTED, pay.PAYMENT_STATUS_PENDING)]


def test_unicornchat_app_api_is_relayed_by_the_gateway(stack):
    from intentmesh.messaging.v1 import app_pb2 as chat_app
    from intentmesh.messaging.v1 import app_pb2_grpc as chat_app_grpc

    chat = chat_app_grpc.UnicornChatAppStub(stack.raw_channel("gateway"))
    direct = chat_app_grpc.UnicornChatAppStub(stack.raw_channel("messaging-service"))
    ava, ben = User(stack, "ava", "Ava Stardust"), User(stack, "ben", "Ben Moonbeam")
    s.expect_status(lambda: chat.GetAccount(chat_app.GetAccountRequest(), metadata=ava.auth, timeout=s.TIMEOUT),
                    grpc.StatusCode.NOT_FOUND)
    handle = f"{ava.id}@unicorn.chat"
    done = chat.SignUp(chat_app.SignUpRequest(display_name=ava.name, handle=handle), metadata=ava.auth,
                       timeout=s.TIMEOUT)
    assert (done.account.user_id, done.account.display_name, done.account.handle) == (ava.id, ava.name, handle)
    through_gateway = chat.GetAccount(chat_app.GetAccountRequest(), metadata=ava.auth, timeout=s.TIMEOUT).account
    assert through_gateway == done.account
    # The same account on the domain's own port: the gateway relayed the call, it made no copy.
    assert direct.GetAccount(chat_app.GetAccountRequest(), metadata=ava.auth, timeout=s.TIMEOUT).account == done.account
    s.expect_status(lambda: chat.SignUp(chat_app.SignUpRequest(display_name=ben.name, handle=handle),
                                        metadata=ben.auth, timeout=s.TIMEOUT),
                    grpc.StatusCode.ALREADY_EXISTS)
    s.expect_status(lambda: chat.GetAccount(chat_app.GetAccountRequest(), timeout=s.TIMEOUT),
                    grpc.StatusCode.UNAUTHENTICATED)
