internal import Foundation
internal import SwiftProtobuf
internal import ListsAndNotesProtos
internal import IntentMeshProtos
internal import IntentsKit

/// The cards UnicornNote draws: a note card, a task-list card (each a draft before handle, the
/// stored item after) and a list of search results.
enum NotebookCards {
  static func claim(_ intentClass: String, _ keyPaths: [String]) -> [Intentmesh_V1_Parameter] {
    Intentmesh_V1_Parameter.claims(of: intentClass, keyPaths)
  }

  static func note(
    title: String, folder: String, contents: [NoteContent], isDraft: Bool,
    claiming parameters: [Intentmesh_V1_Parameter],
    width: Double
  ) -> ViewConfiguration {
    var rows: [Intentmesh_V1_ViewNode] = [.text(title, role: "title", parameter: "title")]
    if !folder.isEmpty { rows.append(.text(folder, role: "folder", parameter: "groupName")) }
    for content in contents {
      switch content.content {
      case .text(let text): rows.append(.text(text, role: "body", parameter: "content"))
      case .image(let image):
        rows.append(
          .with {
            $0.image = .with { $0.image = image }
            $0.role = "body"
            $0.parameterKeyPath = "content"
          })
      case .none: break
      }
    }
    rows.append(.text(isDraft ? "Draft" : "Saved", role: "caption"))
    return .drawn(
      parameters,
      view: .with {
        $0.kind = "note-card"
        $0.root = .stack(.vertical, rows)
      }, width: width > 0 ? width : 320, height: Double(28 * rows.count + 16))
  }

  static func taskList(
    title: String, tasks: [(title: String, done: Bool)], isDraft: Bool, claiming parameters: [Intentmesh_V1_Parameter],
    width: Double
  ) -> ViewConfiguration {
    var rows: [Intentmesh_V1_ViewNode] = [.text(title, role: "title")]
    rows += tasks.map { task in .text("\(task.done ? "☑" : "☐") \(task.title)", role: "task") }
    rows.append(.text(isDraft ? "Draft" : "Saved", role: "caption"))
    return .drawn(
      parameters,
      view: .with {
        $0.kind = "task-list-card"
        $0.root = .stack(.vertical, rows)
      }, width: width > 0 ? width : 320, height: Double(26 * rows.count + 16))
  }
}
