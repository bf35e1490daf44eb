"""UnicornChat (messaging-service): every intent, on its own endpoint and through the gateway, with
Diana's seeded contacts ("Sparkle Sparkly" is Scott in her vocabulary) and mailbox."""
import uuid

import pytest
from intentmesh.messaging.v1 import messaging_pb2 as chat
from intentmesh.v1 import types_pb2 as types

import support as s

APP = "UnicornChat"


@pytest.fixture
def ext(stack, via):
    return stack.extension("messaging-service" if via == "direct" else "gateway")


@pytest.fixture
def direct(stack):
    return stack.extension("messaging-service")


def search(extension, **fields):
    return s.handled_response(
        extension, s.context(), s.intent("INSearchForMessagesIntent", chat.SearchForMessagesIntent(**fields)),
        chat.SearchForMessagesIntentResponse,
    )


def send(extension, to, content):
    return s.handled_response(
        extension, s.context(),
        s.intent("INSendMessageIntent", chat.SendMessageIntent(
            recipients=[types.Person(display_name=to)], content=content)),
        chat.SendMessageIntentResponse,
    )


def test_send_message_to_a_vocabulary_name_is_stored_once(ext, direct):
    token = f"Ready for the talk? {uuid.uuid4().hex[:8]}"
    message = chat.SendMessageIntent(recipients=[types.Person(display_name="Sparkle Sparkly")], content=token)
    the_intent = s.intent("INSendMessageIntent", message, APP)
    done = s.sirikit_round(ext, s.context(), the_intent, chat.SendMessageIntentResponse, needs_user_confirmation=True)

    recipients = done.results["recipients"]
    assert [s.kind(r) for r in recipients] == ["success"]
    assert recipients[0].success.value.display_text == "Scott Andrus"
    assert s.kind(done.results["content"][0]) == "success"
    assert s.kind(done.results["speakableGroupName"][0]) == "not_required"
    sent = done.response.sent_message
    assert sent.content == token
    assert [p.custom_identifier for p in sent.recipients] == ["scott"]
    assert sent.sender.is_me and sent.sender.custom_identifier == "diana"
    assert len(done.response.sent_messages) == 1

    # A retried Handle replays the first answer: same message, no second one.
    again = s.handle(ext, s.context(), done.resolved.resolved_intent)
    assert again.replayed
    assert s.unpack(again.response.payload, chat.SendMessageIntentResponse).sent_message.identifier == sent.identifier
    found = search(direct, search_terms=[token])
    assert [m.identifier for m in found.messages] == [sent.identifier]


def test_search_for_messages_finds_the_seeded_message(ext):
    query = chat.SearchForMessagesIntent(senders=[types.Person(display_name="Celestra")], search_terms=["rainbow polish"])
    done = s.sirikit_round(
        ext, s.context(), s.intent("INSearchForMessagesIntent", query, APP), chat.SearchForMessagesIntentResponse,
        needs_user_confirmation=False,
    )
    assert done.results["senders"][0].success.value.display_text == "Celestra"
    assert s.kind(done.results["recipients"][0]) == "not_required"
    contents = [(m.content, m.sender.custom_identifier) for m in done.response.messages]
    assert contents == [("The rainbow polish is ready!", "celestra")]


def test_set_message_attribute_flags_a_message(ext, direct):
    token = f"flag me {uuid.uuid4().hex[:8]}"
    sent = send(direct, "Buttercup", token).sent_message
    assert not sent.attributes.flagged
    change = chat.SetMessageAttributeIntent(identifiers=[sent.identifier], attribute=chat.MESSAGE_ATTRIBUTE_FLAGGED)
    done = s.sirikit_round(
        ext, s.context(), s.intent("INSetMessageAttributeIntent", change, APP), chat.SetMessageAttributeIntentResponse,
        needs_user_confirmation=False,
    )
    assert s.kind(done.results["attribute"][0]) == "success"
    found = search(direct, identifiers=[sent.identifier])
    assert len(found.messages) == 1 and found.messages[0].attributes.flagged
    flagged = search(direct, search_terms=[token], attributes=chat.MessageAttributeOptions(flagged=True))
    assert [m.identifier for m in flagged.messages] == [sent.identifier]

    # A message that does not exist is SiriKit's failureMessageNotFound, not an error.
    missing = chat.SetMessageAttributeIntent(identifiers=["no-such-message"], attribute=chat.MESSAGE_ATTRIBUTE_READ)
    handled = s.handle(ext, s.context(), s.intent("INSetMessageAttributeIntent", missing, APP))
    assert handled.response.code_name == "failureMessageNotFound"
    assert handled.response.user_activity.user_info["missing"] == "no-such-message"


def test_get_visual_code_is_a_png_contact_code(ext):
    done = s.sirikit_round(
        ext, s.context(), s.intent("INGetVisualCodeIntent", chat.GetVisualCodeIntent(), APP),
        chat.GetVisualCodeIntentResponse, needs_user_confirmation=False,
    )
    resolved = s.unpack(done.resolved.resolved_intent.payload, chat.GetVisualCodeIntent)
    assert resolved.visual_code_type == chat.VISUAL_CODE_TYPE_CONTACT
    image = done.response.visual_code_image
    assert image.content_type == "image/png"
    assert image.data.startswith(b"\x89PNG\r\n\x1a\n")
    assert image.width > 0 and image.width == image.height

    # Payment codes are not UnicornChat's: unsupported, with a reason for the user.
    payment = s.resolve(ext, s.context(), s.intent(
        "INGetVisualCodeIntent", chat.GetVisualCodeIntent(visual_code_type=chat.VISUAL_CODE_TYPE_SEND_PAYMENT), APP))
    assert not payment.complete
    result = s.results(payment)["visualCodeType"][0]
    assert s.kind(result) == "unsupported" and "payment" in result.unsupported.reason.message


