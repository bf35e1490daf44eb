internal import GRPCCore
internal import NIOCore
internal import NIOHPACK
internal import ProtoJSON
internal import ServiceKit

/// The gRPC answer as the web protocol writes it.
extension WebCallTranslation {
  /// The upstream sent HEADERS: its response headers, or (`endStream`) its trailers.
  mutating func responseHeaders(_ headers: HPACKHeaders, endStream: Bool) -> Output {
    switch response {
    case .waiting:
      if let status = headers.first(name: ":status"), status != "200" {
        // Not a gRPC answer: the status gRPC clients read from an HTTP status.
        let mapped = Status(httpStatusCode: Int(status) ?? 500)
        return Output(pieces: fail(status: mapped.code.rawValue, message: "the upstream answered \(mapped.message)"))
      }
      guard !endStream else {
        // Trailers-only: the status, and metadata as trailers.
        return Output(pieces: ended(trailers: headers))
      }
      if case .unary = kind {
        response = .unary(headers: headers, body: nil)
        return Output()
      }
      response = .streaming(pending: nil, owed: 0)
      return Output(pieces: [
        Piece(item: .headers(head(status: 200, metadata: headers), endStream: false), sourceBytes: 0)
      ])
    case .unary, .streaming:
      guard endStream else { return Output() }  // HEADERS amid the answer: nothing a web client reads
      return Output(pieces: ended(trailers: headers))
    case .ended:
      return Output()
    case .modifying:
      preconditionFailure("WebCallTranslation: an event found the answer being modified")
    }
  }

  /// The upstream sent `data` (`endStream`: it ended without trailers, which no gRPC server does).
  mutating func responseData(_ data: ByteBuffer, endStream: Bool) -> Output {
    let bytes = data.readableBytes
    var output: Output
    switch response {
    case .waiting:
      output = Output(pieces: fail(.internalError, message: "the upstream sent a message before its headers"))
      output.absorbed = bytes
      return output
    case .unary(let headers, var body):
      // Held whole until the status says what the answer is; the upstream gets its window back now.
      response = .modifying
      var data = data
      if body == nil { body = data.compacted() } else { body!.writeBuffer(&data) }
      response = .unary(headers: headers, body: body)
      output = Output(absorbed: bytes)
      if body!.readableBytes > Self.maxHeldAnswerBytes {
        output.pieces = fail(.resourceExhausted, message: answerTooLarge)
      }
    case .streaming(var pending, var owed):
      response = .modifying
      guard kind.codec == .json else {
        // Binary frames are the client's as they are (base64 for text).
        response = .streaming(pending: nil, owed: 0)
        let item = Outgoing.data(
          kind.isText ? ByteBuffer(bytes: GRPCWebText.encoded(data.readableBytesView)) : data, endStream: false)
        output = Output(pieces: [Piece(item: item, sourceBytes: bytes)])
        break
      }
      var data = data
      if pending == nil { pending = data.compacted() } else { pending!.writeBuffer(&data) }
      owed += bytes
      output = Output()
      do {
        output.pieces = try transcodeWhole(&pending!, owed: &owed)
      } catch {
        response = .streaming(pending: nil, owed: 0)
        output.absorbed = owed
        output.pieces += fail(.internalError, message: "the answer could not be written as JSON: \(error)")
        break
      }
      if pending!.readableBytes > Self.maxHeldAnswerBytes {
        response = .streaming(pending: nil, owed: 0)
        output.absorbed = owed
        output.pieces += fail(.resourceExhausted, message: answerTooLarge)
        break
      }
      if owed > RelaySettings.initialWindowSize / 2 {
        // A message larger than the window would never come whole: held here, granted back now.
        output.absorbed = owed
        owed = 0
      }
      response = .streaming(pending: pending!.readableBytes > 0 ? pending : nil, owed: owed)
    case .ended:
      return Output(absorbed: bytes)
    case .modifying:
      preconditionFailure("WebCallTranslation: an event found the answer being modified")
    }
    if endStream, !isEnded {
      output.pieces += fail(.internalError, message: "the upstream ended its answer without a status")
    }
    return output
  }

