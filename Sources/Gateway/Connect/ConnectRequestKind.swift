internal import IntentMeshCore

/// How a request that is not plain gRPC wants to be answered, from its method and content type:
/// the Connect protocol's unary or streaming form, or gRPC-Web, each with JSON or binary messages.
enum ConnectRequestKind: Equatable {
  enum Codec: Equatable {
    case json
    case proto
  }

  /// `POST` with `application/json` or `application/proto`: one bare message each way.
  case unary(Codec)
  /// `application/connect+json` / `+proto`: enveloped messages, an end-of-stream envelope last.
  case stream(Codec)
  /// `application/grpc-web`, `+proto` or `+json`: gRPC frames, trailers in a final frame.
  /// `text`: `application/grpc-web-text` (what the grpc-web npm client sends by default), the
  /// same frames base64-encoded both ways.
  case grpcWeb(Codec, text: Bool = false)

  var codec: Codec {
    switch self {
    case .unary(let codec), .stream(let codec), .grpcWeb(let codec, _): codec
    }
  }

  /// Whether bodies are base64 text (`application/grpc-web-text`).
  var isText: Bool {
    if case .grpcWeb(_, text: true) = self { return true }
    return false
  }

  /// The protocol's name, as traces and logs say it.
  var protocolName: String {
    switch self {
    case .unary, .stream: "connect"
    case .grpcWeb(_, false): "grpc-web"
    case .grpcWeb(_, true): "grpc-web-text"
    }
  }

  /// OpenTelemetry's `rpc.system` of a call made so: gRPC-Web is gRPC's semantics.
  var rpcSystem: String {
    if case .grpcWeb = self { return "grpc" }
    return "connect_rpc"
  }

  /// The content type of the answer.
  var responseContentType: String {
    switch self {
    case .unary(.json): "application/json"
    case .unary(.proto): "application/proto"
    case .stream(.json): "application/connect+json"
    case .stream(.proto): "application/connect+proto"
    case .grpcWeb(.json, _): "application/grpc-web+json"
    case .grpcWeb(.proto, false): "application/grpc-web+proto"
    case .grpcWeb(.proto, true): "application/grpc-web-text+proto"
    }
  }

  /// The kind of a request with `contentType` (parameters such as `; charset=utf-8` ignored), or
  /// nil when it is none of these.
  init?(contentType: String) {
    let type = contentType.split(separator: ";").first.map { String($0).trimmingWhitespace().lowercased() } ?? ""
    switch type {
    case "application/json": self = .unary(.json)
    case "application/proto": self = .unary(.proto)
    case "application/connect+json": self = .stream(.json)
    case "application/connect+proto": self = .stream(.proto)
    case "application/grpc-web", "application/grpc-web+proto": self = .grpcWeb(.proto)
    case "application/grpc-web+json": self = .grpcWeb(.json)
    case "application/grpc-web-text", "application/grpc-web-text+proto": self = .grpcWeb(.proto, text: true)
    default: return nil
    }
  }

  /// The content types it accepts, for a 415's `Accept-Post`.
  static let accepted =
    "application/json, application/proto, application/connect+json, application/connect+proto, "
    + "application/grpc-web+proto, application/grpc-web+json, application/grpc-web-text"
}
