internal import IntentsKit
package import Foundation
package import Crypto
internal import ServiceKit

/// The proof that the user was asked: a MAC over the user, the intent class, its identifier and the
/// exact payload bytes, with a short expiry, made by Confirm and required by Handle for every intent
/// whose handler needs the user's yes. Only the domain holds the key (`ConfirmationKey`); a changed
/// amount, another user or another intent is a different MAC.
package struct ConfirmationTokens: Sendable {
  package static let version: UInt8 = 1
  /// How long the user has to say yes.
  package static let lifetime: TimeInterval = 300

  let key: SymmetricKey
  /// HMAC keyed with `key` that has taken the message's fixed prefix: each MAC starts from a copy
  /// instead of keying anew.
  private let keyed: HMAC<SHA256>

  package init(key: SymmetricKey) {
    self.key = key
    var keyed = HMAC<SHA256>(key: key)
    keyed.update(data: Array("intentmesh-confirmation-v1".utf8))
    self.keyed = keyed
  }

  /// What a token is bound to.
  package struct Binding: Sendable, Equatable {
    package var userID: String
    package var intentClass: String
    package var identifier: String
    var payloadTypeURL: String
    package var payload: Data

    package init(userID: String, intentClass: String, identifier: String, payloadTypeURL: String, payload: Data) {
      self.userID = userID
      self.intentClass = intentClass
      self.identifier = identifier
      self.payloadTypeURL = payloadTypeURL
      self.payload = payload
    }
  }

  /// A token for `binding`, valid until `now + lifetime`.
  func issue(for binding: Binding, now: Date) -> String {
    let expires = UInt64((now.timeIntervalSince1970 + Self.lifetime) * 1000)
    var token = Data([Self.version])
    withUnsafeBytes(of: expires.bigEndian) { token.append(contentsOf: $0) }
    mac(binding, expires: expires).withUnsafeBytes { token.append(contentsOf: $0) }
    return Base64URL.encoded(token)
  }

  /// Why `token` does not confirm `binding` at `now`, or nil when it does.
  package func problem(with token: String, for binding: Binding, now: Date) -> String? {
    guard !token.isEmpty else {
      return
        "confirm first: \(binding.intentClass) needs the user's yes; call Confirm and pass its confirmation_token to Handle"
    }
    guard let bytes = Base64URL.decoded(token), bytes.count == 1 + 8 + 32, bytes.first == Self.version else {
      return "confirm first: the confirmation_token is not one this service issued"
    }
    let expires = bytes.dropFirst().prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    // Compared in constant time (`HashedAuthenticationCode ==` bytes).
    guard mac(binding, expires: expires) == bytes.suffix(32) else {
      return
        "confirm first: the confirmation_token was issued for another user or another intent (a changed value needs a new confirmation)"
    }
    guard Double(expires) / 1000 >= now.timeIntervalSince1970 else {
      return "confirm first: the confirmation_token expired; confirm again"
    }
    return nil
  }

  /// The MAC of `binding` until `expires`: over length-prefixed fields, so that no two bindings
  /// share bytes. Laid out in one buffer and hashed with one update, not one per field.
  private func mac(_ binding: Binding, expires: UInt64) -> HashedAuthenticationCode<SHA256> {
    var message: [UInt8] = []
    message.reserveCapacity(4 * 5 + 8 + binding.payload.count + 160)
    func field(_ bytes: some Sequence<UInt8>, count: Int) {
      withUnsafeBytes(of: UInt32(count).bigEndian) { message.append(contentsOf: $0) }
      message.append(contentsOf: bytes)
    }
    for text in [binding.userID, binding.intentClass, binding.identifier, binding.payloadTypeURL] {
      field(text.utf8, count: text.utf8.count)
    }
    field(binding.payload, count: binding.payload.count)
    withUnsafeBytes(of: expires.bigEndian) { message.append(contentsOf: $0) }
    var hmac = keyed
    hmac.update(data: message)
    return hmac.finalize()
  }
}
