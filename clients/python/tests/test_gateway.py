"""The gateway's own API: Interact (the conversation the gateway drives: stop at the first parameter
that needs the user, confirm, ask the user where needed, handle), Layout (the configureView
sequence folded into sections) and SetUserVocabulary fanned out to the domains."""
import uuid

import pytest
from intentmesh.gateway.v1 import gateway_pb2 as gw
from intentmesh.messaging.v1 import messaging_pb2 as chat
from intentmesh.notebook.v1 import notebook_pb2 as notes
from intentmesh.payments.v1 import payments_pb2 as pay
from intentmesh.ridebooking.v1 import ridebooking_pb2 as rides
from intentmesh.v1 import extension_service_pb2 as ext_pb2
from intentmesh.v1 import manifest_pb2
from intentmesh.v1 import types_pb2 as types
from intentmesh.v1 import view_pb2

import support as s

Stage = gw.InteractResponse.Stage


@pytest.fixture
def gateway(stack):
    return stack.gateway_api()


#: The confirmation token of the last NEEDS_CONFIRMATION answer, by intent identifier: a yes goes
#: back with the token of the question it answers.
ASKED = {}


def interact(gateway, the_intent, user_context=None, **fields):
    if fields.get("user_confirmed") and "confirmation_token" not in fields:
        fields["confirmation_token"] = ASKED.get(the_intent.identifier, "")
    turn = gateway.Interact(
        gw.InteractRequest(context=user_context or s.context(), intent=the_intent, **fields), timeout=s.TIMEOUT)
    if turn.confirmation_token:
        ASKED[turn.intent.identifier] = turn.confirmation_token
    return turn


def with_payload(the_intent, message):
    """The intent to send back next turn, with the user's answer filled in."""
    answered = type(the_intent)()
    answered.CopyFrom(the_intent)
    answered.payload.Pack(message)
    return answered


def view_kinds(layout):
    return [section.view.kind for section in layout.sections if section.kind == gw.LayoutSection.KIND_APP]


def test_interact_drives_the_unicornchat_conversation(stack, gateway):
    # "Send a message with UnicornChat" — "To whom?"
    turn = interact(gateway, s.intent("INSendMessageIntent", chat.SendMessageIntent(), "CornChat", identifier=""))
    assert (turn.stage, turn.app_name, turn.parameter, turn.prompt) == (
        Stage.STAGE_NEEDS_PARAMETER, "UnicornChat", "recipients", "To whom?")
    assert s.kind(turn.result) == "needs_value"
    assert turn.intent.identifier  # made by the gateway when the client sent none
    # "Diana" — "Which Diana?"
    turn = interact(gateway, with_payload(turn.intent, chat.SendMessageIntent(
        recipients=[types.Person(display_name="Diana")])))
    assert (turn.stage, turn.parameter, turn.element_index, turn.prompt) == (
        Stage.STAGE_NEEDS_PARAMETER, "recipients", 0, "Which Diana?")
    options = {option.display_text: option for option in turn.result.disambiguation.options}
    assert sorted(options) == ["Diana Prince", "Diana Ross"]
    # "Diana Ross" — "What do you want to say to Diana Ross?"
    ross = s.unpack(options["Diana Ross"].value, types.Person)
    turn = interact(gateway, with_payload(turn.intent, chat.SendMessageIntent(recipients=[ross])))
    assert (turn.stage, turn.parameter, turn.prompt) == (
        Stage.STAGE_NEEDS_PARAMETER, "content", "What do you want to say to Diana Ross?")
    # "Great job on your presentation." — "Ready to send it?", with the draft laid out.
    content = f"Great job on your presentation. {uuid.uuid4().hex[:6]}"
    turn = interact(gateway, with_payload(turn.intent, chat.SendMessageIntent(recipients=[ross], content=content)))
    assert (turn.stage, turn.prompt, turn.response.code_name) == (
        Stage.STAGE_NEEDS_CONFIRMATION, "Ready to send it?", "ready")
    assert view_kinds(turn.layout) == ["chat-transcript"]
    assert [r.parameter for r in turn.resolutions] == ["recipients", "content", "speakableGroupName"]
    final_intent = turn.intent
    # "Yes" — done: sent, laid out as sent.
    done = interact(gateway, final_intent, user_confirmed=True)
    assert (done.stage, done.response.code_name) == (Stage.STAGE_DONE, "success")
    assert done.interaction.intent_handling_status == s.SUCCESS
    sent = s.unpack(done.response.payload, chat.SendMessageIntentResponse).sent_message
    assert (sent.content, [p.custom_identifier for p in sent.recipients]) == (content, ["diana-ross"])
    assert view_kinds(done.layout) == ["chat-transcript"]
    assert done.layout.interaction_identifier == done.interaction.identifier
    # The same final turn again is the same message, sent once.
    again = interact(gateway, final_intent, user_confirmed=True)
    assert again.stage == Stage.STAGE_DONE
    assert s.unpack(again.response.payload, chat.SendMessageIntentResponse).sent_message.identifier == sent.identifier
    found = s.handled_response(stack.extension("messaging-service"), s.context(),
                               s.intent("INSearchForMessagesIntent", chat.SearchForMessagesIntent(search_terms=[content])),
                               chat.SearchForMessagesIntentResponse)
    assert [m.identifier for m in found.messages] == [sent.identifier]


