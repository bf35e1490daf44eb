"""UnicornPay (payments-service): every intent, on its own endpoint and through the gateway. Only the
seeded `diana` has accounts, so the tests share her books and check changes relative to what they
read before; every payments intent waits for the user's yes (USER_CONFIRMATION_REQUIRED)."""
import uuid

import pytest
from intentmesh.payments.v1 import payments_pb2 as pay
from intentmesh.v1 import types_pb2 as types

import support as s

APP = "UnicornPay"


@pytest.fixture
def ext(stack, via):
    return stack.extension("payments-service" if via == "direct" else "gateway")


@pytest.fixture
def direct(stack):
    return stack.extension("payments-service")


def usd(units, nanos=0):
    return types.CurrencyAmount(currency_code="USD", units=units, nanos=nanos)


def accounts(extension, **fields):
    """Diana's accounts as SearchForAccounts' full round shows them: {nickname: PaymentAccount}."""
    done = s.sirikit_round(
        extension, s.context(), s.intent("INSearchForAccountsIntent", pay.SearchForAccountsIntent(**fields), APP),
        pay.SearchForAccountsIntentResponse, needs_user_confirmation=True,
    )
    return {account.nickname.spoken_phrase: account for account in done.response.accounts}


def balance(extension, nickname):
    return s.money_cents(accounts(extension)[nickname].balance)


def bill(extension, nickname):
    found = s.handled_response(
        extension, s.context(),
        s.intent("INSearchForBillsIntent", pay.SearchForBillsIntent(
            bill_payee=pay.BillPayee(nickname=types.SpeakableString(spoken_phrase=nickname)))),
        pay.SearchForBillsIntentResponse,
    )
    assert len(found.bills) == 1, found
    return found.bills[0]


def test_send_payment_to_a_known_contact_moves_the_money(ext, direct):
    before = balance(direct, "Rainbow Checking")
    note = f"rainbow polish {uuid.uuid4().hex[:6]}"
    payment = pay.SendPaymentIntent(payee=types.Person(display_name="Buttercup"), currency_amount=usd(12, 340_000_000),
                                    note=note)
    done = s.sirikit_round(ext, s.context(), s.intent("INSendPaymentIntent", payment, APP),
                           pay.SendPaymentIntentResponse, needs_user_confirmation=True)
    assert done.results["payee"][0].success.value.display_text == "Buttercup"
    assert s.kind(done.results["currencyAmount"][0]) == "success"
    pending = s.unpack(done.confirmed.response.payload, pay.SendPaymentIntentResponse).payment_record
    assert pending.status == pay.PAYMENT_STATUS_PENDING
    record = done.response.payment_record
    assert record.status == pay.PAYMENT_STATUS_COMPLETED
    assert record.payee.display_name == "Buttercup"
    assert (record.currency_amount.currency_code, s.money_cents(record.currency_amount)) == ("USD", 1234)
    assert record.payment_method.name == "Rainbow Checking"
    assert record.note == note
    # SearchForAccounts, through the same target, shows the new balance; a retried Handle moves nothing.
    assert balance(ext, "Rainbow Checking") == before - 1234
    assert s.handle(ext, s.context(), done.resolved.resolved_intent).replayed
    assert balance(direct, "Rainbow Checking") == before - 1234


def test_request_payment_records_a_pending_request_and_moves_nothing(ext, direct):
    before = balance(direct, "Rainbow Checking")
    request = pay.RequestPaymentIntent(payer=types.Person(display_name="CJ"), currency_amount=usd(25), note="dinner")
    done = s.sirikit_round(ext, s.context(), s.intent("INRequestPaymentIntent", request, APP),
                           pay.RequestPaymentIntentResponse, needs_user_confirmation=True)
    assert done.results["payer"][0].success.value.display_text == "CJ"
    record = done.response.payment_record
    assert record.status == pay.PAYMENT_STATUS_PENDING
    assert record.payer.display_name == "CJ"
    assert s.money_cents(record.currency_amount) == 2500
    assert balance(direct, "Rainbow Checking") == before


def test_search_for_accounts_shows_miles_first_when_asked(ext):
    found = accounts(ext, account_nickname=types.SpeakableString(spoken_phrase="Sparkle Card"),
                     requested_balance_type=pay.BALANCE_TYPE_MILES)
    assert list(found) == ["Sparkle Card"]
    card = found["Sparkle Card"]
    assert card.account_type == pay.ACCOUNT_TYPE_CREDIT
    assert card.organization_name.spoken_phrase == "Sparkle Credit Union"
    assert (card.balance.balance_type, card.balance.units) == (pay.BALANCE_TYPE_MILES, 12_500)
    assert card.secondary_balance.balance_type == pay.BALANCE_TYPE_MONEY

    everything = accounts(ext)
    assert {"Rainbow Checking", "Rainbow Savings", "Sparkle Card", "Euro Pocket"} <= set(everything)
    assert everything["Euro Pocket"].balance.currency_code == "EUR"


