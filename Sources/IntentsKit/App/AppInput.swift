internal import Foundation
internal import GRPCCore

/// What the domains' app APIs accept as a name or a handle; anything else is INVALID_ARGUMENT,
/// saying why.
package enum AppInput {
  /// A display name: trimmed, 1–100 characters, no control characters.
  package static func displayName(_ text: String) throws -> String {
    let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !name.isEmpty else { throw RPCError(code: .invalidArgument, message: "a display name is required") }
    guard name.count <= 100, !name.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) })
    else { throw RPCError(code: .invalidArgument, message: "a display name is at most 100 printable characters") }
    return name
  }

  /// A handle: name@domain, lower case, at most 254 characters, letters, digits and . _ - + only.
  package static func handle(_ text: String) throws -> String {
    let handle = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    let parts = handle.split(separator: "@", omittingEmptySubsequences: false)
    let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789._-+")
    guard handle.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
      !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
      parts.allSatisfy({ $0.unicodeScalars.allSatisfy(allowed.contains) })
    else {
      throw RPCError(code: .invalidArgument, message: "\"\(text.prefix(60))\" is not a handle like name@example.com")
    }
    return handle
  }
}
