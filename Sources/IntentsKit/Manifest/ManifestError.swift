internal import IntentMeshProtos
internal import SwiftProtobuf
/// Why a domain's manifest cannot be served; the service refuses to start with it.
package enum ManifestError: Error, Equatable, CustomStringConvertible {
  case unreadable(path: String, underlying: String)
  case inconsistent(String)

  package var description: String {
    switch self {
    case .unreadable(let path, let underlying): "cannot read \(path): \(underlying)"
    case .inconsistent(let message): "inconsistent manifest: \(message)"
    }
  }
}
