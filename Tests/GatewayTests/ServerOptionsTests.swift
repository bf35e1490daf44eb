import ArgumentParser
@testable import Gateway
@testable import IntentsRuntime
@testable import ServiceKit
import Testing

/// The flags every server shares are one `ServerOptions`, read by one `OptionLookup`: the gateway and
/// a domain service accept and refuse the same values with the same words.
@Suite("Options every server shares")
struct ServerOptionsTests {
  static let jwks = ["--jwks", "jwks.json"]

  static func gateway(_ arguments: [String], _ environment: [String: String] = [:]) throws -> (Int, Int?) {
    let configuration = try GatewayOptions.parse(["--domain", "127.0.0.1:50061"] + jwks + arguments)
      .configuration(environment: environment)
    return (configuration.port, configuration.metricsPort)
  }

  static func domain(_ arguments: [String], _ environment: [String: String] = [:]) throws -> (Int, Int?) {
    let configuration = try ServiceOptions.parse(jwks + arguments)
      .configuration(defaultPort: 50061, defaultDatabase: ":memory:", environment: environment)
    return (configuration.port, configuration.metricsPort)
  }

  @Test("a flag wins over its variable, which wins over each executable's default")
  func precedence() throws {
    #expect(try Self.gateway([]) == (50060, 51060))
    #expect(try Self.domain([]) == (50061, 51061))
    for read in [Self.gateway, Self.domain] {
      #expect(try read([], ["INTENTMESH_PORT": "7000"]) == (7000, 8000))
      #expect(try read(["--port", "7001"], ["INTENTMESH_PORT": "7000"]) == (7001, 8001))
      #expect(try read(["--port", "0"], [:]) == (0, 0))
      #expect(try read(["--metrics-port=-1"], ["INTENTMESH_PORT": ""]).1 == nil)
    }
  }

  @Test("both refuse the same bad values with the same words")
  func sameRefusals() throws {
    let cases: [([String], [String: String], String)] = [
      (["--port", "70000"], [:], "port 70000 is not a whole number from 0 to 65535"),
      ([], ["INTENTMESH_PORT": "http"], "port http is not a whole number from 0 to 65535"),
      (["--metrics-port=-2"], [:], "metrics port -2 is not a whole number from -1 to 65535"),
      (["--log-level", "loud"], [:], "log level loud is not one of"),
      (["--tls-cert", "c.pem"], [:], "TLS needs both --tls-cert and --tls-key"),
    ]
    for (arguments, environment, words) in cases {
      for read in [Self.gateway, Self.domain] {
        #expect {
          _ = try read(arguments, environment)
        } throws: { error in
          (error as? ValidationError)?.message.contains(words) == true
        }
      }
    }
  }

  @Test("the gateway's intervals are numbers of seconds in range, from the flag or the variable")
  func gatewayIntervals() throws {
    for (arguments, environment) in [
      (["--refresh-seconds", "0"], [:]), ([], ["INTENTMESH_REFRESH_SECONDS": "soon"]),
      (["--resolve-seconds", "0.01"], [:]), ([], ["INTENTMESH_RESOLVE_SECONDS": "90000"]),
    ] as [([String], [String: String])] {
      #expect(throws: ValidationError.self) { _ = try Self.gateway(arguments, environment) }
    }
    let configuration = try GatewayOptions.parse(["--domain", "127.0.0.1:50061"] + Self.jwks)
      .configuration(environment: ["INTENTMESH_REFRESH_SECONDS": "2.5", "INTENTMESH_RESOLVE_SECONDS": "7"])
    #expect(configuration.refreshInterval == .milliseconds(2500))
    #expect(configuration.resolveInterval == .seconds(7))
  }

  @Test(
    "a domain runs its calls on their connections' event loops, the gateway on the pool, unless told; anything else is refused"
  )
  func callExecutor() throws {
    let gateway: ([String], [String: String]) throws -> CallExecutor = { arguments, environment in
      try GatewayOptions.parse(["--domain", "127.0.0.1:50061"] + Self.jwks + arguments)
        .configuration(environment: environment).callExecutor
    }
    let domain: ([String], [String: String]) throws -> CallExecutor = { arguments, environment in
      try ServiceOptions.parse(Self.jwks + arguments)
        .configuration(defaultPort: 50061, defaultDatabase: ":memory:", environment: environment).callExecutor
    }
    #expect(try domain([], [:]) == .eventLoop)
    #expect(try gateway([], [:]) == .pool)
    for read in [gateway, domain] {
      #expect(try read([], ["INTENTMESH_CALL_EXECUTOR": "pool"]) == .pool)
      #expect(try read([], ["INTENTMESH_CALL_EXECUTOR": "event-loop"]) == .eventLoop)
      #expect(try read(["--call-executor", "event-loop"], ["INTENTMESH_CALL_EXECUTOR": "pool"]) == .eventLoop)
      #expect {
        _ = try read(["--call-executor", "threads"], [:])
      } throws: { error in
        (error as? ValidationError)?.message == "call executor threads is not one of event-loop, pool"
      }
    }
  }

  @Test("a list is the flags, else the variable's comma-separated values")
  func lists() {
    let lookup = OptionLookup(["INTENTMESH_DOMAINS": " a:1, ,b:2 ", "EMPTY": ""])
    #expect(lookup.list([], "INTENTMESH_DOMAINS") == ["a:1", "b:2"])
    #expect(lookup.list(["c:3"], "INTENTMESH_DOMAINS") == ["c:3"])
    #expect(lookup.list([], "EMPTY").isEmpty)
    #expect(lookup.string(nil, "EMPTY") == nil)
  }
}
