"""UnicornNote (notes-service): every intent, on its own endpoint and through the gateway. A notebook
is per user and needs no account, so each test that changes one uses a user of its own; the seeded
`diana` is only read."""
import datetime
import time
import uuid

import pytest
from intentmesh.notebook.v1 import notebook_pb2 as notes
from intentmesh.v1 import extension_service_pb2 as ext_pb2
from intentmesh.v1 import types_pb2 as types

import support as s

APP = "UnicornNote"


@pytest.fixture
def ext(stack, via):
    return stack.extension("notes-service" if via == "direct" else "gateway")


@pytest.fixture
def direct(stack):
    return stack.extension("notes-service")


def spoken(text):
    return types.SpeakableString(spoken_phrase=text)


def search(extension, user, **fields):
    return s.handled_response(
        extension, s.context(user=user),
        s.intent("INSearchForNotebookItemsIntent", notes.SearchForNotebookItemsIntent(**fields)),
        notes.SearchForNotebookItemsIntentResponse,
    )


def create_note(extension, user, title, text):
    made = notes.CreateNoteIntent(title=spoken(title), content=notes.NoteContent(text=text))
    return s.handled_response(extension, s.context(user=user), s.intent("INCreateNoteIntent", made),
                              notes.CreateNoteIntentResponse).created_note


def day_components(day, **time_of_day):
    return types.DateComponents(year=day.year, month=day.month, day=day.day, **time_of_day)


def test_create_note_is_found_by_search(ext, direct, fresh_user):
    title = f"Unicorn ideas {uuid.uuid4().hex[:6]}"
    made = notes.CreateNoteIntent(title=spoken(title), content=notes.NoteContent(text="Glitter-powered hoverboard"),
                                  group_name=spoken("Rainbow"))
    done = s.sirikit_round(ext, s.context(user=fresh_user), s.intent("INCreateNoteIntent", made, APP),
                           notes.CreateNoteIntentResponse, needs_user_confirmation=False)
    assert done.results["title"][0].success.value.display_text == title
    created = done.response.created_note
    assert created.identifier and created.title.spoken_phrase == title
    assert created.group_name.spoken_phrase == "Rainbow"
    assert [c.text for c in created.contents] == ["Glitter-powered hoverboard"]
    found = search(ext, fresh_user, title=spoken(title))
    assert [n.identifier for n in found.notes] == [created.identifier]
    assert [n.identifier for n in search(direct, fresh_user, content="hoverboard").notes] == [created.identifier]


def test_append_to_note_adds_content(ext, direct, fresh_user):
    created = create_note(direct, fresh_user, "Stable chores", "Brush manes")
    append = notes.AppendToNoteIntent(target_note=notes.Note(title=spoken("Stable chores")),
                                      content=notes.NoteContent(text="Polish horns"))
    done = s.sirikit_round(ext, s.context(user=fresh_user), s.intent("INAppendToNoteIntent", append, APP),
                           notes.AppendToNoteIntentResponse, needs_user_confirmation=False)
    assert s.unpack(done.results["targetNote"][0].success.value.value, notes.Note).identifier == created.identifier
    assert [c.text for c in done.response.note.contents] == ["Brush manes", "Polish horns"]
    found = search(direct, fresh_user, notebook_item_identifier=created.identifier)
    assert [c.text for c in found.notes[0].contents] == ["Brush manes", "Polish horns"]


def test_a_password_protected_note_cannot_be_appended_to(ext):
    append = notes.AppendToNoteIntent(target_note=notes.Note(title=spoken("Secret stable codes")),
                                      content=notes.NoteContent(text="Gate: 0000"))
    the_intent = s.intent("INAppendToNoteIntent", append, APP)
    confirmed = s.confirm(ext, s.context(), the_intent)
    assert confirmed.response.code_name == "failureCannotUpdatePasswordProtectedNote"
    handled = s.handle(ext, s.context(), the_intent)
    assert handled.response.code_name == "failureCannotUpdatePasswordProtectedNote"


