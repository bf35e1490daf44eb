@testable import ProtoJSON
@testable import ServiceKit

@testable import Gateway

/// The gateway's web side reads JSON and converts between proto3 JSON and the binary wire format
/// with its own codec. From JSON text, or from wire bytes, of one of the requests and intents it
/// carries: whatever is accepted converts to a canonical JSON that is a fixed point (JSON → binary →
/// JSON gives it back). Also the Connect envelope splitter.
enum ProtoJSONFuzzTarget {
  static let types = [
    "intentmesh.gateway.v1.InteractRequest", "intentmesh.gateway.v1.LayoutRequest",
    "intentmesh.v1.ResolveRequest", "intentmesh.v1.HandleRequest", "intentmesh.v1.ConfigureViewRequest",
    "intentmesh.messaging.v1.SendMessageIntent", "intentmesh.payments.v1.SendPaymentIntent",
    "intentmesh.ridebooking.v1.RequestRideIntent", "intentmesh.notebook.v1.CreateNoteIntent",
    "google.protobuf.Any", "google.protobuf.Timestamp", "google.protobuf.Duration",
  ]

  nonisolated(unsafe) static var codec: ProtoJSONCodec?

  static func prepare() {
    codec = ProtoJSONCodec(schema: ProtoSchema(files: try! ReflectionIndex.embeddedFiles()))
    for type in types { precondition((try? codec!.schema.message(type)) != nil, "\(type) is not in the schema") }
  }

  static func run(_ bytes: [UInt8]) {
    guard let control = bytes.first, let codec else { return }
    let type = types[Int(control & 0x7F) % types.count]
    let rest = Array(bytes.dropFirst())
    _ = ConnectEnvelope.split(rest)
    let canonical: JSONValue?
    if control & 0x80 == 0 {
      guard let json = try? JSONReader.read(rest), let wire = try? codec.encode(json, as: type) else { return }
      canonical = try? codec.decode(wire, as: type)
      precondition(canonical != nil, "\(type): the codec cannot decode what it encoded from \(json)")
    } else {
      canonical = try? codec.decode(rest, as: type)
    }
    guard let canonical else { return }
    let again: JSONValue?
    do {
      again = try codec.decode(try codec.encode(canonical, as: type), as: type)
    } catch {
      preconditionFailure("\(type): canonical JSON \(canonical) does not convert back: \(error)")
    }
    precondition(again == canonical, "\(type): \(canonical) came back as \(String(describing: again))")
  }
}
