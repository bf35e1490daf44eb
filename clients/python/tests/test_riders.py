"""UnicornRides' riders (intentmesh.ridebooking.v1.UnicornRidesApp): users who exist only because they
signed up through the app API book, cancel and finish rides, and see what each cost them, on the
ride-booking domain's own port and through the gateway's public port (which relays the app service
as it relays the intents).

The stack is shared by the whole suite and has three drivers; a driver is held by one ride from
booking until it completes or is cancelled. So every test here makes its own riders (ids with a uuid
suffix), and every ride a test books is cancelled (a cancel releases the driver) or runs to its end
before the test returns, even when it fails (`Rides.cleanup`). Rides run on a clock RIDE_CLOCK_SPEED
times faster than the wall clock: a ride booked with a pickup at "the forest" (every driver's stable is
at least 3.7 km away, so the approach takes 446 s of ride time or more) stays cancellable for at least
4.2 s of wall time, while its free-cancellation minutes (120 s of ride time) pass in 1 s."""
import time
import uuid

import grpc
import pytest
from conftest import RIDE_CLOCK_SPEED
from intentmesh.ridebooking.v1 import app_pb2 as app
from intentmesh.ridebooking.v1 import app_pb2_grpc
from intentmesh.ridebooking.v1 import ridebooking_pb2 as rides
from intentmesh.v1 import extension_service_pb2 as ext_pb2
from intentmesh.v1 import types_pb2 as types

import support as s

APP = "UnicornRides"
#: Free within this much ride time of booking (CancelRideHandler.feeThreshold), 5.00 USD after it.
FREE_CANCELLATION_SECONDS = 120
CANCELLATION_FEE_CENTS = 500
Method = types.PaymentMethod


def target(via):
    return "ridebooking-service" if via == "direct" else "gateway"


@pytest.fixture
def ext(stack, via):
    """The Intents extension on `via`; calls are signed in as their context's user."""
    return stack.extension(target(via))


@pytest.fixture
def rides_app(stack, via):
    """UnicornRidesApp on `via`, on a channel that sends no token of its own (each call names its user)."""
    return app_pb2_grpc.UnicornRidesAppStub(stack.raw_channel(target(via)))


class Rider:
    """A rider of this test: id, token metadata, display name and the card they sign up with."""

    def __init__(self, stack, prefix, name, hint="4242"):
        self.id = f"{prefix}-{uuid.uuid4().hex[:10]}"
        self.name = name
        self.card = Method(type=Method.TYPE_DEBIT, name=f"{name.split()[0]}'s Card", identification_hint=hint)
        self.auth = [("authorization", f"Bearer {stack.token(self.id)}")]


def sign_up(stub, rider, method=None):
    return stub.SignUp(app.SignUpRequest(display_name=rider.name, payment_method=method or rider.card),
                       metadata=rider.auth, timeout=s.TIMEOUT).rider


def list_rides(stub, rider, limit=0):
    return list(stub.ListRides(app.ListRidesRequest(limit=limit), metadata=rider.auth, timeout=s.TIMEOUT).rides)


def list_charges(stub, rider):
    return list(stub.ListCharges(app.ListChargesRequest(), metadata=rider.auth, timeout=s.TIMEOUT).charges)


def method_of(method):
    return method.type, method.name, method.identification_hint


def charge_of(charge):
    """(ride, kind, (currency, cents), method) of a Charge."""
    return (charge.ride_identifier, charge.kind, (charge.amount.currency_code, s.money_cents(charge.amount)),
            method_of(charge.payment_method))


def ride_request(pickup="the forest", drop_off="300 Post Street"):
    return rides.RequestRideIntent(pickup_location=types.Placemark(name=pickup),
                                   drop_off_location=types.Placemark(name=drop_off))


