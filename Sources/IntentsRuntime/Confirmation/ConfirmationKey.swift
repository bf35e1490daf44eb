internal import IntentsKit
internal import Foundation
internal import Crypto
internal import SQLKit

/// The confirmation MAC key of a domain, kept in its store: made once, the first time a replica
/// starts, and read by every replica that shares the store, so a token from one is good at another.
enum ConfirmationKey {
  static let name = "confirmation-mac-key"

  /// The key in `database`, made now when there is none.
  static func loadOrCreate(in database: any SQLDatabase) async throws -> SymmetricKey {
    let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
    try await database.raw(
      """
      INSERT INTO intentmesh_secrets (name, value) VALUES (\(bind: name), \(bind: fresh))
      ON CONFLICT (name) DO NOTHING
      """
    ).run()
    let rows = try await database.raw("SELECT value FROM intentmesh_secrets WHERE name = \(bind: name)").all()
    guard let text = try rows.first?.decode(column: "value", as: String.self), let bytes = Data(base64Encoded: text),
      bytes.count == 32
    else {
      throw ConfirmationKeyError.unreadable
    }
    return SymmetricKey(data: bytes)
  }
}

enum ConfirmationKeyError: Error, CustomStringConvertible {
  case unreadable
  var description: String { "the store's confirmation key is not 32 base64 bytes" }
}
