/// Why a JSON text or a protobuf message could not be read or converted, in one line for the caller.
package struct ProtoJSONError: Error, Sendable, Equatable, CustomStringConvertible {
  package let description: String

  package init(_ description: String) { self.description = description }
}
