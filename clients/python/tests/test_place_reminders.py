"""UnicornNote's places (intentmesh.notebook.v1.UnicornNoteApp): a user names places ("work"), asks to
be reminded when they get there or leave (INAddTasksIntent with a spatial trigger), and reports where
they are; a report that enters or leaves the place fires the reminder — in the report's answer, and
to the user's live reminders stream (StartSendingUpdates on INSearchForNotebookItemsIntent) once,
or at the next follow when no stream was open. The app API and the intents are called on the notes
domain's own port and through the gateway; live streams are followed through the gateway. Every
test uses users of its own (ids with a uuid suffix)."""
import queue
import threading
import uuid

import grpc
import pytest
from intentmesh.notebook.v1 import app_pb2 as app
from intentmesh.notebook.v1 import app_pb2_grpc
from intentmesh.notebook.v1 import notebook_pb2 as notes
from intentmesh.v1 import extension_service_pb2 as ext_pb2
from intentmesh.v1 import types_pb2 as types

import support as s

APP = "UnicornNote"
WORK = (47.3769, 8.5417)  # Zürich HB
NEAR_WORK = (47.3775, 8.5420)  # ≈ 70 m away: inside the default 150 m
AWAY = (47.5, 8.7)  # ≈ 18 km away
#: A reminders stream looks for new firings every second (SearchForNotebookItemsHandler.pollInterval).
QUIET = 2.5


def target(via):
    return "notes-service" if via == "direct" else "gateway"


@pytest.fixture
def ext(stack, via):
    return stack.extension(target(via))


@pytest.fixture
def note_app(stack, via):
    """UnicornNoteApp on `via`, on a channel that sends no token of its own (each call names its user)."""
    return app_pb2_grpc.UnicornNoteAppStub(stack.raw_channel(target(via)))


class User:
    def __init__(self, stack, prefix):
        self.id = f"{prefix}-{uuid.uuid4().hex[:10]}"
        self.auth = [("authorization", f"Bearer {stack.token(self.id)}")]


def set_place(stub, user, name, point, radius=0.0):
    place = app.Place(name=name, latitude=point[0], longitude=point[1], radius_meters=radius)
    return stub.SetPlace(app.SetPlaceRequest(place=place), metadata=user.auth, timeout=s.TIMEOUT).place


def places(stub, user):
    listed = stub.ListPlaces(app.ListPlacesRequest(), metadata=user.auth, timeout=s.TIMEOUT).places
    return [(p.name, round(p.latitude, 6), round(p.longitude, 6), p.radius_meters) for p in listed]


def report(stub, user, point):
    """The titles of the reminders a ReportLocation at `point` fired."""
    fired = stub.ReportLocation(app.ReportLocationRequest(latitude=point[0], longitude=point[1]), metadata=user.auth,
                                timeout=s.TIMEOUT).fired
    return [task.title.spoken_phrase for task in fired]


def add_place_reminder(extension, user, title, place_name, event):
    add = notes.AddTasksIntent(
        task_titles=[types.SpeakableString(spoken_phrase=title)],
        spatial_event_trigger=notes.SpatialEventTrigger(placemark=types.Placemark(name=place_name), event=event))
    done = s.sirikit_round(extension, s.context(user.id), s.intent("INAddTasksIntent", add, APP),
                           notes.AddTasksIntentResponse, needs_user_confirmation=False)
    [added] = done.response.added_tasks
    assert added.title.spoken_phrase == title
    assert (added.spatial_event_trigger.placemark.name, added.spatial_event_trigger.event) == (place_name, event)
    assert done.response.modified_task_list.title.spoken_phrase == "Reminders"
    return added


class Follow:
    """The user's live reminders stream through the gateway, read in a thread: each answer's task
    titles, in order, as they come."""

    def __init__(self, stack, user, timeout=30):
        follow = notes.SearchForNotebookItemsIntent(date_search_type=notes.DATE_SEARCH_TYPE_BY_DUE_DATE)
        request = ext_pb2.StartSendingUpdatesRequest(
            context=s.context(user.id), intent=s.intent("INSearchForNotebookItemsIntent", follow, APP))
        self.call = stack.extension("gateway").StartSendingUpdates(request, timeout=timeout)
        self.answers = queue.Queue()
        self.received = []
        self.error = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for update in self.call:
                answer = s.unpack(update.response.payload, notes.SearchForNotebookItemsIntentResponse)
                self.answers.put((update.response.code_name, [t.title.spoken_phrase for t in answer.tasks]))
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                self.error = error

    def next(self, timeout=10):
        """The next answer's titles (its code must be success); fails after `timeout` seconds."""
        try:
            code, titles = self.answers.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"no answer on the reminders stream within {timeout} s (so far {self.received}, "
                        f"error {self.error})")
        assert code == "success"
        self.received.append(titles)
        return titles

    def nothing_more(self, wait=QUIET):
        """No further answer comes within `wait` seconds."""
        try:
            code, titles = self.answers.get(timeout=wait)
        except queue.Empty:
            return
        pytest.fail(f"an unexpected answer on the reminders stream: {code} {titles} (after {self.received})")

    def close(self):
        self.call.cancel()
        self.thread.join(5)


@pytest.fixture
def follows():
    opened = []
    yield opened
    for follow in opened:
        follow.close()


