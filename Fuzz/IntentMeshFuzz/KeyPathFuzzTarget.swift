@testable import IntentsKit
import MessagingProtos
import PaymentsProtos
import RideBookingProtos
import SwiftProtobuf

/// A key path (the input's first line) read out of an intent decoded from the rest, and shown as
/// a host would show it.
enum KeyPathFuzzTarget {
  static let types: [any SwiftProtobuf.Message.Type] = [
    Intentmesh_Messaging_V1_SendMessageIntent.self, Intentmesh_Payments_V1_SendPaymentIntent.self,
    Intentmesh_Ridebooking_V1_RequestRideIntent.self, Intentmesh_Ridebooking_V1_GetRideStatusIntent.self,
  ]

  static func run(_ bytes: [UInt8]) {
    guard let control = bytes.first else { return }
    let rest = bytes.dropFirst()
    let newline = rest.firstIndex(of: 0x0A) ?? rest.endIndex
    let keyPath = String(decoding: rest[rest.startIndex..<newline], as: UTF8.self)
    let encoded = newline < rest.endIndex ? Array(rest[(newline + 1)...]) : []
    let type = types[Int(control) % types.count]
    guard let message = try? type.init(serializedBytes: encoded) else { return }
    _ = (try? KeyPathReader.value(at: keyPath, in: message))?.displayText
  }
}
