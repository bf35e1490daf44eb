"""Identity as a client sees it: every call carries `authorization: Bearer <JWT>`; the user is the
token's subject; a Handle that needs the user's yes needs Confirm's token for exactly that intent.
Each check runs on a domain's own endpoint and through the gateway; the gateway's own API (Interact
carrying the confirmation token from turn to turn, ListRoutes open) is checked on its port."""
import subprocess
import uuid

import pytest
from grpc import StatusCode as Code
from intentmesh.gateway.v1 import gateway_pb2 as gw
from intentmesh.gateway.v1 import gateway_pb2_grpc as gw_grpc
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


@pytest.mark.parametrize("case, options, mentions", [
    ("another identity's key", ["--data", "{elsewhere}"], "unknown signing key"),
    ("another issuer", ["--issuer", "someone-else"], "wrong token issuer"),
    ("another audience", ["--audience", "another-api"], "wrong token audience"),
])
def test_a_well_formed_token_the_services_do_not_trust_is_unauthenticated(stack, via, tmp_path, case, options,
                                                                           mentions):
    """Signed by a key their JWKS does not hold (another `intentmesh up`'s), or for another iss / aud."""
    argv = [stack.executable, "token", "--user", "diana"] + [option.format(elsewhere=tmp_path) for option in options]
    if "--data" not in options:
        argv += ["--data", stack.data]
    token = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True).stdout.strip()
    s.expect_status(lambda: bare(stack, via).Resolve(search(), metadata=bearer(token), timeout=s.TIMEOUT),
                    Code.UNAUTHENTICATED, mentions)


def test_the_gateways_own_api_needs_a_token_but_list_routes(stack):
    gateway = gw_grpc.GatewayStub(stack.raw_channel("gateway"))
    interact = gw.InteractRequest(intent=payment(1, f"contract-{uuid.uuid4()}"))
    s.expect_status(lambda: gateway.Interact(interact, timeout=s.TIMEOUT), Code.UNAUTHENTICATED, "missing credentials")
    s.expect_status(lambda: gateway.Interact(interact, metadata=bearer("not-a-jwt"), timeout=s.TIMEOUT),
                    Code.UNAUTHENTICATED, "malformed")
    routes = gateway.ListRoutes(gw.ListRoutesRequest(), timeout=s.TIMEOUT)
    assert "INSendPaymentIntent" in {route.intent_class for route in routes.routes}


def test_interact_pays_only_on_a_yes_with_the_token_of_that_payment(stack):
    gateway = stack.gateway_api()
    user = s.context()
    identifier = f"contract-{uuid.uuid4()}"
    before = checking(stack)
    asked = gateway.Interact(gw.InteractRequest(context=user, intent=payment(2, identifier)), timeout=s.TIMEOUT)
    assert asked.stage == gw.InteractResponse.STAGE_NEEDS_CONFIRMATION
    assert asked.confirmation_token
    # A yes without the question's token is asked again, with a token; nothing moves.
    again = gateway.Interact(gw.InteractRequest(context=user, intent=asked.intent, user_confirmed=True),
                             timeout=s.TIMEOUT)
    assert again.stage == gw.InteractResponse.STAGE_NEEDS_CONFIRMATION
    assert again.confirmation_token
    assert checking(stack) == before
    # The yes to 2.00 is no yes to 900.00 under the same identifier: asked again, naming the change.
    changed = payment(900, identifier)
    reasked = gateway.Interact(gw.InteractRequest(
        context=user, intent=changed, user_confirmed=True, confirmation_token=asked.confirmation_token),
        timeout=s.TIMEOUT)
    assert reasked.stage == gw.InteractResponse.STAGE_NEEDS_CONFIRMATION
    assert list(reasked.changed_parameters) == ["currencyAmount"]
    assert reasked.prompt == "The currency amount changed since you said yes. Ready to send it?"
    assert reasked.confirmation_token and reasked.confirmation_token != asked.confirmation_token
    assert checking(stack) == before
    # The yes with its token pays exactly 2.00.
    done = gateway.Interact(gw.InteractRequest(context=user, intent=asked.intent, user_confirmed=True,
                                               confirmation_token=asked.confirmation_token), timeout=s.TIMEOUT)
    assert (done.stage, done.response.code_name) == (gw.InteractResponse.STAGE_DONE, "success")
    assert checking(stack) == before - 200
