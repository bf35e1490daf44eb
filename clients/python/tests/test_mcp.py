"""The gateway's MCP server (`/mcp`, Streamable HTTP) driven by the official `mcp` Python SDK, as a
model host would: every intent of the five domains is a tool; SiriKit's cycle runs for the token's
user — a missing parameter and a choice come back as questions, a payment needs the user's own yes
(asked by the server through MCP elicitation, never taken from the model); another user's token
sees none of the first user's data; bad JSON-RPC and oversized bodies are protocol errors."""
import asyncio
import json
import urllib.error
import urllib.request
import uuid

import httpx2
import pytest
from mcp import types
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client

import support as s
from test_payments import balance

APPS = {"UnicornChat", "UnicornPay", "UnicornRides", "UnicornNote", "UnicornFit"}


def url(stack):
    return f"http://{stack.gateway}/mcp"


def run(coroutine):
    return asyncio.run(coroutine)


def client(stack, user="diana", answer=None, mode="legacy"):
    """An MCP client signed in as `user`; `answer` (True, False) is what its user says to a
    question (elicitation), None: a client that cannot ask its user."""
    http = httpx2.AsyncClient(headers={"authorization": f"Bearer {stack.token(user)}"}, timeout=30)
    callback = None
    if answer is not None:
        async def callback(context, params):
            callback.asked.append(params.message)
            return types.ElicitResult(action="accept", content={"confirm": answer})
        callback.asked = []
    made = Client(streamable_http_client(url(stack), http_client=http), mode=mode, elicitation_callback=callback)
    made.asked = callback.asked if callback else []
    return made


async def call(mcp, name, arguments, key=None):
    meta = {"io.intentmesh/idempotency-key": key} if key else None
    result = await mcp.call_tool(name, arguments, meta=meta)
    return result.structured_content, result


def test_every_intent_of_the_five_domains_is_a_tool(stack):
    async def go():
        async with client(stack) as mcp:
            assert mcp.session.protocol_version == "2025-11-25"
            listed = await mcp.list_tools()
            return listed.tools
    tools = run(go())
    routes = stack.gateway_api().ListRoutes(__import__("intentmesh.gateway.v1.gateway_pb2", fromlist=["x"]).ListRoutesRequest())
    expected = {f"{route.app_name}_{route.intent_class.removeprefix('IN').removesuffix('Intent')}" for route in routes.routes}
    assert {tool.name for tool in tools} == expected
    assert {tool.name.split("_")[0] for tool in tools} == APPS
    send = next(tool for tool in tools if tool.name == "UnicornPay_SendPayment")
    properties = send.input_schema["properties"]
    assert {"payee", "currencyAmount", "note"} <= set(properties)
    assert send.output_schema["properties"]["status"]["enum"][0] == "done"
    assert "yes" in send.description


def test_the_newest_client_falls_back_to_the_handshake(stack):
    async def go():
        async with client(stack, mode="auto") as mcp:
            return mcp.session.protocol_version, len((await mcp.list_tools()).tools)
    version, count = run(go())
    assert version == "2025-11-25" and count >= 26


def test_a_search_answers_structured_content(stack):
    async def go():
        async with client(stack) as mcp:
            return await call(mcp, "UnicornChat_SearchForMessages", {})
    found, result = run(go())
    assert found["status"] == "done" and not result.is_error
    payload = found["response"]["payload"]
    assert payload["@type"].endswith("intentmesh.messaging.v1.SearchForMessagesIntentResponse")
    assert any("unicorn hands" in message["content"] for message in payload["messages"])


def test_send_message_through_a_missing_parameter_and_a_choice_to_done(stack):
    token = f"mcp {uuid.uuid4().hex[:8]}"

    async def go():
        async with client(stack, answer=True) as mcp:
            first, _ = await call(mcp, "UnicornChat_SendMessage", {"content": token})
            assert (first["status"], first["parameter"], first["prompt"]) == ("needs_value", "recipients", "To whom?")
            arguments = dict(first["arguments"], recipients=[{"displayName": "Diana"}])
            choice, _ = await call(mcp, "UnicornChat_SendMessage", arguments)
            assert (choice["status"], choice["prompt"]) == ("needs_choice", "Which Diana?")
            assert [option["displayText"] for option in choice["options"]] == ["Diana Prince", "Diana Ross"]
            arguments = dict(choice["arguments"], recipients=[choice["options"][0]["value"]])
            done, _ = await call(mcp, "UnicornChat_SendMessage", arguments)
            return done, mcp.asked
    done, asked = run(go())
    assert asked == ["Ready to send it?"]
    assert done["status"] == "done"
    sent = done["response"]["payload"]["sentMessage"]
    assert sent["content"] == token and [r["displayName"] for r in sent["recipients"]] == ["Diana Prince"]


PAYMENT = {"payee": {"displayName": "Buttercup"}, "currencyAmount": {"currencyCode": "USD", "units": "1", "nanos": 250000000}}


