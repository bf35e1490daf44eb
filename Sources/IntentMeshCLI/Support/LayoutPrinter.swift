import Foundation
import SwiftProtobuf
import IntentMeshProtos

/// Layouts and results as terminal text.
enum LayoutPrinter {
  static func text(_ layout: Intentmesh_Gateway_V1_InteractionLayout, declaration: Intentmesh_V1_IntentDeclaration?)
    -> String
  {
    var lines: [String] = []
    for section in layout.sections {
      switch section.kind {
      case .app:
        lines.append(
          "┌─ \(layout.appName) (\(section.view.kind), \(Int(section.size.width))×\(Int(section.size.height)))")
        lines += render(section.view.root).map { "│ " + $0 }
        lines.append("└─")
      default:
        for value in section.displayValues {
          let label = declaration?.parameters.first { $0.keyPath == value.parameter.keyPath }?.label ?? ""
          let name = label.isEmpty ? value.parameter.keyPath : label
          lines.append("  \(name): \(value.displayText.isEmpty ? "—" : value.displayText)")
        }
      }
    }
    return lines.joined(separator: "\n")
  }

  static func render(_ node: Intentmesh_V1_ViewNode) -> [String] {
    switch node.node {
    case .stack(let stack): return stack.children.flatMap(render)
    case .text(let text):
      let marker = node.role.hasPrefix("bubble") ? "💬 " : (node.role == "caption" ? "   " : "")
      return ["\(marker)\(text.text)"]
    case .row(let row): return ["\(row.label): \(row.value)"]
    case .image(let image): return ["[image \(image.image.contentType), \(image.image.data.count) bytes]"]
    case .map(let map):
      let pins = map.annotations.map { pin in
        pin.name.isEmpty
          ? "\(pin.location.latitude), \(pin.location.longitude)"
          : pin.name
            + (pin.name == "Your ride" ? " at \(pin.location.latitude), \(pin.location.longitude)" : "")
      }
      return [
        "[map around \(map.center.latitude), \(map.center.longitude)\(pins.isEmpty ? "" : ": ")\(pins.joined(separator: " · "))]"
      ]
    case .none: return []
    }
  }
}
