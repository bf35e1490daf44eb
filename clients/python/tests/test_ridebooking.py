"""UnicornRides (ridebooking-service): every intent, on its own endpoint and through the gateway.
Only the seeded `diana` can ride, and she can have one running ride at a time, so every test starts
from no running ride and cancels what it booked. Rides run on a clock `RIDE_CLOCK_SPEED` times
faster than the wall clock (see conftest), so a short ride completes in a few seconds."""
import time

import pytest
from intentmesh.ridebooking.v1 import ridebooking_pb2 as rides
from intentmesh.v1 import extension_service_pb2 as ext_pb2
from intentmesh.v1 import types_pb2 as types

import support as s

APP = "UnicornRides"
RUNNING = s.RUNNING_RIDE_PHASES
status = s.ride_status


@pytest.fixture
def ext(stack, via):
    return stack.extension("ridebooking-service" if via == "direct" else "gateway")


@pytest.fixture
def direct(stack):
    extension = stack.extension("ridebooking-service")
    s.settle_rides(extension)
    yield extension
    s.settle_rides(extension)


def book(extension, pickup="300 Post Street", drop_off="the forest", option=""):
    request = rides.RequestRideIntent(
        pickup_location=types.Placemark(name=pickup), drop_off_location=types.Placemark(name=drop_off),
        ride_option_name=types.SpeakableString(spoken_phrase=option))
    booked = s.handled_response(extension, s.context(time_zone="America/Los_Angeles"),
                                s.intent("INRequestRideIntent", request), rides.RequestRideIntentResponse)
    assert booked.ride_status.ride_identifier
    return booked.ride_status


def test_list_ride_options_between_known_places(ext, direct):
    query = rides.ListRideOptionsIntent(pickup_location=types.Placemark(name="300 Post Street"),
                                        drop_off_location=types.Placemark(name="the forest"))
    done = s.sirikit_round(ext, s.context(time_zone="America/Los_Angeles"),
                           s.intent("INListRideOptionsIntent", query, APP), rides.ListRideOptionsIntentResponse,
                           needs_user_confirmation=False)
    assert done.results["dropOffLocation"][0].success.value.display_text.startswith("Unicorn Forest")
    options = {option.name: option for option in done.response.ride_options}
    assert {"Unicorn", "Bicorn", "Pegasus"} <= set(options)
    bicorn = options["Bicorn"].price_range
    assert 0 < s.money_cents(bicorn.minimum_price) <= s.money_cents(bicorn.maximum_price)
    assert [method.name for method in done.response.payment_methods] == ["Apple Pay"]
    assert done.response.expiration_date.seconds > 0


def test_request_ride_books_one_that_get_ride_status_finds(ext, direct):
    request = rides.RequestRideIntent(
        pickup_location=types.Placemark(name="300 Post Street"), drop_off_location=types.Placemark(name="the forest"),
        ride_option_name=types.SpeakableString(spoken_phrase="two-horned unicorn"))
    done = s.sirikit_round(ext, s.context(time_zone="America/Los_Angeles"), s.intent("INRequestRideIntent", request, APP),
                           rides.RequestRideIntentResponse, needs_user_confirmation=True)
    # The app vocabulary's synonym names the Bicorn.
    assert done.results["rideOptionName"][0].success.value.display_text == "Bicorn"
    quoted = s.unpack(done.confirmed.response.payload, rides.RequestRideIntentResponse).ride_status
    assert quoted.ride_option.name == "Bicorn" and not quoted.ride_identifier
    ride = done.response.ride_status
    assert ride.ride_identifier
    assert ride.phase in RUNNING
    assert ride.ride_option.name == "Bicorn"
    assert ride.driver.person.display_name and ride.vehicle.registration_plate

    code, found = status(ext)
    assert code == "success"
    assert found.ride_status.ride_identifier == ride.ride_identifier
    assert found.ride_status.phase in RUNNING

    # One ride at a time: a second booking is refused while this one runs.
    second = s.confirm(ext, s.context(), s.intent("INRequestRideIntent", request, APP))
    assert second.response.code_name == "failureRequiringAppLaunchPreviousRideNeedsCompletion"


