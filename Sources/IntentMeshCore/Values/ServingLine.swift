/// The line every IntentMesh server prints on standard output once it accepts calls —
/// `messaging-service (UnicornChat) serving on 127.0.0.1:50061` — and the one reader of it, for
/// whatever starts servers and waits for them (`intentmesh up`, the tests).
package enum ServingLine {
  /// What separates the server's name from its address.
  package static let marker = " serving on "

  /// The line `service` (of `app`) prints when it serves on `address` (`HOST:PORT`, `[V6]:PORT`).
  package static func text(service: String, app: String, address: String) -> String {
    "\(service) (\(app))\(marker)\(address)"
  }

  /// Where a server serves, as its line says.
  package struct Address: Sendable, Equatable, CustomStringConvertible {
    /// `HOST:PORT` as printed.
    package let text: String
    package let port: Int
    package var description: String { text }

    package init(text: String, port: Int) {
      self.text = text
      self.port = port
    }
  }

  /// The address of the first whole serving line in `output` (one its newline ended: a line still
  /// being written may hold half a port); nil while there is none (or it has no port).
  package static func address(in output: String) -> Address? {
    guard let end = output.lastIndex(of: "\n"),
      let line = output[..<end].split(separator: "\n").first(where: { $0.contains(marker) }),
      let range = line.firstRange(of: marker)
    else { return nil }
    let text = line[range.upperBound...].trimmingWhitespace()
    guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), port > 0 else {
      return nil
    }
    return Address(text: text, port: port)
  }
}
