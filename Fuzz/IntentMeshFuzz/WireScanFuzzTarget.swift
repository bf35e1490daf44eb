import NIOCore

@testable import Gateway

/// The relay's routing decision from a request's first bytes (a gRPC prefix and message, possibly
/// cut short or compressed) and the intent scan of the message, in both request shapes.
enum WireScanFuzzTarget {
  static func run(_ bytes: [UInt8]) {
    guard let control = bytes.first else { return }
    let body = ByteBuffer(bytes: bytes.dropFirst())
    let decision = RelayedCallStateMachine.decide(
      firstMessage: body, requestEnded: control & 1 != 0, heldBytes: body.readableBytes,
      maxMessageBytes: 4 << 20, encoded: control & 2 != 0)
    guard case .scan(let message) = decision else { return }
    let shape: IntentWireScan.Shape = control & 4 != 0 ? .interaction : .intent
    // The scan is a pure function of the bytes.
    precondition(IntentWireScan.scan(message, shape: shape) == IntentWireScan.scan(message, shape: shape))
  }
}