  /// Whether the client's answer is complete.
  var isEnded: Bool {
    if case .ended = response { return true }
    return false
  }

  private var answerTooLarge: String {
    "the answer is larger than the gateway holds for a web client (\(Self.maxHeldAnswerBytes) bytes)"
  }

  /// The JSON envelopes of the whole messages at the front of `pending`, which are taken from it;
  /// each says how many of the `owed` bytes (the last of `pending`) it was made from.
  private func transcodeWhole(_ pending: inout ByteBuffer, owed: inout Int) throws -> [Piece] {
    var pieces: [Piece] = []
    while pending.readableBytes >= 5, let length = pending.getInteger(at: pending.readerIndex + 1, as: UInt32.self),
      pending.readableBytes >= 5 + Int(length)
    {
      let flags = pending.getInteger(at: pending.readerIndex, as: UInt8.self)!
      guard flags & ConnectEnvelope.compressed == 0 else {
        throw ConnectFailure(code: .internalError, message: "a compressed message")
      }
      let size = 5 + Int(length)
      let unowed = pending.readableBytes - owed
      let source = max(0, size - unowed)
      owed -= source
      pending.moveReaderIndex(forwardBy: 5)
      let message = pending.readBytes(length: Int(length))!
      let json = try codec.decode(message, as: request.method.outputType).utf8
      let envelope = ConnectEnvelope(flags: 0, payload: json).bytes
      pieces.append(Piece(item: .data(ByteBuffer(bytes: envelope), endStream: false), sourceBytes: source))
    }
    pending.discardReadBytes()
    return pieces
  }

  // MARK: The end

  /// The upstream's trailers: the answer ends with their status.
  private mutating func ended(trailers: HPACKHeaders) -> [Piece] {
    let code = trailers.first(name: "grpc-status").flatMap { Int($0) } ?? 2
    let message = ConnectMetadata.percentDecoded(trailers.first(name: "grpc-message") ?? "")
    let details = trailers.first(name: "grpc-status-details-bin").flatMap(ProtoJSONCodec.base64Decoded)
    guard code == 0 else { return fail(status: code, message: message, details: details, trailers: trailers) }
    let previous = response
    response = .ended
    let lines = Self.forwarded(trailers)
    switch (kind, previous) {
    case (.unary(let codec), .unary(let headers, let body)):
      let framed = body.map { Array($0.readableBytesView) } ?? []
      guard let envelopes = ConnectEnvelope.split(framed), envelopes.count == 1 else {
        let count = ConnectEnvelope.split(framed)?.count ?? 0
        response = previous
        return fail(.internalError, message: "the method answered \(count) messages, not one", trailers: trailers)
      }
      var message = envelopes[0].payload
      if codec == .json {
        do {
          message = try self.codec.decode(message, as: request.method.outputType).utf8
        } catch {
          response = previous
          return fail(.internalError, message: "the answer could not be written as JSON: \(error)", trailers: trailers)
        }
      }
      var head = head(status: 200, metadata: headers, trailers: lines)
      head.add(name: "content-length", value: "\(message.count)")
      return [
        Piece(item: .headers(head, endStream: false), sourceBytes: 0),
        Piece(item: .data(ByteBuffer(bytes: message), endStream: true), sourceBytes: 0),
      ]
    case (.unary, _):
      response = previous
      return fail(.internalError, message: "the method answered no message", trailers: trailers)
    case (.stream, _):
      let end = JSONValue.object([("metadata", ConnectMetadata.json(of: lines))])
      return headIfNone(previous) + [
        endPiece(ConnectEnvelope(flags: ConnectEnvelope.endOfStream, payload: end.utf8).bytes)
      ]
    case (.grpcWeb, _):
      return headIfNone(previous) + [endPiece(ConnectMetadata.grpcWebTrailers(code: 0, message: "", lines: lines))]
    }
  }

