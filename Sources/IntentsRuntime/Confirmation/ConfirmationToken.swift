package import IntentsKit
package import Foundation
package import Crypto
internal import ServiceKit
package import IntentMeshCore

/// The proof that the user was asked: made by Confirm and required by Handle for every intent whose
/// handler needs the user's yes. It binds the user, the intent class, its identifier and what the
/// user agreed to (`AgreedValues`: each parameter's agreed form — an account without its balance —
/// and the whole intent), with a short expiry. Only the domain holds the key (`ConfirmationKey`).
///
/// Each agreed part has a tag of its own in the token, under the token's MAC: a yes whose values
/// moved while the user was asked in ways the user did not agree to (a balance) still holds, and one
/// where an agreed value changed is refused naming the parameter, so that a host can ask again.
///
/// Layout: version (1) ‖ expiry, ms since 1970 (8, big-endian) ‖ part count (2) ‖ a 16-byte tag per
/// part ‖ HMAC-SHA256 (32) over user, class, identifier, payload type, expiry, count and tags.
package struct ConfirmationTokens: Sendable {
  package static let version: UInt8 = 2
  /// How long the user has to say yes.
  package static let lifetime: TimeInterval = 300
  /// A part's tag: HMAC-SHA256 truncated to 128 bits.
  static let tagSize = 16

  let key: SymmetricKey
  /// HMACs keyed with `key` that have taken their message's fixed prefix: each MAC starts from a
  /// copy instead of keying anew.
  private let keyedToken: HMAC<SHA256>
  private let keyedPart: HMAC<SHA256>

  package init(key: SymmetricKey) {
    self.key = key
    var token = HMAC<SHA256>(key: key)
    token.update(data: Array("intentmesh-confirmation-v2".utf8))
    keyedToken = token
    var part = HMAC<SHA256>(key: key)
    part.update(data: Array("intentmesh-confirmation-v2-part".utf8))
    keyedPart = part
  }

  /// What a token is bound to.
  package struct Binding: Sendable, Equatable {
    package var userID: String
    package var intentClass: String
    package var identifier: String
    var payloadTypeURL: String
    package var agreed: AgreedValues

    package init(userID: String, intentClass: String, identifier: String, payloadTypeURL: String, agreed: AgreedValues)
    {
      self.userID = userID
      self.intentClass = intentClass
      self.identifier = identifier
      self.payloadTypeURL = payloadTypeURL
      self.agreed = agreed
    }
  }

  /// Why a token does not confirm a binding.
  package enum Problem: Sendable, Equatable {
    /// No token at all.
    case missing
    /// Not a token of this format.
    case notIssued
    /// Issued under another key, or for another user, intent class, identifier or declaration.
    case otherIntent
    case expired
    /// Issued for this user and intent, but values the user agreed to have changed since: the key
    /// paths of the changed parameters, empty when only fields no parameter declares changed.
    case changed(parameters: [String])

    /// The error Handle answers with (FAILED_PRECONDITION).
    package func error(intentClass: String) -> IntentMeshError {
      switch self {
      case .missing:
        .confirmationRequired(
          "confirm first: \(intentClass) needs the user's yes; call Confirm and pass its confirmation_token to Handle")
      case .notIssued: .confirmationRequired("confirm first: the confirmation_token is not one this service issued")
      case .otherIntent:
        .confirmationRequired("confirm first: the confirmation_token was issued for another user or another intent")
      case .expired: .confirmationRequired("confirm first: the confirmation_token expired; confirm again")
      case .changed(let parameters): .confirmedValuesChanged(intentClass: intentClass, parameters: parameters)
      }
    }
  }

  /// A token for `binding`, valid until `now + lifetime`.
  func issue(for binding: Binding, now: Date) -> String {
    let expires = UInt64((now.timeIntervalSince1970 + Self.lifetime) * 1000)
    let tags = partTags(binding)
    var token: [UInt8] = [Self.version]
    token.reserveCapacity(1 + 8 + 2 + tags.count + 32)
    withUnsafeBytes(of: expires.bigEndian) { token.append(contentsOf: $0) }
    withUnsafeBytes(of: UInt16(tags.count / Self.tagSize).bigEndian) { token.append(contentsOf: $0) }
    token += tags
    mac(binding, expires: expires, tags: tags).withUnsafeBytes { token.append(contentsOf: $0) }
    return Base64URL.encoded(Data(token))
  }

  /// Why `token` does not confirm `binding` at `now`, or nil when it does.
  package func problem(with token: String, for binding: Binding, now: Date) -> Problem? {
    guard !token.isEmpty else { return .missing }
    guard let bytes = Base64URL.decoded(token).map(Array.init), bytes.count >= 1 + 8 + 2 + 32,
      bytes[0] == Self.version
    else { return .notIssued }
    let expires = bytes[1..<9].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    let count = Int(bytes[9]) << 8 | Int(bytes[10])
    guard bytes.count == 11 + count * Self.tagSize + 32 else { return .notIssued }
    let tags = Array(bytes[11..<(11 + count * Self.tagSize)])
    // Compared in constant time (`HashedAuthenticationCode ==` bytes).
    guard mac(binding, expires: expires, tags: tags) == bytes.suffix(32) else { return .otherIntent }
    guard Double(expires) / 1000 >= now.timeIntervalSince1970 else { return .expired }
    let current = partTags(binding)
    // Another number of parts: the intent was declared otherwise where the token was made.
    guard current.count == tags.count else { return .otherIntent }
    var changed: [String] = []
    var otherFields = false
    for index in 0..<count {
      let range = (index * Self.tagSize)..<((index + 1) * Self.tagSize)
      guard current[range] != tags[range] else { continue }
      if index < binding.agreed.parameters.count {
        changed.append(binding.agreed.parameters[index].name)
      } else {
        otherFields = true
      }
    }
    guard changed.isEmpty, !otherFields else { return .changed(parameters: changed) }
    return nil
  }

  /// A tag per agreed part — each parameter, then the whole intent — over the user, the identifier,
  /// the part's name and its bytes, concatenated.
  private func partTags(_ binding: Binding) -> [UInt8] {
    var tags: [UInt8] = []
    tags.reserveCapacity((binding.agreed.parameters.count + 1) * Self.tagSize)
    var message: [UInt8] = []
    func tag(name: String, bytes: [UInt8]) {
      message.removeAll(keepingCapacity: true)
      for text in [binding.userID, binding.identifier, name] { Self.field(Array(text.utf8), into: &message) }
      Self.field(bytes, into: &message)
      var hmac = keyedPart
      hmac.update(data: message)
      hmac.finalize().withUnsafeBytes { tags.append(contentsOf: $0.prefix(Self.tagSize)) }
    }
    for part in binding.agreed.parameters { tag(name: part.name, bytes: part.bytes) }
    tag(name: "", bytes: binding.agreed.whole)
    return tags
  }

  /// The token's MAC: over length-prefixed fields, so that no two bindings share bytes. Laid out in
  /// one buffer and hashed with one update, not one per field.
  private func mac(_ binding: Binding, expires: UInt64, tags: [UInt8]) -> HashedAuthenticationCode<SHA256> {
    var message: [UInt8] = []
    message.reserveCapacity(4 * 4 + 8 + 4 + tags.count + 160)
    for text in [binding.userID, binding.intentClass, binding.identifier, binding.payloadTypeURL] {
      Self.field(Array(text.utf8), into: &message)
    }
    withUnsafeBytes(of: expires.bigEndian) { message.append(contentsOf: $0) }
    Self.field(tags, into: &message)
    var hmac = keyedToken
    hmac.update(data: message)
    return hmac.finalize()
  }

  /// `bytes` after its length (4 bytes, big-endian).
  private static func field(_ bytes: [UInt8], into message: inout [UInt8]) {
    withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { message.append(contentsOf: $0) }
    message += bytes
  }
}
