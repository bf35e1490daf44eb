import SwiftProtobuf
import Foundation
import IntentMeshProtos
import ProtoJSON

/// What the intent commands share: the request context and how a turn reads on a terminal.
enum Conversation {
  static func context(_ options: IntentOptions) -> Intentmesh_V1_RequestContext {
    context(options.connection)
  }

  static func context(_ connection: ConnectionOptions) -> Intentmesh_V1_RequestContext {
    .with {
      $0.timeZone = connection.timeZone
      $0.locale = connection.locale
      $0.deviceLocked = connection.locked
    }
  }

  /// The first turn's request: the intent with the --param values the user gave.
  static func firstRequest(
    _ options: IntentOptions, route: Intentmesh_Gateway_V1_Route, codec: ProtoJSONCodec
  ) throws -> Intentmesh_Gateway_V1_InteractRequest {
    var editor = try PayloadEditor(payloadType: route.payloadType, payload: nil, codec: codec)
    for (key, value) in try options.pairs() {
      try editor.set(key, text: value, declaration: route.declaration.parameters.first { $0.keyPath == key })
    }
    var request = Intentmesh_Gateway_V1_InteractRequest.with {
      $0.context = context(options)
      $0.intent = .with {
        $0.intentClass = options.intentClass
        $0.appName = options.app
      }
      $0.display = display
    }
    request.intent.payload = try editor.packed()
    return request
  }

  static let display = Intentmesh_Gateway_V1_Display.with {
    $0.hostedViewContext = .siriSnippet
    $0.maximumSize = .with {
      $0.width = 375; $0.height = 640
    }
  }

  static func describe(_ turn: Intentmesh_Gateway_V1_InteractResponse, declaration: Intentmesh_V1_IntentDeclaration)
    -> String
  {
    var lines: [String] = []
    switch turn.stage {
    case .needsParameter: lines.append("\(turn.appName): \(turn.prompt)")
    case .needsConfirmation: lines.append("\(turn.appName): \(turn.prompt)")
    case .done: lines.append("\(turn.appName): done (\(turn.response.codeName))")
    case .failed:
      lines.append("\(turn.appName): failed (\(turn.response.codeName))")
      for (key, value) in turn.response.userActivity.userInfo.sorted(by: { $0.key < $1.key }) {
        lines.append("  \(key): \(value)")
      }
    default: break
    }
    if turn.hasLayout, !turn.layout.sections.isEmpty {
      lines.append(LayoutPrinter.text(turn.layout, declaration: declaration))
    }
    return lines.joined(separator: "\n")
  }
}
