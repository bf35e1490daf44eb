internal import NIOCore

/// The routing decision of a call, from the first bytes of its request alone: a pure function,
/// tested without a call around it.
extension RelayedCallStateMachine {
  /// The route as far as the first message tells it: too large or compressed without an
  /// encoding → refused; compressed with one → the gateway's server (which decompresses); whole →
  /// scanned; larger than half a stream window while held → a large message, for the gateway's
  /// server, which takes it whole with flow control of its own (within the large-request budgets);
  /// incomplete → wait (or the gateway's server once the request ended).
  static func decide(
    firstMessage: ByteBuffer?, requestEnded: Bool, heldBytes: Int, maxMessageBytes: Int, encoded: Bool
  ) -> RouteDecision {
    guard let buffer = firstMessage, buffer.readableBytes >= 5,
      let compressed = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
      let length = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt32.self)
    else {
      return requestEnded ? .gatewayServer : .wait
    }
    guard Int(length) <= maxMessageBytes else {
      return .refuse(.messageTooLarge(length: Int(length), limit: maxMessageBytes))
    }
    guard compressed == 0 else { return encoded ? .gatewayServer : .refuse(.compressedWithoutEncoding) }
    guard buffer.readableBytes >= 5 + Int(length) else {
      if requestEnded { return .gatewayServer }
      return heldBytes >= RelaySettings.initialWindowSize / 2 ? .largeMessage(length: Int(length)) : .wait
    }
    return .scan(buffer.getSlice(at: buffer.readerIndex + 5, length: Int(length))!)
  }
}
