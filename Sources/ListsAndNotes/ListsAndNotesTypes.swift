internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import IntentsKit
internal import ListsAndNotesProtos

/// Short names for the generated lists-and-notes contract.
typealias CreateNoteIntent = Intentmesh_Notebook_V1_CreateNoteIntent
typealias CreateNoteIntentResponse = Intentmesh_Notebook_V1_CreateNoteIntentResponse
typealias AppendToNoteIntent = Intentmesh_Notebook_V1_AppendToNoteIntent
typealias AppendToNoteIntentResponse = Intentmesh_Notebook_V1_AppendToNoteIntentResponse
typealias CreateTaskListIntent = Intentmesh_Notebook_V1_CreateTaskListIntent
typealias CreateTaskListIntentResponse = Intentmesh_Notebook_V1_CreateTaskListIntentResponse
typealias AddTasksIntent = Intentmesh_Notebook_V1_AddTasksIntent
typealias AddTasksIntentResponse = Intentmesh_Notebook_V1_AddTasksIntentResponse
typealias SetTaskAttributeIntent = Intentmesh_Notebook_V1_SetTaskAttributeIntent
typealias SetTaskAttributeIntentResponse = Intentmesh_Notebook_V1_SetTaskAttributeIntentResponse
typealias SearchForNotebookItemsIntent = Intentmesh_Notebook_V1_SearchForNotebookItemsIntent
typealias SearchForNotebookItemsIntentResponse = Intentmesh_Notebook_V1_SearchForNotebookItemsIntentResponse
typealias Note = Intentmesh_Notebook_V1_Note
typealias NoteContent = Intentmesh_Notebook_V1_NoteContent
typealias TaskList = Intentmesh_Notebook_V1_TaskList
/// INTask (named so it does not shadow Swift's `Task`).
typealias NotebookTask = Intentmesh_Notebook_V1_Task
typealias TaskStatus = Intentmesh_Notebook_V1_TaskStatus
typealias NotebookItemType = Intentmesh_Notebook_V1_NotebookItemType
typealias DateSearchType = Intentmesh_Notebook_V1_DateSearchType
typealias LocationSearchType = Intentmesh_Notebook_V1_LocationSearchType
typealias SortType = Intentmesh_Notebook_V1_SortType
typealias SpatialEventTrigger = Intentmesh_Notebook_V1_SpatialEventTrigger
typealias TemporalEventTrigger = Intentmesh_Notebook_V1_TemporalEventTrigger
typealias TaskListConfirmationReason = Intentmesh_Notebook_V1_AddTasksTargetTaskListConfirmationReason
typealias TemporalUnsupportedReason = Intentmesh_Notebook_V1_TemporalEventTriggerUnsupportedReason
typealias SpeakableString = Intentmesh_V1_SpeakableString
typealias Placemark = Intentmesh_V1_Placemark
typealias DateComponentsRange = Intentmesh_V1_DateComponentsRange

extension TaskStatus: ParameterValue {}
extension NotebookItemType: ParameterValue {}
extension DateSearchType: ParameterValue {}
extension LocationSearchType: ParameterValue {}

extension NoteContent: ParameterValue {
  var displayText: String {
    switch content {
    case .text(let text): text
    case .image(let image): "[image \(image.contentType)]"
    case .none: ""
    }
  }
}

extension Note: ParameterValue {
  var displayText: String { title.spokenPhrase }
}

extension TaskList: ParameterValue {
  var displayText: String { title.spokenPhrase }
}

extension NotebookTask: ParameterValue {
  var displayText: String { title.spokenPhrase }
}

extension SpatialEventTrigger: ParameterValue {
  var displayText: String {
    let place = placemark.displayText
    switch event {
    case .arrive: return "when I arrive at \(place)"
    case .depart: return "when I leave \(place)"
    default: return place
    }
  }
}

extension TemporalEventTrigger: ParameterValue {
  var displayText: String { DisplayText.dateRange(dateComponentsRange) }
}

extension SpeakableString {
  /// A speakable string of `text`.
  static func spoken(_ text: String, identifier: String = "") -> SpeakableString {
    .with {
      $0.spokenPhrase = text
      $0.vocabularyIdentifier = identifier
    }
  }
}