class Rides:
    """The rides a test booked, so that it can leave no driver held whatever happens."""

    def __init__(self, direct):
        self.direct = direct
        self.booked = {}  # ride identifier → rider id

    def book(self, extension, rider, request=None):
        """INRequestRideIntent as `rider`, the full round (resolve, confirm — waits for the rider's
        yes —, handle with Confirm's confirmation token). The Round, and the wall time just before
        Handle was sent (the ride is booked between then and its answer)."""
        the_intent = s.intent("INRequestRideIntent", request or ride_request(), APP)
        request_context = s.context(rider.id, time_zone="America/Los_Angeles")
        resolved = s.resolve(extension, request_context, the_intent)
        assert resolved.complete, s.describe_resolutions(resolved)
        confirmed = s.confirm(extension, request_context, resolved.resolved_intent)
        assert confirmed.response.code_name == "ready", confirmed.response.code_name
        assert confirmed.interaction.intent_handling_status == s.USER_CONFIRMATION_REQUIRED
        sent = time.monotonic()
        handled = extension.Handle(
            ext_pb2.HandleRequest(context=request_context, intent=resolved.resolved_intent,
                                    confirmation_token=confirmed.confirmation_token), timeout=s.TIMEOUT)
        ride = s.unpack(handled.response.payload, rides.RequestRideIntentResponse).ride_status
        if ride.ride_identifier:
            self.booked[ride.ride_identifier] = rider.id
        assert handled.response.code_name == "success", handled.response.code_name
        assert ride.ride_identifier and ride.phase in s.RUNNING_RIDE_PHASES
        return s.Round(resolved, confirmed, handled, s.unpack(handled.response.payload,
                                                              rides.RequestRideIntentResponse)), sent

    def cancel(self, extension, rider_id, ride_identifier):
        """INCancelRideIntent's full round; the confirm and handle answers (CancelRideIntentResponse)."""
        cancel = s.intent("INCancelRideIntent", rides.CancelRideIntent(ride_identifier=ride_identifier), APP)
        done = s.sirikit_round(extension, s.context(rider_id), cancel, rides.CancelRideIntentResponse,
                               needs_user_confirmation=True)
        self.booked.pop(ride_identifier, None)
        return s.unpack(done.confirmed.response.payload, rides.CancelRideIntentResponse), done.response

    def cleanup(self, timeout=30):
        """Cancels every ride still running; waits for those already under way (not cancellable) to end."""
        deadline = time.monotonic() + timeout
        for ride_identifier, rider_id in list(self.booked.items()):
            while time.monotonic() < deadline:
                code, answer = s.ride_status(self.direct, rider_id)
                if code != "success" or answer.ride_status.phase not in s.RUNNING_RIDE_PHASES:
                    break
                if answer.ride_status.phase != rides.RIDE_PHASE_ONGOING:
                    cancel = rides.CancelRideIntent(ride_identifier=ride_identifier)
                    s.handle(self.direct, s.context(rider_id), s.intent("INCancelRideIntent", cancel, APP))
                else:
                    time.sleep(0.2)
            self.booked.pop(ride_identifier, None)


@pytest.fixture
def booked(stack):
    """Books through `Rides`; cancels whatever is still running when the test ends, pass or fail."""
    held = Rides(stack.extension("ridebooking-service"))
    try:
        yield held
    finally:
        held.cleanup()


