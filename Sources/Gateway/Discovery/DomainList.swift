#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif
internal import Synchronization

/// The gateway's domain list: the entries given on the command line (or INTENTMESH_DOMAINS), which
/// never change, and those of its config file (`{"domains": ["host:port", …]}`), read again on
/// SIGHUP and when the file's content changes.
final class DomainList: Sendable {
  let fixed: [DomainEndpoint]
  let file: String?
  /// The file's content when it was last read.
  private let lastRead = Mutex<[UInt8]?>(nil)

  init(fixed: [DomainEndpoint], file: String?) {
    self.fixed = fixed
    self.file = file
  }

  /// The entries as they are now: the fixed ones, then the file's.
  func entries() throws -> [DomainEndpoint] {
    guard let file else { return fixed }
    let content = try Self.read(file)
    // Remembered even when it is not valid: it is reported once, not at every check.
    lastRead.withLock { $0 = content }
    return fixed + (try GatewayConfiguration.domains(fromJSON: content, path: file))
  }

  /// Whether the file's content differs from what `entries()` last read (a file that cannot be
  /// read counts as unchanged: it is read again at the next check).
  func fileChanged() -> Bool {
    guard let file, let content = try? Self.read(file) else { return false }
    return lastRead.withLock { $0 != content }
  }

  private static func read(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
  }
}