def test_get_ride_status_of_the_running_ride(ext, direct):
    ride = book(direct)
    done = s.sirikit_round(ext, s.context(), s.intent("INGetRideStatusIntent", rides.GetRideStatusIntent(), APP),
                           rides.GetRideStatusIntentResponse, needs_user_confirmation=False)
    assert list(done.resolved.resolutions) == []  # no parameters
    assert done.response.ride_status.ride_identifier == ride.ride_identifier
    assert done.response.ride_status.phase in RUNNING
    assert done.response.ride_status.drop_off_location.name == ride.drop_off_location.name


def test_cancel_ride_ends_it_as_cancelled_by_the_user(ext, direct):
    ride = book(direct)
    cancel = rides.CancelRideIntent(ride_identifier=ride.ride_identifier)
    done = s.sirikit_round(ext, s.context(), s.intent("INCancelRideIntent", cancel, APP),
                           rides.CancelRideIntentResponse, needs_user_confirmation=True)
    # Free within two minutes (ride time) of booking, 5.00 after.
    assert s.money_cents(done.response.cancellation_fee) in (0, 500)
    assert done.response.cancellation_fee_threshold.minute == 2
    code, found = status(direct)
    assert code == "success"
    assert found.ride_status.ride_identifier == ride.ride_identifier
    assert found.ride_status.phase == rides.RIDE_PHASE_COMPLETED
    assert found.ride_status.completion_status.outcome == rides.RideCompletionStatus.OUTCOME_CANCELED_BY_USER


def test_send_ride_feedback_after_a_completed_ride(ext, direct):
    ride = book(direct, drop_off="Moscone West")  # a short ride
    deadline = time.monotonic() + 20
    while True:
        code, found = status(direct)
        assert code == "success" and found.ride_status.ride_identifier == ride.ride_identifier
        if found.ride_status.phase == rides.RIDE_PHASE_COMPLETED:
            break
        assert time.monotonic() < deadline, f"the ride did not complete: {found.ride_status}"
        time.sleep(0.25)
    completion = found.ride_status.completion_status
    assert completion.outcome == rides.RideCompletionStatus.OUTCOME_COMPLETED
    assert completion.feedback_rate and completion.feedback_tip

    feedback = rides.SendRideFeedbackIntent(ride_identifier=ride.ride_identifier, rating=9,
                                            tip=types.CurrencyAmount(currency_code="USD", units=2))
    done = s.sirikit_round(ext, s.context(), s.intent("INSendRideFeedbackIntent", feedback, APP),
                           rides.SendRideFeedbackIntentResponse, needs_user_confirmation=False)
    assert s.kind(done.results["rating"][0]) == "success"
    _, after = status(direct)
    assert not after.ride_status.completion_status.feedback_rate
    # Feedback is taken once.
    again = s.confirm(ext, s.context(), s.intent("INSendRideFeedbackIntent", feedback, APP))
    assert again.response.code_name == "failure"
    assert again.response.user_activity.user_info["error"] == "feedbackAlreadySent"


def test_a_drop_off_outside_the_service_area_is_unsupported(ext):
    query = rides.ListRideOptionsIntent(pickup_location=types.Placemark(name="300 Post Street"),
                                        drop_off_location=types.Placemark(name="San Jose"))
    resolved = s.resolve(ext, s.context(), s.intent("INListRideOptionsIntent", query, APP))
    assert not resolved.complete
    result = s.results(resolved)["dropOffLocation"][0]
    assert s.kind(result) == "unsupported"
    assert result.unsupported.reason.name == "outsideServiceArea"


def test_ride_status_updates_stream_through_the_gateway(stack, direct):
    ride = book(direct)
    gateway = stack.extension("gateway")
    request = ext_pb2.StartSendingUpdatesRequest(
        context=s.context(), intent=s.intent("INGetRideStatusIntent", rides.GetRideStatusIntent(), APP))
    updates = gateway.StartSendingUpdates(request, timeout=20)
    phases = []
    try:
        for update in updates:
            assert update.response.code_name == "success"
            answer = s.unpack(update.response.payload, rides.GetRideStatusIntentResponse)
            assert answer.ride_status.ride_identifier == ride.ride_identifier
            phases.append(answer.ride_status.phase)
            if len(phases) == 2:
                break
    finally:
        updates.cancel()
    # The whole status first, then the next change (received → confirmed, 20 s of ride time later).
    assert len(phases) == 2
    assert phases[0] in RUNNING and phases[1] in RUNNING