def test_interact_asks_before_paying_and_pays_once(stack, gateway):
    payments = stack.extension("payments-service")

    def checking():
        found = s.handled_response(
            payments, s.context(),
            s.intent("INSearchForAccountsIntent", pay.SearchForAccountsIntent(
                account_nickname=types.SpeakableString(spoken_phrase="Rainbow Checking"))),
            pay.SearchForAccountsIntentResponse)
        return s.money_cents(found.accounts[0].balance)

    before = checking()
    payment = pay.SendPaymentIntent(payee=types.Person(display_name="Buttercup"),
                                    currency_amount=types.CurrencyAmount(currency_code="USD", units=3))
    turn = interact(gateway, s.intent("INSendPaymentIntent", payment, "UnicornPay"))
    assert (turn.stage, turn.prompt, turn.response.code_name) == (
        Stage.STAGE_NEEDS_CONFIRMATION, "Ready to send it?", "ready")
    assert view_kinds(turn.layout) == ["payment-transaction"]
    assert checking() == before  # nothing moves before the user's yes
    done = interact(gateway, turn.intent, user_confirmed=True)
    assert (done.stage, done.response.code_name) == (Stage.STAGE_DONE, "success")
    record = s.unpack(done.response.payload, pay.SendPaymentIntentResponse).payment_record
    assert record.status == pay.PAYMENT_STATUS_COMPLETED
    assert checking() == before - 300
    assert interact(gateway, turn.intent, user_confirmed=True).stage == Stage.STAGE_DONE
    assert checking() == before - 300


def test_interact_takes_the_users_yes_to_a_guessed_value(gateway, fresh_user):
    add = notes.AddTasksIntent(target_task_list=notes.TaskList(title=types.SpeakableString(spoken_phrase="Stable")),
                               task_titles=[types.SpeakableString(spoken_phrase="Sweep")])
    user_context = s.context(user=fresh_user)
    turn = interact(gateway, s.intent("INAddTasksIntent", add, "Unicorn Notes"), user_context)
    assert (turn.stage, turn.parameter, turn.app_name) == (Stage.STAGE_NEEDS_PARAMETER, "targetTaskList", "UnicornNote")
    assert s.kind(turn.result) == "confirmation_required"
    assert turn.result.confirmation_required.reason.name == "listShouldBeCreated"
    assert turn.prompt == "You have no list called Stable. Do you want to create it?"
    done = interact(gateway, turn.intent, user_context, confirmed_parameters=["targetTaskList"])
    assert (done.stage, done.response.code_name) == (Stage.STAGE_DONE, "success")
    added = s.unpack(done.response.payload, notes.AddTasksIntentResponse)
    assert added.modified_task_list.title.spoken_phrase == "Stable"
    assert view_kinds(done.layout) == ["task-list-card"]


def test_interact_stops_at_an_unsupported_value_with_its_reason(gateway):
    message = chat.SendMessageIntent(recipients=[types.Person(display_name="Lucky Moontrotter")], content="hi")
    turn = interact(gateway, s.intent("INSendMessageIntent", message, "UnicornChat"))
    assert (turn.stage, turn.parameter) == (Stage.STAGE_NEEDS_PARAMETER, "recipients")
    assert s.kind(turn.result) == "unsupported"
    assert turn.result.unsupported.reason.name == "messagingServiceNotEnabledForRecipient"
    assert turn.prompt == turn.result.unsupported.reason.message and turn.prompt