def test_transfer_money_between_own_accounts(ext, direct):
    before = accounts(direct)
    transfer = pay.TransferMoneyIntent(
        from_account=pay.PaymentAccount(nickname=types.SpeakableString(spoken_phrase="Rainbow Savings")),
        to_account=pay.PaymentAccount(nickname=types.SpeakableString(spoken_phrase="Rainbow Checking")),
        transaction_amount=pay.PaymentAmount(amount=types.CurrencyAmount(currency_code="USD", units=10)),
        transaction_note="contract transfer",
    )
    done = s.sirikit_round(ext, s.context(), s.intent("INTransferMoneyIntent", transfer, APP),
                           pay.TransferMoneyIntentResponse, needs_user_confirmation=True)
    assert done.results["fromAccount"][0].success.value.display_text.startswith("Rainbow Savings")
    assert s.money_cents(done.response.transfer_fee) == 0  # same organization: no fee
    assert s.money_cents(done.response.transaction_amount.amount) == 1000
    after = accounts(ext)
    assert s.money_cents(after["Rainbow Savings"].balance) == s.money_cents(before["Rainbow Savings"].balance) - 1000
    assert s.money_cents(after["Rainbow Checking"].balance) == s.money_cents(before["Rainbow Checking"].balance) + 1000
    assert s.money_cents(done.response.from_account.balance) == s.money_cents(after["Rainbow Savings"].balance)


def test_search_for_bills_lists_the_unpaid_ones(ext):
    query = pay.SearchForBillsIntent(status=pay.PAYMENT_STATUS_UNPAID)
    done = s.sirikit_round(ext, s.context(), s.intent("INSearchForBillsIntent", query, APP),
                           pay.SearchForBillsIntentResponse, needs_user_confirmation=True)
    payees = {b.bill_payee.nickname.spoken_phrase for b in done.response.bills}
    assert {"Unicorn Power", "Rainbow Water", "Sparkle Card"} <= payees
    assert "Cloud Cable" not in payees  # paid
    power = next(b for b in done.response.bills if b.bill_payee.nickname.spoken_phrase == "Unicorn Power")
    assert power.bill_type == pay.BILL_TYPE_ELECTRICITY


def test_pay_bill_lowers_what_is_due_and_the_balance(ext, direct):
    due_before = s.money_cents(bill(direct, "Unicorn Power").amount_due)
    balance_before = balance(direct, "Rainbow Checking")
    payment = pay.PayBillIntent(
        bill_payee=pay.BillPayee(nickname=types.SpeakableString(spoken_phrase="Unicorn Power")),
        transaction_amount=pay.PaymentAmount(amount=usd(5)),
    )
    done = s.sirikit_round(ext, s.context(), s.intent("INPayBillIntent", payment, APP), pay.PayBillIntentResponse,
                           needs_user_confirmation=True)
    assert done.results["fromAccount"][0].success.value.display_text.startswith("Rainbow Checking")
    assert s.money_cents(done.response.bill_details.amount_due) == due_before - 500
    assert s.money_cents(bill(ext, "Unicorn Power").amount_due) == due_before - 500
    assert balance(ext, "Rainbow Checking") == balance_before - 500


def test_an_amount_in_an_unsupported_currency_is_refused_with_its_reason(ext):
    payment = pay.SendPaymentIntent(payee=types.Person(display_name="Buttercup"),
                                    currency_amount=types.CurrencyAmount(currency_code="CHF", units=10))
    resolved = s.resolve(ext, s.context(), s.intent("INSendPaymentIntent", payment, APP))
    assert not resolved.complete
    result = s.results(resolved)["currencyAmount"][0]
    assert s.kind(result) == "unsupported"
    assert result.unsupported.reason.name == "paymentsCurrencyUnsupported"
    confirmed = s.confirm(ext, s.context(), resolved.resolved_intent)
    assert confirmed.response.code_name == "failurePaymentsCurrencyUnsupported"


def test_currency_codes_are_iso_4217_as_given(ext):
    """No code is asked for, never taken as USD; "usd" is not a code UnicornPay supports."""
    def amount_result(code):
        payment = pay.SendPaymentIntent(payee=types.Person(display_name="Buttercup"),
                                        currency_amount=types.CurrencyAmount(currency_code=code, units=10))
        resolved = s.resolve(ext, s.context(), s.intent("INSendPaymentIntent", payment, APP))
        assert not resolved.complete
        return s.results(resolved)["currencyAmount"][0]
    assert s.kind(amount_result("")) == "needs_value"
    lower = amount_result("usd")
    assert s.kind(lower) == "unsupported"
    assert lower.unsupported.reason.name == "paymentsCurrencyUnsupported"
