import ArgumentParser
@testable import Gateway
import Testing

@Suite("gateway command line and environment")
struct GatewayOptionsTests {
  static func configuration(_ arguments: [String], environment: [String: String] = [:]) throws
    -> GatewayConfiguration
  {
    try GatewayOptions.parse(["--domain", "127.0.0.1:50061", "--jwks", "jwks.json"] + arguments).configuration(
      environment: environment)
  }

  @Test("event loops: one per core unless the flag or INTENTMESH_EVENT_LOOPS says; the flag wins; 0 is refused")
  func eventLoops() throws {
    #expect(try Self.configuration([]).eventLoops == nil)
    #expect(try Self.configuration(["--event-loops", "1"]).eventLoops == 1)
    #expect(try Self.configuration([], environment: ["INTENTMESH_EVENT_LOOPS": "3"]).eventLoops == 3)
    #expect(
      try Self.configuration(["--event-loops", "2"], environment: ["INTENTMESH_EVENT_LOOPS": "3"]).eventLoops == 2)
    #expect(throws: ValidationError.self) { try Self.configuration(["--event-loops", "0"]) }
    #expect(throws: ValidationError.self) {
      try Self.configuration([], environment: ["INTENTMESH_EVENT_LOOPS": "many"])
    }
  }

  @Test("forwarding: the relay unless grpc is asked for; anything else is refused")
  func forwarding() throws {
    #expect(try Self.configuration([]).forwarding == .relay)
    #expect(try Self.configuration(["--forwarding", "grpc"]).forwarding == .grpc)
    #expect(try Self.configuration([], environment: ["INTENTMESH_FORWARDING": "grpc"]).forwarding == .grpc)
    #expect(throws: ValidationError.self) { try Self.configuration(["--forwarding", "carrier-pigeon"]) }
  }

  @Test("web side: CORS origins by flag or comma list; dev tokens only on loopback; a web root by flag or env")
  func webSide() throws {
    #expect(try Self.configuration([]).cors.origins.isEmpty)
    #expect(
      try Self.configuration(["--cors-origin", "https://a.example", "--cors-origin", "*"]).cors.origins == [
        "https://a.example", "*",
      ])
    #expect(
      try Self.configuration([], environment: ["INTENTMESH_CORS_ORIGINS": "https://a.example, http://b.example:8080"])
        .cors.origins == ["https://a.example", "http://b.example:8080"])
    #expect(throws: ValidationError.self) { try Self.configuration(["--cors-origin", "a.example"]) }
    #expect(try Self.configuration(["--dev-tokens-from", "/tmp/id"]).devTokensFrom == "/tmp/id")
    #expect(throws: ValidationError.self) {
      try Self.configuration(["--dev-tokens-from", "/tmp/id", "--host", "0.0.0.0"])
    }
    #expect(try Self.configuration([], environment: ["INTENTMESH_WEB_ROOT": "/srv/web"]).webRoot == "/srv/web")
  }

  @Test("relay limits: defaults, flags, environment; the flag wins; nonsense is refused")
  func relayLimits() throws {
    #expect(try Self.configuration([]).relayLimits == .defaults)
    let limits = try Self.configuration(
      ["--max-glitches", "50", "--first-message-timeout-seconds", "1.5", "--max-connections", "10"],
      environment: ["INTENTMESH_MAX_GLITCHES": "70", "INTENTMESH_IDLE_TIMEOUT_SECONDS": "60"]
    ).relayLimits
    #expect(limits.maxGlitches == 50)
    #expect(limits.firstMessageTimeout == .milliseconds(1500))
    #expect(limits.maxConnections == 10)
    #expect(limits.idleTimeout == .seconds(60))
    #expect(limits.maxControlFrames == RelayLimits.defaults.maxControlFrames)
    let large = try Self.configuration(
      ["--max-large-request-bytes-per-connection", "2097152"],
      environment: ["INTENTMESH_MAX_LARGE_REQUEST_BYTES": "8388608"]
    ).relayLimits
    #expect(large.maxLargeRequestBytesPerConnection == 2 << 20 && large.maxLargeRequestBytes == 8 << 20)
    #expect(throws: ValidationError.self) { try Self.configuration(["--max-large-request-bytes", "1000"]) }
    #expect(throws: ValidationError.self) { try Self.configuration(["--max-glitches", "0"]) }
    #expect(throws: ValidationError.self) { try Self.configuration(["--max-header-list-bytes", "100"]) }
    #expect(throws: ValidationError.self) {
      try Self.configuration([], environment: ["INTENTMESH_HANDSHAKE_TIMEOUT_SECONDS": "soon"])
    }
  }
}
