internal import GRPCCore
internal import ServiceKit

/// A call that ends in error, as Connect writes it: `{"code": "not_found", "message": "…",
/// "details": [{"type": "google.rpc.ErrorInfo", "value": "<base64>", "debug": {…}}]}` — the
/// details from the `grpc-status-details-bin` trailer (a google.rpc.Status), read with the
/// gateway's descriptors.
struct ConnectFailure: Error, Equatable {
  let code: RPCError.Code
  let message: String
  /// The serialized google.rpc.Status the upstream sent, if any.
  var statusDetails: [UInt8]?

  init(code: RPCError.Code, message: String, statusDetails: [UInt8]? = nil) {
    self.code = code
    self.message = message
    self.statusDetails = statusDetails
  }

  /// From the error a gRPC call ended with.
  init(_ error: RPCError) {
    var details: [UInt8]?
    for value in error.metadata[binaryValues: "grpc-status-details-bin"] { details = value }
    self.init(code: error.code, message: error.message, statusDetails: details)
  }

  /// The error object, with the status details `codec` can read.
  func json(codec: ProtoJSONCodec?) -> JSONValue {
    var members: [(String, JSONValue)] = [("code", .string(ConnectCode.name(code)))]
    if !message.isEmpty { members.append(("message", .string(message))) }
    if let statusDetails, let codec, let status = try? codec.decode(statusDetails, as: "google.rpc.Status"),
      case .array(let details)? = status["details"], !details.isEmpty
    {
      members.append(("details", .array(details.compactMap { Self.detail($0, codec: codec) })))
    }
    return .object(members)
  }

  /// One detail as Connect writes it, from the proto3 JSON of its Any.
  private static func detail(_ any: JSONValue, codec: ProtoJSONCodec) -> JSONValue? {
    guard let members = any.members, let url = any["@type"]?.stringValue else { return nil }
    let type = String(url.split(separator: "/").last ?? "")
    let debug = JSONValue.object(members.filter { $0.0 != "@type" })
    guard let value = try? codec.encode(debug, as: type) else { return nil }
    let base64 = String(ProtoJSONCodec.base64(value).prefix { $0 != "=" })
    return .object([("type", .string(type)), ("value", .string(base64)), ("debug", debug)])
  }

  /// The whole answer to a request of `kind` (nil: not a known content type) that fails before
  /// anything was sent: Connect unary's status and error object, or a stream's HTTP 200 with the
  /// error in its last envelope (Connect's end of stream, gRPC-Web's trailers).
  func answer(kind: ConnectRequestKind?, codec: ProtoJSONCodec?) -> (status: Int, contentType: String, body: [UInt8]) {
    switch kind {
    case .stream?:
      let end = JSONValue.object([("error", json(codec: codec)), ("metadata", .object([]))])
      return (
        200, kind!.responseContentType,
        ConnectEnvelope(flags: ConnectEnvelope.endOfStream, payload: Array(end.text.utf8)).bytes
      )
    case .grpcWeb?:
      return (
        200, kind!.responseContentType,
        ConnectMetadata.grpcWebTrailers(code: code.rawValue, message: message, trailers: Metadata())
      )
    case .unary?, nil:
      return (ConnectCode.httpStatus(code), "application/json", Array(json(codec: codec).text.utf8))
    }
  }
}