def test_a_payment_moves_money_only_on_the_users_yes_and_once(stack):
    direct = stack.extension("payments-service")
    before = balance(direct, "Rainbow Checking")
    key = uuid.uuid4().hex

    async def paid(answer, key=None):
        async with client(stack, answer=answer) as mcp:
            result, _ = await call(mcp, "UnicornPay_SendPayment", dict(PAYMENT, note=f"mcp {key}"), key=key)
            return result, mcp.asked

    # No client that can ask: nothing moves, whatever the model retries.
    for _ in range(2):
        result, _ = run(paid(None))
        assert result["status"] == "needs_user_confirmation"
    assert balance(direct, "Rainbow Checking") == before
    # The user says no: nothing moves.
    result, asked = run(paid(False))
    assert result["status"] == "declined" and asked == ["Ready to send it?"]
    assert balance(direct, "Rainbow Checking") == before
    # The user says yes: paid; the same call retried (its idempotency key) moves nothing more.
    result, asked = run(paid(True, key))
    assert result["status"] == "done", result
    assert result["response"]["payload"]["paymentRecord"]["status"] == "PAYMENT_STATUS_COMPLETED"
    again, _ = run(paid(True, key))
    assert again["status"] == "done"
    assert balance(direct, "Rainbow Checking") == before - 125


def test_payments_said_yes_to_at_once_each_move_once(stack):
    """8 payments on one session at once, each asked and said yes to: 8 moved, no more, no fewer."""
    direct = stack.extension("payments-service")
    before = balance(direct, "Rainbow Checking")

    async def go():
        async with client(stack, answer=True) as mcp:
            return await asyncio.gather(*[
                call(mcp, "UnicornPay_SendPayment", dict(PAYMENT, note=f"at once {n}"), key=uuid.uuid4().hex)
                for n in range(8)])
    results = run(go())
    assert [result["status"] for result, _ in results] == ["done"] * 8, results
    assert balance(direct, "Rainbow Checking") == before - 8 * 125


def test_another_users_token_sees_nothing_of_the_first_users(stack, fresh_user):
    async def go(user):
        async with client(stack, user=user, answer=True) as mcp:
            messages, _ = await call(mcp, "UnicornChat_SearchForMessages", {})
            accounts, _ = await call(mcp, "UnicornPay_SearchForAccounts", {})
            return messages, accounts
    messages, accounts = run(go("diana"))
    assert "unicorn hands" in json.dumps(messages) and "Rainbow Checking" in json.dumps(accounts)
    messages, accounts = run(go(fresh_user))
    # No account with either app yet: the apps say so, and nothing of Diana's shows.
    assert messages["status"] == "failed" and "CODE_FAILURE_REQUIRING_APP_LAUNCH" in json.dumps(messages)
    assert "unicorn hands" not in json.dumps(messages)
    assert "Rainbow Checking" not in json.dumps(accounts) and "Secret" not in json.dumps(accounts)


def test_a_session_is_its_users_only(stack, fresh_user):
    diana = stack.token("diana")
    other = stack.token(fresh_user)
    session = post(stack, diana, initialize())[1]["mcp-session-id"]
    status, _, body = post(stack, other, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session=session)
    assert status == 404
    status, _, body = post(stack, diana, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session=session)
    assert status == 200 and len(body["result"]["tools"]) >= 26


def initialize():
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}


def post(stack, token, message, session=None, raw=None, content_type="application/json"):
    headers = {"content-type": content_type, "accept": "application/json, text/event-stream"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    if session:
        headers["mcp-session-id"] = session
    data = raw if raw is not None else json.dumps(message).encode()
    request = urllib.request.Request(url(stack), data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
            return response.status, dict(response.headers.items()), json.loads(text) if text.startswith("{") else text
    except urllib.error.HTTPError as error:
        text = error.read().decode()
        return error.code, dict(error.headers.items()), json.loads(text) if text.startswith("{") else text


def test_without_a_token_401_points_at_the_protected_resource_metadata(stack):
    status, headers, body = post(stack, None, initialize())
    assert status == 401
    challenge = {k.lower(): v for k, v in headers.items()}["www-authenticate"]
    assert challenge.startswith("Bearer resource_metadata=")
    metadata_url = challenge.split('"')[1]
    with urllib.request.urlopen(metadata_url, timeout=10) as response:
        metadata = json.loads(response.read())
    assert metadata["resource"] == url(stack)
    assert metadata["authorization_servers"] and metadata["bearer_methods_supported"] == ["header"]
    status, headers, _ = post(stack, "not.a.token", initialize())
    assert status == 401 and 'error="invalid_token"' in {k.lower(): v for k, v in headers.items()}["www-authenticate"]


@pytest.mark.parametrize("raw, code", [
    (b"{not json", -32700),
    (b"[]", -32600),
    (b'{"jsonrpc": "1.0", "id": 1, "method": "ping"}', -32600),
    (b'{"jsonrpc": "2.0", "id": {"x": 1}, "method": "ping"}', -32600),
])
def test_bad_json_rpc_is_a_protocol_error(stack, raw, code):
    status, _, body = post(stack, stack.token("diana"), None, raw=raw)
    assert status == 400 and body["error"]["code"] == code


def test_unknown_methods_tools_and_oversized_bodies_are_refused(stack):
    token = stack.token("diana")
    session = post(stack, token, initialize())[1]["mcp-session-id"]
    status, _, body = post(stack, token, {"jsonrpc": "2.0", "id": 3, "method": "resources/list"}, session=session)
    assert body["error"]["code"] == -32601
    status, _, body = post(stack, token, {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                                          "params": {"name": "Nope_Nothing", "arguments": {}}}, session=session)
    assert body["error"]["code"] == -32602
    status, _, _ = post(stack, token, None, raw=b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":"' + b"a" * (1 << 20) + b'"}}', session=session)
    assert status == 413
    status, _, body = post(stack, token, {"jsonrpc": "2.0", "id": 6, "method": "ping"}, session=session)
    assert status == 200 and body["result"] == {}
