package import GRPCCore
package import GRPCNIOTransportHTTP2
internal import NIOCore

/// The HTTP/2 transport every IntentMesh server listens with: plaintext (or TLS) on the given address, a
/// request size cap, and gzip / deflate accepted. Every stream starts with `RequestEndHandler`, so a
/// cut-short request gets a status that says so, a request that ends on its HEADERS is answered
/// rather than left hanging, and an uncompressed message over the configured limit is answered
/// RESOURCE_EXHAUSTED from its length prefix; `MessageSizeInterceptor` answers the same for a
/// compressed one, once decompressed. The transport's own cap sits above the limit and only stops
/// messages far too large to buffer (the transport resets those streams).
package enum ServiceTransport {
  /// The transport's cap for a configured message limit: 64 MiB, or the limit when it is larger.
  package static func transportCap(for maxRequestMessageBytes: Int) -> Int {
    max(maxRequestMessageBytes, 64 * 1024 * 1024)
  }

  /// Streams a client may have open at once on one connection to a service.
  package static let maxConcurrentStreams = 1000

  /// What the transport runs on each accepted HTTP/2 stream before its own handlers.
  typealias StreamSetUp = @Sendable (any Channel) -> EventLoopFuture<Void>

  /// Puts `RequestEndHandler`, with the message limit, first in an accepted HTTP/2 stream's pipeline
  /// (the transport's `onAcceptHTTP2Stream`); `enforcesDeadlines`: it, not grpc-swift, keeps each
  /// call's `grpc-timeout`, which the services then do not see.
  static func acceptStream(messageLimit: Int, enforcesDeadlines: Bool = false) -> StreamSetUp {
    { stream in
      stream.eventLoop.makeCompletedFuture {
        try stream.pipeline.syncOperations.addHandler(
          RequestEndHandler(messageLimit: messageLimit, enforcesDeadline: enforcesDeadlines), position: .first)
      }
    }
  }

  /// `enforcesDeadlines`: each stream's `RequestEndHandler` answers DEADLINE_EXCEEDED when a call
  /// runs past its `grpc-timeout`, which the services then do not see (a domain service: none of
  /// its handlers reads it); off, grpc-swift enforces it (the gateway, which passes what is left of
  /// it on to the domains).
  package static func http2(
    host: String, port: Int, maxRequestMessageBytes: Int, tls: ServerTLS? = nil, idleTimeout: Duration? = nil,
    enforcesDeadlines: Bool = false
  ) -> HTTP2ServerTransport.Posix {
    let config = HTTP2ServerTransport.Posix.Config.defaults { config in
      config.rpc.maxRequestPayloadSize = transportCap(for: maxRequestMessageBytes)
      config.compression.enabledAlgorithms = .all
      // NIOHTTP2 advertises 100 concurrent streams unless told; a gateway or a proxy multiplexes
      // many clients' calls over one connection, and a live-update client may hold hundreds.
      config.http2.maxConcurrentStreams = maxConcurrentStreams
      // A connection with no call for this long gets GOAWAY and is closed (the gateway's relay
      // closes idle client connections after the same default).
      config.connection.maxIdleTime = idleTimeout
      // A request whose last message END_STREAM cuts short is answered INTERNAL with a message that
      // says so (the transport alone drops the partial bytes); END_STREAM on HEADERS reaches the
      // transport as it notices it, on DATA.
      config.channelDebuggingCallbacks.onAcceptHTTP2Stream = acceptStream(
        messageLimit: maxRequestMessageBytes, enforcesDeadlines: enforcesDeadlines)
    }
    return HTTP2ServerTransport.Posix(
      address: .ipv4(host: host, port: port),
      transportSecurity: tls?.transportSecurity ?? .plaintext,
      config: config
    )
  }
}

extension GRPCServer where Transport == HTTP2ServerTransport.Posix {
  /// "host:port" once the server listens.
  package var listeningEndpoint: String? {
    get async throws {
      guard let address = try await listeningAddress else { return nil }
      if let ipv4 = address.ipv4 { return "\(ipv4.host):\(ipv4.port)" }
      if let ipv6 = address.ipv6 { return "[\(ipv6.host)]:\(ipv6.port)" }
      return "\(address)"
    }
  }
}
