"""What each domain declares (Describe), the gateway's routing table built from it (ListRoutes), and
the view configuration (ConfigureView) of at least one intent per domain, directly and through the
gateway."""
import os
import plistlib
import uuid

import grpc
import pytest
from google.protobuf import descriptor_pool
from intentmesh.gateway.v1 import gateway_pb2 as gw
from intentmesh.messaging.v1 import messaging_pb2 as chat
from intentmesh.notebook.v1 import notebook_pb2 as notes
from intentmesh.payments.v1 import payments_pb2 as pay
from intentmesh.ridebooking.v1 import ridebooking_pb2 as rides
from intentmesh.v1 import extension_service_pb2 as ext_pb2
from intentmesh.v1 import types_pb2 as types
from intentmesh.v1 import view_pb2
from intentmesh.workouts.v1 import workouts_pb2  # noqa: F401  (its types in the default pool)

import support as s

# What each domain declares: its folder in Services/, app name and alternative names, and what its
# handlers declare (user confirmation, live updates). The intents and the ones restricted while
# locked are read from the folder's Manifest/Info.plist, so adding an intent changes no test here.
DOMAINS = {
    "messaging-service": dict(
        folder="Messaging", app="UnicornChat", alternatives=["Unicorn Chat", "CornChat"],
        confirmation=["INSendMessageIntent"], live=["INSearchForMessagesIntent"]),
    "payments-service": dict(
        folder="Payments", app="UnicornPay", alternatives=["Unicorn", "CornPay"], confirmation="all", live=[]),
    "ridebooking-service": dict(
        folder="RideBooking", app="UnicornRides", alternatives=["UnicornRide", "Unicorn Ride"],
        confirmation=["INRequestRideIntent", "INCancelRideIntent"], live=["INGetRideStatusIntent"]),
    "notes-service": dict(
        folder="ListsAndNotes", app="UnicornNote", alternatives=["Unicorn Notes"], confirmation=[],
        live=["INSearchForNotebookItemsIntent"]),
    # The domain written in Python.
    "workouts-service": dict(
        folder="Workouts", app="UnicornFit", alternatives=["Unicorn Fit"], confirmation=[], live=[]),
}


def from_info_plist(domain):
    """The domain's expectations, with IntentsSupported and IntentsRestrictedWhileLocked of its plist."""
    expected = dict(DOMAINS[domain])
    path = os.path.join(REPO, "Services", expected["folder"], "Manifest", "Info.plist")
    with open(path, "rb") as file:
        attributes = plistlib.load(file)["NSExtension"]["NSExtensionAttributes"]
    expected["intents"] = attributes["IntentsSupported"]
    expected["restricted"] = attributes.get("IntentsRestrictedWhileLocked", [])
    if expected["confirmation"] == "all":  # money moves only with the user's yes
        expected["confirmation"] = expected["intents"]
    return expected


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MANIFESTS = {domain: from_info_plist(domain) for domain in DOMAINS}


def describe(stack, domain):
    return stack.extension(domain).Describe(ext_pb2.DescribeRequest(), timeout=s.TIMEOUT).manifest


@pytest.mark.parametrize("domain", sorted(MANIFESTS))
def test_describe_lists_the_domains_intents(stack, domain):
    expected = MANIFESTS[domain]
    manifest = describe(stack, domain)
    assert manifest.app_name == expected["app"]
    assert [a.name for a in manifest.alternative_app_names] == expected["alternatives"]
    assert [i.intent_class for i in manifest.intents] == expected["intents"]
    assert sorted(manifest.intents_restricted_while_locked) == sorted(expected["restricted"])
    assert manifest.service_version
    pool = descriptor_pool.Default()
    for declaration in manifest.intents:
        name = declaration.intent_class
        assert declaration.restricted_while_locked == (name in expected["restricted"]), name
        assert declaration.requires_user_confirmation == (name in expected["confirmation"]), name
        assert declaration.supports_live_updates == (name in expected["live"]), name
        if declaration.requires_user_confirmation:
            assert declaration.confirmation_prompt.endswith("?"), name
        # The payload and response types are messages of the contract in Protos/.
        payload = pool.FindMessageTypeByName(declaration.payload_type)
        pool.FindMessageTypeByName(declaration.response_type)
        assert declaration.response_type == declaration.payload_type + "Response"
        fields = {field.camelcase_name for field in payload.fields}
        for parameter in declaration.parameters:
            assert parameter.key_path in fields, f"{name}.{parameter.key_path} is not a field of {payload.full_name}"
            assert parameter.label, f"{name}.{parameter.key_path} has no label"
        assert declaration.view_parameters, name
        for shown in declaration.view_parameters:
            assert shown.parameter_class in (name, name + "Response")


def test_the_gateway_has_no_describe_of_its_own(stack):
    s.expect_status(lambda: stack.extension("gateway").Describe(ext_pb2.DescribeRequest(), timeout=s.TIMEOUT),
                    grpc.StatusCode.UNIMPLEMENTED, "ListRoutes")