def test_create_task_list_is_found_with_its_tasks(ext, fresh_user):
    made = notes.CreateTaskListIntent(title=spoken("Party"), task_titles=[spoken("Balloons"), spoken("Cake")])
    done = s.sirikit_round(ext, s.context(user=fresh_user), s.intent("INCreateTaskListIntent", made, APP),
                           notes.CreateTaskListIntentResponse, needs_user_confirmation=False)
    assert [s.kind(r) for r in done.results["taskTitles"]] == ["success", "success"]
    created = done.response.created_task_list
    assert created.title.spoken_phrase == "Party"
    assert [t.title.spoken_phrase for t in created.tasks] == ["Balloons", "Cake"]
    assert all(t.status == notes.TASK_STATUS_NOT_COMPLETED for t in created.tasks)
    found = search(ext, fresh_user, item_type=notes.NOTEBOOK_ITEM_TYPE_TASK_LIST, title=spoken("Party"))
    assert [(l.identifier, [t.title.spoken_phrase for t in l.tasks]) for l in found.task_lists] == [
        (created.identifier, ["Balloons", "Cake"])]


def test_add_tasks_as_a_reminder_is_found_by_due_date(ext, direct, fresh_user):
    tomorrow = datetime.date.today() + datetime.timedelta(days=1)
    add = notes.AddTasksIntent(
        task_titles=[spoken("Leave work")],
        temporal_event_trigger=notes.TemporalEventTrigger(date_components_range=types.DateComponentsRange(
            start_date_components=day_components(tomorrow, hour=17))))
    done = s.sirikit_round(ext, s.context(user=fresh_user), s.intent("INAddTasksIntent", add, APP),
                           notes.AddTasksIntentResponse, needs_user_confirmation=False)
    # A reminder needs no list: it goes to Reminders, made without asking.
    assert done.results["targetTaskList"][0].success.value.display_text == "Reminders"
    assert done.response.modified_task_list.title.spoken_phrase == "Reminders"
    assert [t.title.spoken_phrase for t in done.response.added_tasks] == ["Leave work"]
    found = search(direct, fresh_user, date_search_type=notes.DATE_SEARCH_TYPE_BY_DUE_DATE,
                   date_time=types.DateComponentsRange(start_date_components=day_components(tomorrow),
                                                       end_date_components=day_components(tomorrow)))
    assert [t.title.spoken_phrase for t in found.tasks] == ["Leave work"]


def test_add_tasks_to_a_missing_list_asks_to_create_it(ext, fresh_user):
    add = notes.AddTasksIntent(target_task_list=notes.TaskList(title=spoken("Groceries")),
                               task_titles=[spoken("Hay"), spoken("Oats")])
    the_intent = s.intent("INAddTasksIntent", add, APP)
    resolved = s.resolve(ext, s.context(user=fresh_user), the_intent)
    assert not resolved.complete
    result = s.results(resolved)["targetTaskList"][0]
    assert s.kind(result) == "confirmation_required"
    assert result.confirmation_required.reason.name == "listShouldBeCreated"
    assert "Groceries" in result.confirmation_required.prompt
    # The user says yes: confirm and handle make the list.
    assert s.confirm(ext, s.context(user=fresh_user), resolved.resolved_intent).response.code_name == "ready"
    added = s.handled_response(ext, s.context(user=fresh_user), resolved.resolved_intent, notes.AddTasksIntentResponse)
    assert added.modified_task_list.title.spoken_phrase == "Groceries"
    assert [t.title.spoken_phrase for t in added.modified_task_list.tasks] == ["Hay", "Oats"]
    again = s.resolve(ext, s.context(user=fresh_user), s.intent("INAddTasksIntent", add, APP))
    assert s.kind(s.results(again)["targetTaskList"][0]) == "success"


