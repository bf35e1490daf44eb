internal import Foundation
internal import Logging
internal import SwiftProtobuf
package import IntentMeshProtos
internal import IntentsKit
package import ListsAndNotesProtos

/// Short names for the generated lists-and-notes contract.
package typealias CreateNoteIntent = Intentmesh_Notebook_V1_CreateNoteIntent
package typealias CreateNoteIntentResponse = Intentmesh_Notebook_V1_CreateNoteIntentResponse
package typealias AppendToNoteIntent = Intentmesh_Notebook_V1_AppendToNoteIntent
package typealias AppendToNoteIntentResponse = Intentmesh_Notebook_V1_AppendToNoteIntentResponse
package typealias CreateTaskListIntent = Intentmesh_Notebook_V1_CreateTaskListIntent
package typealias CreateTaskListIntentResponse = Intentmesh_Notebook_V1_CreateTaskListIntentResponse
package typealias AddTasksIntent = Intentmesh_Notebook_V1_AddTasksIntent
package typealias AddTasksIntentResponse = Intentmesh_Notebook_V1_AddTasksIntentResponse
package typealias SetTaskAttributeIntent = Intentmesh_Notebook_V1_SetTaskAttributeIntent
package typealias SetTaskAttributeIntentResponse = Intentmesh_Notebook_V1_SetTaskAttributeIntentResponse
package typealias SearchForNotebookItemsIntent = Intentmesh_Notebook_V1_SearchForNotebookItemsIntent
package typealias SearchForNotebookItemsIntentResponse = Intentmesh_Notebook_V1_SearchForNotebookItemsIntentResponse
package typealias Note = Intentmesh_Notebook_V1_Note
package typealias NoteContent = Intentmesh_Notebook_V1_NoteContent
package typealias TaskList = Intentmesh_Notebook_V1_TaskList
/// INTask (named so it does not shadow Swift's `Task`).
package typealias NotebookTask = Intentmesh_Notebook_V1_Task
package typealias TaskStatus = Intentmesh_Notebook_V1_TaskStatus
package typealias NotebookItemType = Intentmesh_Notebook_V1_NotebookItemType
package typealias DateSearchType = Intentmesh_Notebook_V1_DateSearchType
package typealias LocationSearchType = Intentmesh_Notebook_V1_LocationSearchType
package typealias SortType = Intentmesh_Notebook_V1_SortType
package typealias SpatialEventTrigger = Intentmesh_Notebook_V1_SpatialEventTrigger
package typealias TemporalEventTrigger = Intentmesh_Notebook_V1_TemporalEventTrigger
package typealias TaskListConfirmationReason = Intentmesh_Notebook_V1_AddTasksTargetTaskListConfirmationReason
package typealias TemporalUnsupportedReason = Intentmesh_Notebook_V1_TemporalEventTriggerUnsupportedReason
package typealias SpeakableString = Intentmesh_V1_SpeakableString
package typealias Placemark = Intentmesh_V1_Placemark
package typealias DateComponentsRange = Intentmesh_V1_DateComponentsRange

extension TaskStatus: ParameterValue {}
extension NotebookItemType: ParameterValue {}
extension DateSearchType: ParameterValue {}
extension LocationSearchType: ParameterValue {}

extension NoteContent: ParameterValue {
  package var displayText: String {
    switch content {
    case .text(let text): text
    case .image(let image): "[image \(image.contentType)]"
    case .none: ""
    }
  }
}

extension Note: ParameterValue {
  package var displayText: String { title.spokenPhrase }
}

extension TaskList: ParameterValue {
  package var displayText: String { title.spokenPhrase }
}

extension NotebookTask: ParameterValue {
  package var displayText: String { title.spokenPhrase }
}

extension SpatialEventTrigger: ParameterValue {
  package var displayText: String {
    let place = placemark.displayText
    switch event {
    case .arrive: return "when I arrive at \(place)"
    case .depart: return "when I leave \(place)"
    default: return place
    }
  }
}

extension TemporalEventTrigger: ParameterValue {
  package var displayText: String { DisplayText.dateRange(dateComponentsRange) }
}

extension SpeakableString {
  /// A speakable string of `text`.
  package static func spoken(_ text: String, identifier: String = "") -> SpeakableString {
    .with {
      $0.spokenPhrase = text
      $0.vocabularyIdentifier = identifier
    }
  }
}