def test_a_rider_signs_up_with_a_payment_method_and_changes_it(stack, rides_app):
    ava = Rider(stack, "ava", "Ava Stardust")
    s.expect_status(lambda: rides_app.GetRider(app.GetRiderRequest(), metadata=ava.auth, timeout=s.TIMEOUT),
                    grpc.StatusCode.NOT_FOUND, ava.id, "SignUp")
    s.expect_status(lambda: rides_app.SetPaymentMethod(app.SetPaymentMethodRequest(payment_method=ava.card),
                                                       metadata=ava.auth, timeout=s.TIMEOUT),
                    grpc.StatusCode.FAILED_PRECONDITION, ava.id, "SignUp")

    rider = sign_up(rides_app, ava, Method(type=Method.TYPE_DEBIT, name="  Ava's Card ", identification_hint=" 4242 "))
    assert (rider.user_id, rider.display_name) == (ava.id, "Ava Stardust")
    assert method_of(rider.payment_method) == (Method.TYPE_DEBIT, "Ava's Card", "4242")  # trimmed
    assert rides_app.GetRider(app.GetRiderRequest(), metadata=ava.auth, timeout=s.TIMEOUT).rider == rider

    sparkle = Method(type=Method.TYPE_CREDIT, name="Sparkle Card", identification_hint="0042")
    changed = rides_app.SetPaymentMethod(app.SetPaymentMethodRequest(payment_method=sparkle), metadata=ava.auth,
                                         timeout=s.TIMEOUT).rider
    assert (changed.user_id, changed.display_name) == (ava.id, "Ava Stardust")
    assert method_of(changed.payment_method) == (Method.TYPE_CREDIT, "Sparkle Card", "0042")
    assert method_of(rides_app.GetRider(app.GetRiderRequest(), metadata=ava.auth,
                                        timeout=s.TIMEOUT).rider.payment_method) == (
        Method.TYPE_CREDIT, "Sparkle Card", "0042")
    assert list_rides(rides_app, ava) == [] and list_charges(rides_app, ava) == []


def test_bad_input_is_refused_with_its_status_and_changes_nothing(stack, rides_app):
    ava, eve = Rider(stack, "ava", "Ava Stardust"), Rider(stack, "eve", "Eve Shadow")
    code = grpc.StatusCode

    def call(method, request, rider):
        return lambda: method(request, metadata=rider.auth, timeout=s.TIMEOUT)

    # Not signed up: nothing to read or change, and a bad SignUp makes no rider.
    s.expect_status(call(rides_app.SignUp, app.SignUpRequest(display_name=eve.name,
                                                              payment_method=Method(name="No type")), eve),
                    code.INVALID_ARGUMENT, "type")
    s.expect_status(call(rides_app.SignUp, app.SignUpRequest(display_name=eve.name), eve), code.INVALID_ARGUMENT)
    s.expect_status(call(rides_app.SignUp, app.SignUpRequest(
        display_name=eve.name, payment_method=Method(type=Method.TYPE_CREDIT, name="  ")), eve), code.INVALID_ARGUMENT)
    s.expect_status(call(rides_app.SignUp, app.SignUpRequest(display_name=" ", payment_method=eve.card), eve),
                    code.INVALID_ARGUMENT)
    s.expect_status(call(rides_app.SignUp, app.SignUpRequest(
        display_name=eve.name, payment_method=Method(type=Method.TYPE_CREDIT, name="Card",
                                                     identification_hint="x" * 21)), eve),
                    code.INVALID_ARGUMENT, "hint")
    s.expect_status(call(rides_app.GetRider, app.GetRiderRequest(), eve), code.NOT_FOUND, "SignUp")
    s.expect_status(call(rides_app.SetPaymentMethod, app.SetPaymentMethodRequest(payment_method=eve.card), eve),
                    code.FAILED_PRECONDITION, "SignUp")

    signed_up = sign_up(rides_app, ava)
    s.expect_status(call(rides_app.SignUp, app.SignUpRequest(display_name="Ava Again", payment_method=eve.card), ava),
                    code.ALREADY_EXISTS, ava.id)
    s.expect_status(call(rides_app.SetPaymentMethod, app.SetPaymentMethodRequest(payment_method=Method(name="None")),
                         ava),
                    code.INVALID_ARGUMENT, "type")
    for limit in (101, -1):
        s.expect_status(call(rides_app.ListRides, app.ListRidesRequest(limit=limit), ava), code.INVALID_ARGUMENT,
                        str(limit))
    s.expect_status(lambda: rides_app.GetRider(app.GetRiderRequest(), metadata=[("authorization", "Bearer x")],
                                               timeout=s.TIMEOUT),
                    code.UNAUTHENTICATED)
    s.expect_status(lambda: rides_app.ListCharges(app.ListChargesRequest(), timeout=s.TIMEOUT), code.UNAUTHENTICATED)

    # Ava is as she signed up; Eve is still no rider.
    assert rides_app.GetRider(app.GetRiderRequest(), metadata=ava.auth, timeout=s.TIMEOUT).rider == signed_up
    assert method_of(signed_up.payment_method) == (Method.TYPE_DEBIT, "Ava's Card", "4242")
    assert signed_up.display_name == "Ava Stardust"
    s.expect_status(call(rides_app.GetRider, app.GetRiderRequest(), eve), code.NOT_FOUND)
    assert list_rides(rides_app, ava, limit=100) == [] and list_charges(rides_app, eve) == []