def test_a_recipient_without_an_account_is_unsupported_with_its_reason(ext):
    message = chat.SendMessageIntent(recipients=[types.Person(display_name="Pinky Nose")], content="hello")
    resolved = s.resolve(ext, s.context(), s.intent("INSendMessageIntent", message, APP))
    assert not resolved.complete
    result = s.results(resolved)["recipients"][0]
    assert s.kind(result) == "unsupported"
    assert result.unsupported.reason.name == "noAccount"
    assert result.unsupported.reason.type == "intentmesh.messaging.v1.SendMessageRecipientUnsupportedReason"


def test_a_signed_out_user_is_sent_to_the_app(ext):
    message = chat.SendMessageIntent(recipients=[types.Person(display_name="Celestra")], content="hello")
    confirmed = s.confirm(ext, s.context(user="sleepy"), s.intent("INSendMessageIntent", message, APP))
    assert confirmed.response.code_name == "failureRequiringAppLaunch"
    # failureRequiringAppLaunch is SiriKit's deferredToApplication.
    assert confirmed.interaction.intent_handling_status == s.DEFERRED_TO_APPLICATION
    assert confirmed.response.user_activity.user_info["error"] == "signedOut"
    assert confirmed.response.user_activity.activity_type == "INSendMessageIntent"


def app_stub(stack):
    from intentmesh.messaging.v1 import app_pb2_grpc

    return app_pb2_grpc.UnicornChatAppStub(stack.raw_channel("messaging-service"))


def signed_in(stack, user):
    return [("authorization", f"Bearer {stack.token(user)}")]


def test_two_new_users_exchange_a_message(stack, ext, via):
    """Users made through the app API (no seed data): A's message, sent on `via`, arrives unread in
    B's mailbox; B finds it with the search intent on `via`; nobody else sees it."""
    import grpc
    from intentmesh.messaging.v1 import app_pb2 as app

    stub = app_stub(stack)
    a, b = f"a-{uuid.uuid4().hex[:10]}", f"b-{uuid.uuid4().hex[:10]}"
    for user, name in [(a, "Amber Glow"), (b, "Bramble Hoof")]:
        done = stub.SignUp(app.SignUpRequest(display_name=name, handle=f"{user}@unicorn.chat"),
                           metadata=signed_in(stack, user), timeout=s.TIMEOUT)
        assert done.account.user_id == user
    with pytest.raises(grpc.RpcError) as taken:
        stub.SignUp(app.SignUpRequest(display_name="Thief", handle=f"{a}@unicorn.chat"),
                    metadata=signed_in(stack, f"c-{uuid.uuid4().hex[:10]}"), timeout=s.TIMEOUT)
    assert taken.value.code() == grpc.StatusCode.ALREADY_EXISTS
    added = stub.AddContact(app.AddContactRequest(contact=app.Contact(display_name="Bramble Hoof",
                                                                      handle=f"{b}@unicorn.chat")),
                            metadata=signed_in(stack, a), timeout=s.TIMEOUT)
    assert added.contact.is_user
    stub.AddContact(app.AddContactRequest(contact=app.Contact(display_name="Amber Glow", handle=f"{a}@unicorn.chat")),
                    metadata=signed_in(stack, b), timeout=s.TIMEOUT)

    text = f"Hoofball at noon? {uuid.uuid4().hex[:6]}"
    sent = s.handled_response(
        ext, s.context(a),
        s.intent("INSendMessageIntent", chat.SendMessageIntent(recipients=[types.Person(display_name="Bramble")],
                                                              content=text)),
        chat.SendMessageIntentResponse)
    assert sent.sent_message.content == text

    unread = stub.ListMessages(app.ListMessagesRequest(unread_only=True), metadata=signed_in(stack, b),
                               timeout=s.TIMEOUT).messages
    assert [m.content for m in unread] == [text]
    assert unread[0].sender.display_name == "Amber Glow"
    found = s.handled_response(
        ext, s.context(b),
        s.intent("INSearchForMessagesIntent", chat.SearchForMessagesIntent(
            senders=[types.Person(display_name="Amber")], attributes=chat.MessageAttributeOptions(unread=True))),
        chat.SearchForMessagesIntentResponse)
    assert [m.content for m in found.messages] == [text]
    stranger = f"c-{uuid.uuid4().hex[:10]}"
    assert list(stub.ListMessages(app.ListMessagesRequest(), metadata=signed_in(stack, stranger),
                                  timeout=s.TIMEOUT).messages) == []
    with pytest.raises(grpc.RpcError) as missing:
        stub.GetAccount(app.GetAccountRequest(), metadata=signed_in(stack, stranger), timeout=s.TIMEOUT)
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
