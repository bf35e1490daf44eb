/// The names of this machine's loopback interface: where development-only features may listen.
package enum LoopbackHost {
  package static let names: Set<String> = ["127.0.0.1", "::1", "localhost"]

  package static func contains(_ host: String) -> Bool { names.contains(host) }
}