def test_a_ride_cancelled_at_once_costs_nothing_and_only_its_rider_sees_it(stack, rides_app, ext, booked):
    ava, ben = Rider(stack, "ava", "Ava Stardust"), Rider(stack, "ben", "Ben Moonbeam")
    sign_up(rides_app, ava)
    sign_up(rides_app, ben)
    done, sent = booked.book(ext, ava)
    answered = time.monotonic()
    ride = done.response.ride_status
    began = time.monotonic()
    confirmed, cancelled = booked.cancel(ext, ava.id, ride.ride_identifier)
    ended = time.monotonic()
    # The rule (CancelRideHandler): free within 120 s of ride time after booking, 5.00 USD after. The
    # ride time between booking and cancelling lies within these bounds (a fraction of a second of
    # wall time, unless the machine stalled).
    at_least, at_most = (began - answered) * RIDE_CLOCK_SPEED, (ended - sent) * RIDE_CLOCK_SPEED
    fee = s.money_cents(cancelled.cancellation_fee)
    if at_most < FREE_CANCELLATION_SECONDS:
        assert fee == 0 and s.money_cents(confirmed.cancellation_fee) == 0
    elif at_least >= FREE_CANCELLATION_SECONDS:
        assert fee == CANCELLATION_FEE_CENTS, f"{at_least:.0f}-{at_most:.0f} s of ride time"
    else:
        assert fee in (0, CANCELLATION_FEE_CENTS)
    assert cancelled.cancellation_fee_threshold.minute == FREE_CANCELLATION_SECONDS // 60

    # A free cancel charges nothing (a late one exactly the fee); the ride is over, cancelled by its rider.
    card = (Method.TYPE_DEBIT, "Ava's Card", "4242")
    expected = [] if fee == 0 else [(ride.ride_identifier, app.CHARGE_KIND_CANCELLATION_FEE, ("USD", fee), card)]
    assert [charge_of(c) for c in list_charges(rides_app, ava)] == expected
    [listed] = list_rides(rides_app, ava)
    assert listed.status.ride_identifier == ride.ride_identifier
    assert listed.status.driver.person.custom_identifier == ride.driver.person.custom_identifier
    assert listed.status.phase == rides.RIDE_PHASE_COMPLETED
    assert listed.status.completion_status.outcome == rides.RideCompletionStatus.OUTCOME_CANCELED_BY_USER
    assert s.money_cents(listed.status.completion_status.payment_amount) == fee
    assert [charge_of(c) for c in listed.charges] == expected

    # Ben sees none of it: no rides, no charges, no status; he cannot cancel or rate Ava's ride.
    assert list_rides(rides_app, ben) == [] and list_charges(rides_app, ben) == []
    for intent_class, message in [
        ("INCancelRideIntent", rides.CancelRideIntent(ride_identifier=ride.ride_identifier)),
        ("INSendRideFeedbackIntent", rides.SendRideFeedbackIntent(ride_identifier=ride.ride_identifier, rating=1)),
    ]:
        intruder = s.confirm(ext, s.context(ben.id), s.intent(intent_class, message, APP))
        assert (intruder.response.code_name, intruder.response.user_activity.user_info["error"]) == (
            "failure", "noRide")
    handled = s.handle(ext, s.context(ben.id), s.intent("INGetRideStatusIntent", rides.GetRideStatusIntent(), APP))
    assert (handled.response.code_name, handled.response.user_activity.user_info["error"]) == ("failure", "noRide")
    assert not s.unpack(handled.response.payload, rides.GetRideStatusIntentResponse).ride_status.ride_identifier
    assert list_rides(rides_app, ben) == [] and list_charges(rides_app, ben) == []