def test_list_routes_has_every_intent_of_every_domain(stack):
    table = stack.gateway_api().ListRoutes(gw.ListRoutesRequest(), timeout=s.TIMEOUT)
    domains = {d.app_name: d for d in table.domains}
    assert sorted(domains) == sorted(m["app"] for m in MANIFESTS.values())
    for service, expected in MANIFESTS.items():
        state = domains[expected["app"]]
        assert state.endpoint == stack.endpoints[service]
        assert state.health == "SERVING"
        assert state.last_error == ""
        assert state.intent_count == len(expected["intents"])
        assert list(state.alternative_app_names) == expected["alternatives"]
    routes = {r.intent_class: r for r in table.routes}
    assert len(table.routes) == sum(len(m["intents"]) for m in MANIFESTS.values()) == len(routes)
    for service, expected in MANIFESTS.items():
        manifest = describe(stack, service)
        for declaration in manifest.intents:
            route = routes[declaration.intent_class]
            assert (route.app_name, route.endpoint, route.payload_type) == (
                expected["app"], stack.endpoints[service], declaration.payload_type)
            # Declared restricted, or a payments intent (Siri's own rule).
            assert route.restricted_while_locked == (declaration.intent_class in expected["restricted"])
            assert route.declaration == declaration


# One intent per domain whose interaction the app draws itself: (domain, intent, the view kind).
def send_message():
    return s.intent("INSendMessageIntent", chat.SendMessageIntent(
        recipients=[types.Person(display_name="Celestra")], content="Rainbow polish at noon"))


def send_payment():
    return s.intent("INSendPaymentIntent", pay.SendPaymentIntent(
        payee=types.Person(display_name="Buttercup"), currency_amount=types.CurrencyAmount(currency_code="USD", units=3)))


def request_ride():
    return s.intent("INRequestRideIntent", rides.RequestRideIntent(
        pickup_location=types.Placemark(name="300 Post Street"), drop_off_location=types.Placemark(name="the forest"),
        ride_option_name=types.SpeakableString(spoken_phrase="Pegasus")))


def create_note():
    return s.intent("INCreateNoteIntent", notes.CreateNoteIntent(
        title=types.SpeakableString(spoken_phrase="Unicorn ideas"), content=notes.NoteContent(text="Rainbow bridge")))


VIEWS = [
    ("messaging-service", send_message, "chat-transcript"),
    ("payments-service", send_payment, "payment-transaction"),
    ("ridebooking-service", request_ride, "unicorn-ride-header"),
    ("notes-service", create_note, "note-card"),
]


@pytest.mark.parametrize("domain, make_intent, view_kind", VIEWS, ids=[v[0] for v in VIEWS])
def test_configure_view_of_a_confirmed_intent(stack, via, domain, make_intent, view_kind):
    if domain == "ridebooking-service":
        s.settle_rides(stack.extension(domain))
    ext = stack.extension(domain if via == "direct" else "gateway")
    user_context = s.context(user="diana" if domain != "notes-service" else f"contract-{uuid.uuid4().hex[:8]}")
    the_intent = make_intent()
    confirmed = s.confirm(ext, user_context, the_intent)
    assert confirmed.response.code_name == "ready"
    declaration = next(i for i in describe(stack, domain).intents if i.intent_class == the_intent.intent_class)
    labels = {p.key_path: p.label for p in declaration.parameters}

    def configure(*parameters, **display):
        return ext.ConfigureView(view_pb2.ConfigureViewRequest(
            context=user_context, interaction=confirmed.interaction, parameters=list(parameters), **display),
            timeout=s.TIMEOUT)

    # The empty set first: the app claims parameters and draws them with its view.
    first = configure(hosted_view_context=view_pb2.HOSTED_VIEW_CONTEXT_SIRI_SNIPPET,
                      maximum_size=view_pb2.Size(width=375, height=500))
    assert first.configured
    assert first.view.kind == view_kind
    assert first.view.HasField("root")
    assert first.desired_size.width > 0 and first.desired_size.height > 0
    assert first.configured_parameters
    claimed = {(p.parameter_class, p.key_path) for p in first.configured_parameters}
    assert all(cls in (the_intent.intent_class, the_intent.intent_class + "Response") for cls, _ in claimed)
    assert {(v.parameter.parameter_class, v.parameter.key_path) for v in first.display_values} == claimed
    # A declared parameter asked for shows its label and value.
    asked = declaration.parameters[0]
    answer = configure(view_pb2.Parameter(parameter_class=the_intent.intent_class, key_path=asked.key_path))
    shown = {(v.parameter.key_path, v.label): v.display_text for v in answer.display_values
             if v.parameter.parameter_class == the_intent.intent_class}
    assert shown.get((asked.key_path, labels[asked.key_path])), answer.display_values


def test_configure_view_lets_the_host_draw_what_the_app_declines(stack, via):
    ext = stack.extension("ridebooking-service" if via == "direct" else "gateway")
    query = rides.ListRideOptionsIntent(pickup_location=types.Placemark(name="300 Post Street"),
                                        drop_off_location=types.Placemark(name="Moscone West"))
    handled = s.handle(ext, s.context(), s.intent("INListRideOptionsIntent", query))
    asked = view_pb2.Parameter(parameter_class="INListRideOptionsIntent", key_path="pickupLocation")
    answer = ext.ConfigureView(view_pb2.ConfigureViewRequest(
        context=s.context(), interaction=handled.interaction, parameters=[asked]), timeout=s.TIMEOUT)
    assert not answer.configured
    assert list(answer.configured_parameters) == []
    assert [(v.label, v.display_text) for v in answer.display_values] == [("Pickup", "300 Post Street")]