def test_interact_reports_a_failed_confirm(gateway):
    # Sleepy is signed out of UnicornChat: confirm fails, and the gateway stops there.
    turn = interact(gateway, s.intent("INGetVisualCodeIntent", chat.GetVisualCodeIntent(), "UnicornChat"),
                    s.context(user="sleepy"))
    assert (turn.stage, turn.response.code_name) == (Stage.STAGE_FAILED, "failureRequiringAppLaunch")
    assert turn.interaction.intent_handling_status == s.DEFERRED_TO_APPLICATION
    assert turn.response.user_activity.user_info["error"] == "signedOut"
    assert turn.layout.interaction_identifier == turn.interaction.identifier


def test_interact_books_a_ride_after_the_users_yes(stack, gateway):
    rides_direct = stack.extension("ridebooking-service")
    s.settle_rides(rides_direct)
    try:
        request = rides.RequestRideIntent(pickup_location=types.Placemark(name="300 Post Street"),
                                          drop_off_location=types.Placemark(name="the forest"),
                                          ride_option_name=types.SpeakableString(spoken_phrase="winged horse"))
        display = gw.Display(maximum_size=view_pb2.Size(width=375, height=400))
        turn = interact(gateway, s.intent("INRequestRideIntent", request, "Unicorn Ride"), display=display)
        assert (turn.stage, turn.prompt) == (Stage.STAGE_NEEDS_CONFIRMATION, "Do you want to request it?")
        done = interact(gateway, turn.intent, user_confirmed=True, display=display)
        assert (done.stage, done.response.code_name) == (Stage.STAGE_DONE, "success")
        ride = s.unpack(done.response.payload, rides.RequestRideIntentResponse).ride_status
        assert ride.ride_option.name == "Pegasus"
        code, found = s.ride_status(rides_direct)
        assert (code, found.ride_status.ride_identifier) == ("success", ride.ride_identifier)
        kinds = view_kinds(done.layout)
        assert kinds[0] == "unicorn-ride-header" and "unicorn-ride-driver" in kinds
        assert all(0 < section.size.width <= 375 for section in done.layout.sections
                   if section.kind == gw.LayoutSection.KIND_APP)
    finally:
        s.settle_rides(rides_direct)


def sequential_layout(extension, user_context, interaction, order, display):
    """SiriKit's view sequence run by hand against one endpoint: configureView with the empty set,
    then each parameter in the declared order that no answer has claimed yet; app sections (size
    clamped to the display) and host sections (display values)."""
    def key(parameter):
        return parameter.parameter_class, parameter.key_path

    def clamp(size):
        def bound(value, low, high):
            value = max(value, low)
            return min(value, high) if high > 0 else value
        return view_pb2.Size(width=bound(size.width, display.minimum_size.width, display.maximum_size.width),
                             height=bound(size.height, display.minimum_size.height, display.maximum_size.height))

    sections, claimed = [], set()

    def add(asked, answer):
        if answer.configured:
            parameters = [asked] if asked is not None else []
            for parameter in answer.configured_parameters:
                if key(parameter) not in {key(p) for p in parameters}:
                    parameters.append(parameter)
            fresh = [p for p in parameters if key(p) not in claimed]
            claimed.update(key(p) for p in parameters)
            if answer.desired_size.width > 0 and answer.desired_size.height > 0:
                sections.append(gw.LayoutSection(
                    kind=gw.LayoutSection.KIND_APP, parameters=fresh, view=answer.view, size=clamp(answer.desired_size),
                    display_values=[v for v in answer.display_values if key(v.parameter) in {key(p) for p in fresh}]))
        elif asked is not None:
            claimed.add(key(asked))
            sections.append(gw.LayoutSection(
                kind=gw.LayoutSection.KIND_DEFAULT, parameters=[asked],
                display_values=[v for v in answer.display_values if key(v.parameter) == key(asked)]))

    def configure(parameters):
        return extension.ConfigureView(view_pb2.ConfigureViewRequest(
            context=user_context, interaction=interaction, parameters=parameters,
            interactive_behavior=display.interactive_behavior, hosted_view_context=display.hosted_view_context,
            minimum_size=display.minimum_size, maximum_size=display.maximum_size), timeout=s.TIMEOUT)

    add(None, configure([]))
    for parameter in order:
        if key(parameter) not in claimed:
            add(parameter, configure([parameter]))
    return sections


