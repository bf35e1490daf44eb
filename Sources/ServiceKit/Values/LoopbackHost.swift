/// The names of this machine's loopback interface: where development-only features may listen.
package enum LoopbackHost {
  package static let names: Set<String> = ["127.0.0.1", "::1", "localhost"]

  package static func contains(_ host: String) -> Bool { names.contains(host) }
}

/// The warning a server gives when it serves plaintext beyond this machine: calls, bearer tokens
/// and every answer readable, and changeable, by anyone on the path.
package enum PlaintextWarning {
  /// The warning for a server on `host` without TLS, or nil when it needs none (TLS on, or loopback).
  package static func message(host: String, tls: Bool) -> String? {
    guard !tls, !LoopbackHost.contains(host) else { return nil }
    return
      "serving plaintext on \(host), which other machines can reach: bearer tokens and every call and answer cross the network unencrypted; set --tls-cert and --tls-key, listen on 127.0.0.1, or put a TLS proxy in front"
  }
}