def test_a_late_cancel_charges_the_fee_to_the_card_on_file_once(stack, rides_app, ext, booked):
    ava, ben = Rider(stack, "ava", "Ava Stardust"), Rider(stack, "ben", "Ben Moonbeam")
    sign_up(rides_app, ava)
    sign_up(rides_app, ben)
    done, sent = booked.book(ext, ava)
    ride = done.response.ride_status
    # Past the free minutes (at least 150 s of ride time), well before the driver reaches the forest.
    time.sleep(max(0.0, 150 / RIDE_CLOCK_SPEED - (time.monotonic() - sent)))
    confirmed, cancelled = booked.cancel(ext, ava.id, ride.ride_identifier)
    assert (time.monotonic() - sent) * RIDE_CLOCK_SPEED < 446, "the cancel came after the pickup could have begun"
    fee = ("USD", CANCELLATION_FEE_CENTS)
    assert (confirmed.cancellation_fee.currency_code, s.money_cents(confirmed.cancellation_fee)) == fee
    assert (cancelled.cancellation_fee.currency_code, s.money_cents(cancelled.cancellation_fee)) == fee
    assert cancelled.cancellation_fee_threshold.minute == 2

    card = (Method.TYPE_DEBIT, "Ava's Card", "4242")
    [charge] = list_charges(rides_app, ava)
    assert charge_of(charge) == (ride.ride_identifier, app.CHARGE_KIND_CANCELLATION_FEE, fee, card)
    assert charge.charged_at_ms > 0
    [listed] = list_rides(rides_app, ava)
    assert listed.status.ride_identifier == ride.ride_identifier
    assert listed.status.phase == rides.RIDE_PHASE_COMPLETED
    assert listed.status.completion_status.outcome == rides.RideCompletionStatus.OUTCOME_CANCELED_BY_USER
    assert s.money_cents(listed.status.completion_status.payment_amount) == CANCELLATION_FEE_CENTS
    assert [charge_of(c) for c in listed.charges] == [charge_of(charge)]

    # Cancelling again charges nothing more: the ride has ended.
    again = s.confirm(ext, s.context(ava.id), s.intent(
        "INCancelRideIntent", rides.CancelRideIntent(ride_identifier=ride.ride_identifier), APP))
    assert (again.response.code_name, again.response.user_activity.user_info["error"]) == ("failure", "rideEnded")
    # A new card takes the next charges; the fee stays on the card it was charged to.
    rides_app.SetPaymentMethod(app.SetPaymentMethodRequest(payment_method=Method(
        type=Method.TYPE_APPLE_PAY, name="Apple Pay")), metadata=ava.auth, timeout=s.TIMEOUT)
    assert [charge_of(c) for c in list_charges(rides_app, ava)] == [charge_of(charge)]
    assert list_rides(rides_app, ben) == [] and list_charges(rides_app, ben) == []


