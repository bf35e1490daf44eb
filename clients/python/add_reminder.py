#!/usr/bin/env python3
"""Adds a UnicornNote reminder ("remind me to leave work at 5 p.m. tomorrow") and finds it again
by its due date.

    clients/python/generate.sh
    export INTENTMESH_TOKEN=$(intentmesh token --user diana)     # or pass --token
    python3 clients/python/add_reminder.py --target 127.0.0.1:50064 --task "Leave work" --hour 17
"""
import argparse
import datetime
import sys

import intentmesh_client as client
from intentmesh.notebook.v1 import notebook_pb2
from intentmesh.v1 import types_pb2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", default="127.0.0.1:50064")
    client.add_token_argument(parser)
    parser.add_argument("--task", required=True)
    parser.add_argument("--hour", type=int, default=17, help="tomorrow at this hour, Europe/Zurich")
    args = parser.parse_args()
    tomorrow = datetime.date.today() + datetime.timedelta(days=1)
    day = types_pb2.DateComponents(year=tomorrow.year, month=tomorrow.month, day=tomorrow.day)
    at = types_pb2.DateComponents(year=tomorrow.year, month=tomorrow.month, day=tomorrow.day, hour=args.hour)
    extension = client.stub(args.target, args.token)
    context = client.context()
    add = notebook_pb2.AddTasksIntent(
        task_titles=[types_pb2.SpeakableString(spoken_phrase=args.task)],
        temporal_event_trigger=notebook_pb2.TemporalEventTrigger(
            date_components_range=types_pb2.DateComponentsRange(start_date_components=at)))
    status, added = client.run(
        extension, context, client.intent("INAddTasksIntent", add, "UnicornNote"), notebook_pb2.AddTasksIntentResponse)
    if added is None:
        return status
    print(f"added to {added.modified_task_list.title.spoken_phrase}: "
          + ", ".join(task.title.spoken_phrase for task in added.added_tasks))
    search = notebook_pb2.SearchForNotebookItemsIntent(
        date_search_type=notebook_pb2.DATE_SEARCH_TYPE_BY_DUE_DATE,
        date_time=types_pb2.DateComponentsRange(start_date_components=day, end_date_components=day))
    status, found = client.run(
        extension, context, client.intent("INSearchForNotebookItemsIntent", search, "UnicornNote"),
        notebook_pb2.SearchForNotebookItemsIntentResponse)
    if found is None:
        return status
    titles = [task.title.spoken_phrase for task in found.tasks]
    print(f"due {tomorrow}: {', '.join(titles) or 'nothing'}")
    return 0 if args.task in titles else 5


if __name__ == "__main__":
    sys.exit(main())
