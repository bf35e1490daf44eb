internal import GRPCCore
internal import ProtoJSON
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

  /// The error object. Each status detail keeps its bytes; its `debug` JSON is there when the
  /// gateway's descriptors know the type.
  func json(codec: ProtoJSONCodec?) -> JSONValue {
    var members: [(String, JSONValue)] = [("code", .string(ConnectCode.name(code)))]
    if !message.isEmpty { members.append(("message", .string(message))) }
    let details = statusDetails.map(ProtoJSONCodec.statusDetails) ?? []
    if !details.isEmpty {
      members.append(
        (
          "details",
          .array(
            details.map { detail in
              let type = String(detail.typeURL.split(separator: "/").last ?? "")
              var fields: [(String, JSONValue)] = [
                ("type", .string(type)),
                ("value", .string(String(ProtoJSONCodec.base64(detail.value).prefix { $0 != "=" }))),
              ]
              if let debug = try? codec?.decode(detail.value, as: type) { fields.append(("debug", debug)) }
              return .object(fields)
            })
        ))
    }
    return .object(members)
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
        ConnectEnvelope(flags: ConnectEnvelope.endOfStream, payload: end.utf8).bytes
      )
    case .grpcWeb?:
      let frame = ConnectMetadata.grpcWebTrailers(
        code: code.rawValue, message: message, trailers: Metadata(), details: statusDetails)
      return (200, kind!.responseContentType, kind!.isText ? GRPCWebText.encoded(frame) : frame)
    case .unary?, nil:
      return (ConnectCode.httpStatus(code), "application/json", json(codec: codec).utf8)
    }
  }
}