def test_set_task_attribute_completes_a_task(ext, direct, fresh_user):
    made = notes.CreateTaskListIntent(title=spoken("Chores"), task_titles=[spoken("Walk the unicorn")])
    s.handled_response(direct, s.context(user=fresh_user), s.intent("INCreateTaskListIntent", made),
                       notes.CreateTaskListIntentResponse)
    change = notes.SetTaskAttributeIntent(target_task=notes.Task(title=spoken("Walk the unicorn")),
                                          status=notes.TASK_STATUS_COMPLETED)
    done = s.sirikit_round(ext, s.context(user=fresh_user), s.intent("INSetTaskAttributeIntent", change, APP),
                           notes.SetTaskAttributeIntentResponse, needs_user_confirmation=False)
    assert s.kind(done.results["targetTask"][0]) == "success"
    assert done.response.modified_task.status == notes.TASK_STATUS_COMPLETED
    found = search(ext, fresh_user, status=notes.TASK_STATUS_COMPLETED)
    assert [t.title.spoken_phrase for t in found.tasks] == ["Walk the unicorn"]
    assert search(direct, fresh_user, status=notes.TASK_STATUS_NOT_COMPLETED).tasks == []


def test_search_for_notebook_items_in_the_seeded_notebook(ext):
    query = notes.SearchForNotebookItemsIntent(title=spoken("Groceries"))
    done = s.sirikit_round(ext, s.context(), s.intent("INSearchForNotebookItemsIntent", query, APP),
                           notes.SearchForNotebookItemsIntentResponse, needs_user_confirmation=False)
    groceries = [l for l in done.response.task_lists if l.title.spoken_phrase == "Groceries"]
    assert len(groceries) == 1
    assert [(t.title.spoken_phrase, t.status) for t in groceries[0].tasks] == [
        ("Apples", notes.TASK_STATUS_COMPLETED), ("Carrots", notes.TASK_STATUS_NOT_COMPLETED)]
    # A password-protected note's contents are not searched.
    hidden = search(ext, "diana", content="Gate")
    assert "Secret stable codes" not in [n.title.spoken_phrase for n in hidden.notes]
    ideas = search(ext, "diana", content="hoverboard")
    assert [(n.title.spoken_phrase, n.group_name.spoken_phrase) for n in ideas.notes] == [("Unicorn ideas", "Rainbow")]


def test_reminders_stream_sends_a_reminder_as_it_comes_due(ext, fresh_user):
    user_context = s.context(user=fresh_user, time_zone="UTC")
    due = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) + datetime.timedelta(seconds=3)
    add = notes.AddTasksIntent(
        task_titles=[spoken("Feed the unicorn")],
        temporal_event_trigger=notes.TemporalEventTrigger(date_components_range=types.DateComponentsRange(
            start_date_components=day_components(due, hour=due.hour, minute=due.minute, second=due.second))))
    s.handled_response(ext, user_context, s.intent("INAddTasksIntent", add, APP), notes.AddTasksIntentResponse)
    follow = notes.SearchForNotebookItemsIntent(date_search_type=notes.DATE_SEARCH_TYPE_BY_DUE_DATE)
    updates = ext.StartSendingUpdates(
        ext_pb2.StartSendingUpdatesRequest(context=user_context,
                                           intent=s.intent("INSearchForNotebookItemsIntent", follow, APP)),
        timeout=20)
    received = []
    started = time.monotonic()
    try:
        for update in updates:
            assert update.response.code_name == "success"
            answer = s.unpack(update.response.payload, notes.SearchForNotebookItemsIntentResponse)
            received.append([t.title.spoken_phrase for t in answer.tasks])
            if answer.tasks:
                break
    finally:
        updates.cancel()
    # First what is already due (nothing), then the reminder when it comes due.
    assert received[0] == []
    assert received[-1] == ["Feed the unicorn"]
    assert time.monotonic() - started < 15