def test_a_completed_ride_charges_its_fare_and_a_tip_once(stack, rides_app, ext, booked):
    ava, ben = Rider(stack, "ava", "Ava Stardust"), Rider(stack, "ben", "Ben Moonbeam")
    sign_up(rides_app, ava)
    sign_up(rides_app, ben)
    # A short ride (≈ 7 minutes of ride time, a few seconds of wall time).
    done, _ = booked.book(ext, ava, ride_request("300 Post Street", "Moscone West"))
    ride = done.response.ride_status
    fare_cents = s.money_cents(ride.ride_option.price_range.minimum_price)
    assert fare_cents > 0
    deadline = time.monotonic() + 20
    while True:
        [listed] = list_rides(rides_app, ava)
        if listed.status.phase == rides.RIDE_PHASE_COMPLETED:
            break
        assert list(listed.charges) == []  # no fare before the ride completes
        assert time.monotonic() < deadline, f"the ride did not complete: {listed.status}"
        time.sleep(0.25)
    assert listed.status.completion_status.outcome == rides.RideCompletionStatus.OUTCOME_COMPLETED
    assert s.money_cents(listed.status.completion_status.payment_amount) == fare_cents
    card = (Method.TYPE_DEBIT, "Ava's Card", "4242")
    fare = (ride.ride_identifier, app.CHARGE_KIND_FARE, ("USD", fare_cents), card)
    assert [charge_of(c) for c in listed.charges] == [fare]

    feedback = rides.SendRideFeedbackIntent(ride_identifier=ride.ride_identifier, rating=10,
                                            tip=types.CurrencyAmount(currency_code="USD", units=2, nanos=500_000_000))
    s.sirikit_round(ext, s.context(ava.id), s.intent("INSendRideFeedbackIntent", feedback, APP),
                    rides.SendRideFeedbackIntentResponse, needs_user_confirmation=False)
    again = s.handle(ext, s.context(ava.id), s.intent("INSendRideFeedbackIntent", feedback, APP))
    assert (again.response.code_name, again.response.user_activity.user_info["error"]) == (
        "failure", "feedbackAlreadySent")
    tip = (ride.ride_identifier, app.CHARGE_KIND_TIP, ("USD", 250), card)
    charges = list_charges(rides_app, ava)
    assert sorted(charge_of(c) for c in charges) == sorted([fare, tip])
    assert charges[0].charged_at_ms >= charges[1].charged_at_ms  # newest first
    [listed] = list_rides(rides_app, ava)
    assert sorted(charge_of(c) for c in listed.charges) == sorted([fare, tip])
    assert list_rides(rides_app, ben) == [] and list_charges(rides_app, ben) == []


def test_with_every_driver_held_the_next_rider_waits_until_a_cancel(stack, rides_app, ext, booked):
    riders = [Rider(stack, prefix, f"{prefix.capitalize()} Rider") for prefix in ("ava", "ben", "cleo", "dot")]
    for rider in riders:
        sign_up(rides_app, rider)
    *first_three, dot = riders
    drivers = {}
    for rider in first_three:
        done, _ = booked.book(ext, rider)
        drivers[rider.id] = (done.response.ride_status.ride_identifier,
                             done.response.ride_status.driver.person.custom_identifier)
    assert sorted(driver for _, driver in drivers.values()) == ["moonbeam", "stardust", "twilight"]

    # Every driver is held: Dot's ride resolves, but Confirm (and Handle) say no service for now.
    request_context = s.context(dot.id, time_zone="America/Los_Angeles")
    the_intent = s.intent("INRequestRideIntent", ride_request(), APP)
    resolved = s.resolve(ext, request_context, the_intent)
    assert resolved.complete, s.describe_resolutions(resolved)
    refused = s.confirm(ext, request_context, resolved.resolved_intent)
    assert refused.response.code_name == "failureRequiringAppLaunchServiceTemporarilyUnavailable"
    assert refused.response.user_activity.user_info["error"] == "noDriver"
    assert refused.interaction.intent_handling_status == s.DEFERRED_TO_APPLICATION
    assert not refused.confirmation_token  # so no Handle can book it
    assert list_rides(rides_app, dot) == []

    # Ava cancels: her driver is free, and Dot gets that very driver.
    ride_identifier, freed = drivers[first_three[0].id]
    booked.cancel(ext, first_three[0].id, ride_identifier)
    done, _ = booked.book(ext, dot)
    assert done.response.ride_status.driver.person.custom_identifier == freed
    [listed] = list_rides(rides_app, dot)
    assert listed.status.ride_identifier == done.response.ride_status.ride_identifier
    drivers[dot.id] = (done.response.ride_status.ride_identifier, freed)
    for rider in riders[1:]:
        booked.cancel(ext, rider.id, drivers[rider.id][0])
    assert booked.booked == {}
