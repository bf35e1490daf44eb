/// A user id as a key — of a dictionary, a set, a cache, a lock — hashed and compared byte for
/// byte, as the stores compare it (SQLite and PostgreSQL compare text by its bytes).
///
/// Swift's `String ==` is Unicode canonical equivalence: "\u{212A}ate" (KELVIN SIGN) == "Kate", and
/// "caf\u{E9}" == "cafe\u{301}". A token's `sub` is compared without any normalization (RFC 7519
/// §2, StringOrURI), so those are two users; keyed by `String`, an in-memory structure would make
/// them one and hand one user's data to the other. Every user id that keys anything is a `UserKey`
/// or compared with `UserIdentity.same`.
package struct UserKey: Hashable, Sendable, CustomStringConvertible {
  package let id: String

  package init(_ id: String) {
    self.id = id
  }

  package static func == (lhs: UserKey, rhs: UserKey) -> Bool { UserIdentity.same(lhs.id, rhs.id) }

  package func hash(into hasher: inout Hasher) {
    var id = id
    id.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
  }

  package var description: String { id }
}
