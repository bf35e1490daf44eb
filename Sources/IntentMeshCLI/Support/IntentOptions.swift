import Foundation
import IntentMeshProtos
import SwiftProtobuf
import ArgumentParser
import ServiceKit

/// How a command reaches the gateway and for whom: the options every command that calls it shares.
struct ConnectionOptions: ParsableArguments {
  @Option(help: "The gateway's host:port.")
  var gateway: String = "127.0.0.1:50060"

  @Option(help: "Speak TLS to the gateway, checking its certificate against this PEM CA (env INTENTMESH_TLS_CA).")
  var tlsCA: String?

  /// --tls-ca or INTENTMESH_TLS_CA.
  var gatewayCA: String? {
    tlsCA ?? ProcessInfo.processInfo.environment["INTENTMESH_TLS_CA"].flatMap { $0.isEmpty ? nil : $0 }
  }

  @Option(help: "The user the intent acts for: a token for them is signed with the local identity in --data.")
  var user: String = "diana"

  @Option(help: "The data folder of `intentmesh up`, whose identity signs the token.")
  var data: String = "data"

  @Option(help: "A bearer token to send instead (env INTENTMESH_TOKEN), e.g. from your identity provider.")
  var token: String?

  /// The bearer token of the calls: --token, INTENTMESH_TOKEN, or one signed for --user now.
  func bearerToken() throws -> String {
    if let token, !token.isEmpty { return token }
    if let token = ProcessInfo.processInfo.environment["INTENTMESH_TOKEN"], !token.isEmpty { return token }
    return try LocalIdentity.issuer(data: data).token(subject: user, ttl: .seconds(3600))
  }

  @Option(help: "The user's IANA time zone.")
  var timeZone: String = "Europe/Zurich"

  @Option(help: "The user's locale (BCP 47): amounts said without a currency are in its currency.")
  var locale: String = "en-US"

  @Flag(help: "The device is locked.")
  var locked = false
}

/// The options every intent command shares.
struct IntentOptions: ParsableArguments {
  @Argument(help: "The intent class, e.g. INSendMessageIntent.")
  var intentClass: String

  @Option(help: "The app the user names (its name or an alternative name).")
  var app: String = ""

  @Option(name: .customLong("param"), help: "A parameter as key=value (repeat; repeat a key for arrays).")
  var parameters: [String] = []

  @OptionGroup var connection: ConnectionOptions

  var gateway: String { connection.gateway }
  var gatewayCA: String? { connection.gatewayCA }
  var timeZone: String { connection.timeZone }
  var locked: Bool { connection.locked }
  func bearerToken() throws -> String { try connection.bearerToken() }

  /// key=value pairs, in order.
  func pairs() throws -> [(String, String)] {
    try parameters.map { text in
      guard let equals = text.firstIndex(of: "="), equals > text.startIndex else {
        throw ValidationError("--param takes key=value, not \(text)")
      }
      return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }
  }
}
