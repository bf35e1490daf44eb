internal import Foundation
internal import Logging
internal import IntentMeshProtos
package import IntentsKit

/// UnicornNote, the lists-and-notes domain of session 214: notes, task lists, reminders with
/// spatial and temporal triggers, search, and reminders coming due on the domain's clock.
package enum UnicornNote {
  /// The service's default port.
  package static let defaultPort = 50064

  package static func definition(
    clock: any DomainClock = SystemClock(), identifiers: any IdentifierGenerator = UUIDIdentifierGenerator()
  ) -> DomainDefinition {
    DomainDefinition(
      serviceName: "notes-service",
      vocabularyTypes: [.notebookItemTitle, .notebookItemGroupName],
      migrations: NotesSchema.migrations,
      seed: NotesSeed.seed,
      appServiceNames: ["intentmesh.notebook.v1.UnicornNoteApp"],
      appServices: { resources in [UnicornNoteAppService(store: resources.store, clock: clock)] }
    ) { resources in
      let store = resources.store
      return IntentRegistry([
        .handler(CreateNoteHandler.self, view: AnyIntentViewController(CreateNoteViewController())) {
          CreateNoteHandler(store: store, identifiers: identifiers)
        },
        .handler(AppendToNoteHandler.self, view: AnyIntentViewController(AppendToNoteViewController())) {
          AppendToNoteHandler(store: store)
        },
        .handler(CreateTaskListHandler.self, view: AnyIntentViewController(CreateTaskListViewController())) {
          CreateTaskListHandler(store: store, identifiers: identifiers)
        },
        .handler(AddTasksHandler.self, view: AnyIntentViewController(AddTasksViewController())) {
          AddTasksHandler(store: store, identifiers: identifiers)
        },
        .handler(SetTaskAttributeHandler.self) { SetTaskAttributeHandler(store: store) },
        .liveHandler(
          SearchForNotebookItemsHandler.self, view: AnyIntentViewController(SearchResultsViewController())
        ) { SearchForNotebookItemsHandler(store: store, clock: clock) },
      ])
    }
  }
}
