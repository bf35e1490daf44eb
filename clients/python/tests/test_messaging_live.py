"""A message search followed live (StartSendingUpdates on INSearchForMessagesIntent) through the
gateway: the first answer is the search as it stands, then each newly arriving message that matches
comes once; one that does not match never comes. Users are made through UnicornChat's app API (ids
with a uuid suffix); the messages are sent on the messaging domain's own port and through the gateway."""
import queue
import threading
import uuid

import grpc
import pytest
from intentmesh.messaging.v1 import app_pb2 as app
from intentmesh.messaging.v1 import app_pb2_grpc
from intentmesh.messaging.v1 import messaging_pb2 as chat
from intentmesh.v1 import extension_service_pb2 as ext_pb2
from intentmesh.v1 import types_pb2 as types

import support as s

APP = "UnicornChat"
#: The service looks for arrivals every 250 ms; this is long enough for a wrong answer to show up.
QUIET = 1.5


@pytest.fixture
def ext(stack, via):
    return stack.extension("messaging-service" if via == "direct" else "gateway")


class User:
    def __init__(self, stack, prefix, name):
        self.id = f"{prefix}-{uuid.uuid4().hex[:10]}"
        self.name = name
        self.handle = f"{self.id}@unicorn.chat"
        self.auth = [("authorization", f"Bearer {stack.token(self.id)}")]


def sign_up(stub, user):
    account = stub.SignUp(app.SignUpRequest(display_name=user.name, handle=user.handle), metadata=user.auth,
                          timeout=s.TIMEOUT).account
    assert (account.user_id, account.handle) == (user.id, user.handle)


def add_contacts(stub, user, *contacts):
    for contact in contacts:
        added = stub.AddContact(app.AddContactRequest(contact=app.Contact(display_name=contact.name,
                                                                          handle=contact.handle)),
                                metadata=user.auth, timeout=s.TIMEOUT).contact
        assert added.is_user


def send(extension, sender, to, content):
    message = chat.SendMessageIntent(recipients=[types.Person(display_name=to)], content=content)
    sent = s.handled_response(extension, s.context(sender.id), s.intent("INSendMessageIntent", message, APP),
                              chat.SendMessageIntentResponse)
    assert sent.sent_message.content == content
    return sent.sent_message


class Follow:
    """A live message search through the gateway, read in a thread: each answer's (code, contents)."""

    def __init__(self, stack, user, search, timeout=30):
        request = ext_pb2.StartSendingUpdatesRequest(
            context=s.context(user.id), intent=s.intent("INSearchForMessagesIntent", search, APP))
        self.call = stack.extension("gateway").StartSendingUpdates(request, timeout=timeout)
        self.answers = queue.Queue()
        self.error = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for update in self.call:
                answer = s.unpack(update.response.payload, chat.SearchForMessagesIntentResponse)
                self.answers.put((update.response.code_name, [(m.content, m.sender.display_name)
                                                              for m in answer.messages]))
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                self.error = error

    def next(self, timeout=10):
        try:
            return self.answers.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"no answer on the live search within {timeout} s (error {self.error})")

    def rest(self, wait=QUIET):
        """Every answer that comes within `wait` seconds of the last."""
        more = []
        while True:
            try:
                more.append(self.answers.get(timeout=wait))
            except queue.Empty:
                return more

    def close(self):
        self.call.cancel()
        self.thread.join(5)


def test_following_messages_from_a_sender_sends_each_new_match_once(stack, ext):
    stub = app_pb2_grpc.UnicornChatAppStub(stack.raw_channel("messaging-service"))
    ava, ben = User(stack, "ava", "Ava Stardust"), User(stack, "ben", "Ben Moonbeam")
    cleo, eve = User(stack, "cleo", "Cleo Comet"), User(stack, "eve", "Eve Shadow")
    for user in (ava, ben, cleo, eve):
        sign_up(stub, user)
    add_contacts(stub, ava, ben)
    add_contacts(stub, ben, ava, cleo)
    add_contacts(stub, cleo, ben)
    add_contacts(stub, eve, ava)
    tag = uuid.uuid4().hex[:6]
    send(ext, ava, "Ben", f"one {tag}")
    send(ext, cleo, "Ben", f"before, not from Ava {tag}")

    from_ava = chat.SearchForMessagesIntent(senders=[types.Person(display_name="Ava")])
    bens = Follow(stack, ben, from_ava)
    eves = Follow(stack, eve, from_ava)
    try:
        # The search as it stands: Ava's one message to Ben; Eve has none from Ava.
        assert bens.next() == ("success", [(f"one {tag}", "Ava Stardust")])
        assert eves.next() == ("success", [])
        # New mail: Ava's two messages come, each once and in order; Cleo's does not.
        send(ext, ava, "Ben", f"two {tag}")
        send(ext, cleo, "Ben", f"not from Ava {tag}")
        send(ext, ava, "Ben", f"three {tag}")
        arrived = [bens.next()]
        arrived += bens.rest()
        assert all(code == "success" for code, _ in arrived), arrived
        assert [message for _, messages in arrived for message in messages] == [
            (f"two {tag}", "Ava Stardust"), (f"three {tag}", "Ava Stardust")]
        assert eves.rest(0.5) == []
        assert bens.error is None and eves.error is None
    finally:
        bens.close()
        eves.close()
    # Ben's mailbox has all of it: the live search left nothing out of the mailbox.
    listed = stub.ListMessages(app.ListMessagesRequest(), metadata=ben.auth, timeout=s.TIMEOUT).messages
    assert sorted(m.content for m in listed) == sorted([
        f"one {tag}", f"before, not from Ava {tag}", f"two {tag}", f"not from Ava {tag}", f"three {tag}"])