def test_layout_is_the_view_sequence_folded_in_order(stack, gateway, fresh_user):
    messaging = stack.extension("messaging-service")
    notebook = stack.extension("notes-service")
    message = chat.SendMessageIntent(recipients=[types.Person(display_name="Sparkle Sparkly")],
                                     content=f"Layout check {uuid.uuid4().hex[:6]}")
    sent = s.handle(messaging, s.context(), s.intent("INSendMessageIntent", message))
    searched = s.handle(messaging, s.context(), s.intent("INSearchForMessagesIntent", chat.SearchForMessagesIntent(
        senders=[types.Person(display_name="Buttercup")], search_terms=["forest"])))
    listed = s.handle(notebook, s.context(user=fresh_user), s.intent("INCreateTaskListIntent", notes.CreateTaskListIntent(
        title=types.SpeakableString(spoken_phrase="Party"), task_titles=[types.SpeakableString(spoken_phrase="Cake")])))
    cases = [("messaging-service", s.context(), sent), ("messaging-service", s.context(), searched)]
    display = gw.Display(hosted_view_context=view_pb2.HOSTED_VIEW_CONTEXT_SIRI_SNIPPET,
                         minimum_size=view_pb2.Size(width=200, height=10),
                         maximum_size=view_pb2.Size(width=300, height=60))
    answer = gateway.Layout(gw.LayoutRequest(context=s.context(), interactions=[c[2].interaction for c in cases],
                                             display=display), timeout=s.TIMEOUT)
    assert [l.interaction_identifier for l in answer.layouts] == [c[2].interaction.identifier for c in cases]
    assert [l.app_name for l in answer.layouts] == ["UnicornChat", "UnicornChat"]
    declarations = {i.intent_class: i for i in
                    messaging.Describe(ext_pb2.DescribeRequest(), timeout=s.TIMEOUT).manifest.intents}
    for layout, (domain, user_context, handled) in zip(answer.layouts, cases):
        order = declarations[handled.interaction.intent.intent_class].view_parameters
        expected = sequential_layout(messaging, user_context, handled.interaction, order, display)
        assert list(layout.sections) == expected

    # The message is drawn by the app, its size clamped to the display.
    app = answer.layouts[0].sections[0]
    assert app.kind == gw.LayoutSection.KIND_APP and app.view.kind == "chat-transcript"
    assert (app.size.width, app.size.height) <= (300, 60) and app.size.width >= 200
    # The search is drawn by the app as what it found (Buttercup's message about the forest), claiming
    # every search parameter: no default section repeats the criteria.
    found = answer.layouts[1].sections
    assert [section.kind for section in found] == [gw.LayoutSection.KIND_APP]
    assert found[0].view.kind == "messages-list"
    assert "Meet at the forest at noon?" in str(found[0].view)

    notes_layout = gateway.Layout(gw.LayoutRequest(context=s.context(user=fresh_user), interactions=[listed.interaction]),
                                  timeout=s.TIMEOUT).layouts[0]
    order = next(i for i in notebook.Describe(ext_pb2.DescribeRequest(), timeout=s.TIMEOUT).manifest.intents
                 if i.intent_class == "INCreateTaskListIntent").view_parameters
    assert list(notes_layout.sections) == sequential_layout(
        notebook, s.context(user=fresh_user), listed.interaction, order, gw.Display())
    assert view_kinds(notes_layout) == ["task-list-card"]


@pytest.fixture
def vocabulary_target(stack, via):
    return stack.extension("messaging-service" if via == "direct" else "gateway")


def test_set_user_vocabulary_names_a_contact(vocabulary_target, stack):
    # Scott's vocabulary (not Diana's: the other tests rely on her "Sparkle Sparkly").
    scott = s.context(user="scott")
    phrase = f"Moonbeam {uuid.uuid4().hex[:4]}"
    stored = vocabulary_target.SetUserVocabulary(ext_pb2.SetUserVocabularyRequest(
        context=scott, vocabulary_type=manifest_pb2.VOCABULARY_STRING_TYPE_CONTACT_NAME,
        speakables=[types.SpeakableString(spoken_phrase=phrase, vocabulary_identifier="celestra")],
        strings=["x" * 1025]), timeout=s.TIMEOUT)
    assert (stored.stored_count, stored.discarded_count) == (1, 1)
    message = chat.SendMessageIntent(recipients=[types.Person(display_name=phrase)], content="hi")
    resolved = s.resolve(stack.extension("messaging-service"), scott, s.intent("INSendMessageIntent", message))
    result = s.results(resolved)["recipients"][0]
    assert s.kind(result) == "success" and result.success.value.display_text == "Celestra"