def test_places_are_set_listed_and_replaced_per_user(stack, note_app):
    ava, eve = User(stack, "ava"), User(stack, "eve")
    assert places(note_app, ava) == []
    work = set_place(note_app, ava, "  Work ", WORK)
    assert (work.name, work.latitude, work.longitude, work.radius_meters) == ("Work", WORK[0], WORK[1], 150)
    set_place(note_app, ava, "home", AWAY, radius=300)
    assert places(note_app, ava) == [("home", AWAY[0], AWAY[1], 300), ("Work", WORK[0], WORK[1], 150)]
    # The same name in any case replaces the place.
    set_place(note_app, ava, "WORK", NEAR_WORK, radius=40)
    assert places(note_app, ava) == [("home", AWAY[0], AWAY[1], 300), ("WORK", NEAR_WORK[0], NEAR_WORK[1], 40)]
    # Eve's places are her own.
    assert places(note_app, eve) == []
    set_place(note_app, eve, "work", AWAY)
    assert places(note_app, eve) == [("work", AWAY[0], AWAY[1], 150)]
    assert places(note_app, ava) == [("home", AWAY[0], AWAY[1], 300), ("WORK", NEAR_WORK[0], NEAR_WORK[1], 40)]


def test_bad_places_and_locations_are_invalid_arguments_and_change_nothing(stack, note_app):
    ava = User(stack, "ava")
    set_place(note_app, ava, "work", WORK)
    code = grpc.StatusCode

    def set_call(place):
        return lambda: note_app.SetPlace(app.SetPlaceRequest(place=place), metadata=ava.auth, timeout=s.TIMEOUT)

    for place, mention in [
        (app.Place(name="work", latitude=91, longitude=8), "not a point"),
        (app.Place(name="work", latitude=47, longitude=-180.5), "not a point"),
        (app.Place(name="work", latitude=WORK[0], longitude=WORK[1], radius_meters=10), "radius"),
        (app.Place(name="work", latitude=WORK[0], longitude=WORK[1], radius_meters=5001), "radius"),
        (app.Place(name="", latitude=WORK[0], longitude=WORK[1]), ""),
        (app.Place(name="   ", latitude=WORK[0], longitude=WORK[1]), ""),
    ]:
        s.expect_status(set_call(place), code.INVALID_ARGUMENT, *([mention] if mention else []))
    for latitude, longitude in [(91, 0), (0, 200), (float("nan"), 0)]:
        where = app.ReportLocationRequest(latitude=latitude, longitude=longitude)
        s.expect_status(lambda: note_app.ReportLocation(where, metadata=ava.auth, timeout=s.TIMEOUT),
                        code.INVALID_ARGUMENT, "not a point")
    s.expect_status(lambda: note_app.ListPlaces(app.ListPlacesRequest(), metadata=[("authorization", "Bearer x")],
                                                timeout=s.TIMEOUT),
                    code.UNAUTHENTICATED)
    assert places(note_app, ava) == [("work", WORK[0], WORK[1], 150)]


def test_a_place_reminder_fires_on_arrival_and_departure_and_reaches_the_live_stream_once(
        stack, note_app, ext, follows):
    ava, eve = User(stack, "ava"), User(stack, "eve")
    set_place(note_app, ava, "Work", WORK)
    add_place_reminder(ext, ava, "Call mom", "work", notes.SPATIAL_EVENT_ARRIVE)
    add_place_reminder(ext, ava, "Buy hay", "work", notes.SPATIAL_EVENT_DEPART)
    # A first report fires arrivals only: away from work, nothing.
    assert report(note_app, ava, AWAY) == []

    stream = Follow(stack, ava)
    follows.append(stream)
    assert stream.next() == []  # nothing fired yet

    # Eve at Ava's work fires nothing of Ava's (she has no such reminder or place).
    assert report(note_app, eve, WORK) == []
    # Ava arrives: "Call mom" fires, in the report's answer and once on the stream.
    assert report(note_app, ava, NEAR_WORK) == ["Call mom"]
    assert report(note_app, ava, WORK) == []  # still there
    assert stream.next() == ["Call mom"]
    stream.nothing_more()
    # She leaves: "Buy hay" fires; and she comes back: "Call mom" again.
    assert report(note_app, ava, AWAY) == ["Buy hay"]
    assert stream.next() == ["Buy hay"]
    assert report(note_app, ava, WORK) == ["Call mom"]
    assert stream.next() == ["Call mom"]
    stream.nothing_more()
    assert stream.received == [[], ["Call mom"], ["Buy hay"], ["Call mom"]]

    # Eve's own stream has nothing of Ava's.
    eves = Follow(stack, eve)
    follows.append(eves)
    assert eves.next() == []
    eves.nothing_more(1.5)


def test_a_reminder_that_fires_with_no_stream_open_is_delivered_at_the_next_follow_once(
        stack, note_app, ext, follows):
    ava = User(stack, "ava")
    set_place(note_app, ava, "work", WORK)
    add_place_reminder(ext, ava, "Water the plants", "Work", notes.SPATIAL_EVENT_ARRIVE)
    # A reminder at a placemark with its own location (150 m around it), no named place needed.
    own = notes.AddTasksIntent(
        task_titles=[types.SpeakableString(spoken_phrase="Feed the cat")],
        spatial_event_trigger=notes.SpatialEventTrigger(
            placemark=types.Placemark(name="the barn", location=types.Location(latitude=AWAY[0], longitude=AWAY[1])),
            event=notes.SPATIAL_EVENT_ARRIVE))
    s.handled_response(ext, s.context(ava.id), s.intent("INAddTasksIntent", own, APP), notes.AddTasksIntentResponse)

    # No stream is open: Ava gets to work, then to the barn.
    assert report(note_app, ava, WORK) == ["Water the plants"]
    assert report(note_app, ava, AWAY) == ["Feed the cat"]

    # The next follow's first answer holds both, in the order they fired; nothing follows.
    first = Follow(stack, ava)
    follows.append(first)
    assert first.next() == ["Water the plants", "Feed the cat"]
    first.nothing_more()
    first.close()
    # They were delivered: the follow after that starts empty.
    second = Follow(stack, ava)
    follows.append(second)
    assert second.next() == []
    second.nothing_more(1.5)
