"""Identity as a client sees it: every call carries `authorization: Bearer <JWT>`; the user is the
token's subject; a Handle that needs the user's yes needs Confirm's token for exactly that intent.
Each check runs on a domain's own endpoint and through the gateway."""
import uuid

import pytest
from grpc import StatusCode as Code
from intentmesh.payments.v1 import payments_pb2 as pay
from intentmesh.v1 import extension_service_pb2 as ext_pb2
from intentmesh.v1 import extension_service_pb2_grpc as ext_grpc
from intentmesh.v1 import intent_pb2
from intentmesh.v1 import types_pb2 as types

import support as s


def bare(stack, via):
    """A stub whose calls carry only the metadata a test gives them."""
    return ext_grpc.IntentsExtensionStub(stack.raw_channel("payments-service" if via == "direct" else "gateway"))


def search(user=""):
    return ext_pb2.ResolveRequest(
        context=intent_pb2.RequestContext(user_id=user),
        intent=s.intent("INSearchForAccountsIntent", pay.SearchForAccountsIntent()))


def bearer(token):
    return [("authorization", f"Bearer {token}")]


def test_a_call_without_a_token_is_unauthenticated(stack, via):
    s.expect_status(lambda: bare(stack, via).Resolve(search(), timeout=s.TIMEOUT), Code.UNAUTHENTICATED,
                    "missing credentials")


@pytest.mark.parametrize("token, mentions", [
    ("not-a-jwt", "malformed"),
    ("eyJhbGciOiJub25lIn0.eyJzdWIiOiJkaWFuYSJ9.", "algorithm none is refused"),
])
def test_a_bad_token_is_unauthenticated_and_says_why(stack, via, token, mentions):
    s.expect_status(lambda: bare(stack, via).Resolve(search(), metadata=bearer(token), timeout=s.TIMEOUT),
                    Code.UNAUTHENTICATED, mentions)


def test_naming_another_user_than_the_tokens_is_permission_denied(stack, via):
    s.expect_status(
        lambda: bare(stack, via).Resolve(search(user="scott"), metadata=bearer(stack.token("diana")),
                                         timeout=s.TIMEOUT),
        Code.PERMISSION_DENIED, "not the user of the bearer token")


def test_an_empty_user_id_is_the_tokens_user(stack, via):
    answer = bare(stack, via).Resolve(search(), metadata=bearer(stack.token("diana")), timeout=s.TIMEOUT)
    assert answer.complete


def test_describe_and_health_need_no_token(stack, via):
    channel = stack.raw_channel("payments-service" if via == "direct" else "gateway")
    if via == "direct":
        manifest = ext_grpc.IntentsExtensionStub(channel).Describe(ext_pb2.DescribeRequest(), timeout=s.TIMEOUT)
        assert manifest.manifest.app_name == "UnicornPay"
    # grpc.health.v1.Health/Check with an empty request: HealthCheckResponse{status: SERVING (1)}.
    check = channel.unary_unary("/grpc.health.v1.Health/Check")
    assert check(b"", timeout=s.TIMEOUT) == b"\x08\x01"


def payment(units, identifier):
    return s.intent("INSendPaymentIntent", pay.SendPaymentIntent(
        payee=types.Person(display_name="Buttercup"), currency_amount=types.CurrencyAmount(currency_code="USD",
                                                                                            units=units)),
        identifier=identifier)


def checking(stack):
    direct = stack.extension("payments-service")
    searched = s.handled_response(direct, s.context(), s.intent(
        "INSearchForAccountsIntent", pay.SearchForAccountsIntent(
            account_nickname=types.SpeakableString(spoken_phrase="Rainbow Checking"))),
        pay.SearchForAccountsIntentResponse)
    return s.money_cents(searched.accounts[0].balance)


def test_handle_without_the_users_yes_moves_no_money(stack, via):
    extension = stack.extension("payments-service" if via == "direct" else "gateway")
    before = checking(stack)
    unconfirmed = payment(1, f"contract-{uuid.uuid4()}")
    s.expect_status(lambda: extension.Handle(ext_pb2.HandleRequest(context=s.context(), intent=unconfirmed),
                                             timeout=s.TIMEOUT), Code.FAILED_PRECONDITION, "confirm first")
    # A yes to one amount is no yes to another.
    identifier = f"contract-{uuid.uuid4()}"
    yes = s.confirm(extension, s.context(), payment(1, identifier)).confirmation_token
    assert yes
    s.expect_status(
        lambda: extension.Handle(ext_pb2.HandleRequest(context=s.context(), intent=payment(900, identifier),
                                                       confirmation_token=yes), timeout=s.TIMEOUT),
        Code.FAILED_PRECONDITION, "confirm first")
    # Nor is Diana's yes Scott's.
    s.expect_status(
        lambda: extension.Handle(ext_pb2.HandleRequest(context=s.context(user="scott"), intent=payment(1, identifier),
                                                       confirmation_token=yes), timeout=s.TIMEOUT),
        Code.FAILED_PRECONDITION, "confirm first")
    assert checking(stack) == before
    # The yes to exactly this payment moves exactly its money.
    handled = extension.Handle(ext_pb2.HandleRequest(context=s.context(), intent=payment(1, identifier),
                                                     confirmation_token=yes), timeout=s.TIMEOUT)
    assert handled.response.code_name == "success"
    assert checking(stack) == before - 100