  /// Ends the client's answer with a status that is not OK: `status` and `message` as the web
  /// protocol writes an error, with the upstream's `details` and `trailers` if it sent them.
  /// Nothing once the answer is complete.
  mutating func fail(_ code: Status.Code, message: String, trailers: HPACKHeaders = [:]) -> [Piece] {
    fail(status: code.rawValue, message: message, trailers: trailers)
  }

  /// `fail(_:message:trailers:)` with a status as the upstream sent it (any number, known or not).
  mutating func fail(status: Int, message: String, details: [UInt8]? = nil, trailers: HPACKHeaders = [:]) -> [Piece] {
    let previous = response
    guard !isEnded else { return [] }
    response = .ended
    let code = RPCError.Code(Status.Code(rawValue: status) ?? .unknown) ?? .unknown
    let failure = ConnectFailure(code: code, message: message, statusDetails: details)
    let lines = Self.forwarded(trailers)
    switch kind {
    case .unary:
      var headers: HPACKHeaders = [:]
      if case .unary(let held, _) = previous { headers = held }
      let body = failure.json(codec: codec).utf8
      var head = head(
        status: ConnectCode.httpStatus(code), metadata: headers, trailers: lines, contentType: "application/json")
      head.add(name: "content-length", value: "\(body.count)")
      return [
        Piece(item: .headers(head, endStream: false), sourceBytes: 0),
        Piece(item: .data(ByteBuffer(bytes: body), endStream: true), sourceBytes: 0),
      ]
    case .stream:
      let end = JSONValue.object([("error", failure.json(codec: codec)), ("metadata", ConnectMetadata.json(of: lines))])
      return headIfNone(previous) + [
        endPiece(ConnectEnvelope(flags: ConnectEnvelope.endOfStream, payload: end.utf8).bytes)
      ]
    case .grpcWeb:
      return headIfNone(previous) + [
        endPiece(ConnectMetadata.grpcWebTrailers(code: status, message: message, lines: lines, details: details))
      ]
    }
  }

  // MARK: Pieces

  /// The streaming forms' head, unless it went out already.
  private func headIfNone(_ previous: ResponseState) -> [Piece] {
    if case .streaming = previous { return [] }
    return [Piece(item: .headers(head(status: 200, metadata: [:]), endStream: false), sourceBytes: 0)]
  }

  /// The answer's last DATA (base64 for text).
  private func endPiece(_ bytes: [UInt8]) -> Piece {
    Piece(
      item: .data(ByteBuffer(bytes: kind.isText ? GRPCWebText.encoded(bytes) : bytes), endStream: true), sourceBytes: 0)
  }

  /// The client's response headers: `status`, the content type, CORS, the upstream's metadata and
  /// (Connect unary) its trailers as `trailer-` headers.
  private func head(
    status: Int, metadata: HPACKHeaders, trailers: [(String, String)] = [], contentType: String? = nil
  ) -> HPACKHeaders {
    var head = HPACKHeaders()
    head.add(name: ":status", value: "\(status)")
    head.add(name: "content-type", value: contentType ?? kind.responseContentType)
    for (name, value) in cors { head.add(name: name, value: value) }
    for (name, value, indexing) in metadata where ConnectMetadata.isForwarded(name) {
      head.add(name: name, value: value, indexing: indexing)
    }
    for (name, value) in trailers { head.add(name: "trailer-" + name, value: value, indexing: .nonIndexable) }
    return head
  }

  /// The headers of `headers` a web client gets.
  static func forwarded(_ headers: HPACKHeaders) -> [(String, String)] {
    var lines: [(String, String)] = []
    for (name, value, _) in headers where ConnectMetadata.isForwarded(name) { lines.append((name, value)) }
    return lines
  }
}
