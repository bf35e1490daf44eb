internal import NIOHPACK
internal import NIOSSL
internal import ServiceKit

/// What the relay decides per call, from the request itself: which upstream gets the stream, and
/// the headers it goes with. A call to a domain's app-side service (its manifest's
/// `app_services`) goes to that domain by its path alone. A call the relay does not route itself — the gateway's own RPCs, an
/// intent class no domain declares, a locked device, a compressed or oversized message, bytes
/// that do not parse, a domain that cannot be reached — goes to the gateway's gRPC server, which
/// answers it as it always has (same statuses, same messages).
struct RelayRouter: Sendable {
  let directory: DomainDirectory
  let deadline: CallDeadline
  /// The transport of the gateway's own gRPC server, in this process.
  let local: LocalServerTransport
  let maxRequestMessageBytes: Int
  /// TLS towards the domains; nil: h2c.
  let upstreamTLS: NIOSSLContext?
  /// The gateway's web side: what answers web requests that are no call (pages, preflights,
  /// refusals), and how long an HTTP/1.1 request may take to arrive whole. nil: the public port
  /// is gRPC only.
  var web: (responder: WebResponder, requestTimeout: Duration)?

  init(
    directory: DomainDirectory, deadline: CallDeadline, local: LocalServerTransport, maxRequestMessageBytes: Int,
    upstreamTLS: NIOSSLContext? = nil, web: (responder: WebResponder, requestTimeout: Duration)? = nil
  ) {
    self.web = web
    self.upstreamTLS = upstreamTLS
    self.directory = directory
    self.deadline = deadline
    self.local = local
    self.maxRequestMessageBytes = maxRequestMessageBytes
  }

  /// The translation of a web stream opened with `headers` into a gRPC call the relay carries
  /// itself, or nil when the web side answers it (a page, a preflight, headers it refuses).
  func webTranslation(for headers: HPACKHeaders) -> WebCallTranslation? {
    guard let responder = web?.responder else { return nil }
    return WebCallTranslation(
      headers: headers, schema: responder.currentSchema(), cors: responder.cors,
      maxMessageBytes: maxRequestMessageBytes, deadline: deadline)
  }

  /// Whether a stream is for the web side rather than gRPC: any method but POST (a page, a CORS
  /// preflight), or a POST whose content type is not gRPC's (Connect, gRPC-Web; none at all, which
  /// no gRPC client sends: 415 with the types it takes).
  static func isForWebSide(method: String?, contentType: String?) -> Bool {
    guard method == "POST" else { return true }
    guard let contentType else { return true }
    return !contentType.hasPrefix("application/grpc") || contentType.hasPrefix("application/grpc-web")
  }

  /// The pass-through methods, and where each keeps its intent.
  static let passThrough: [String: (shape: IntentWireScan.Shape, streaming: Bool)] = [
    "/intentmesh.v1.IntentsExtension/Resolve": (.intent, false),
    "/intentmesh.v1.IntentsExtension/Confirm": (.intent, false),
    "/intentmesh.v1.IntentsExtension/Handle": (.intent, false),
    "/intentmesh.v1.IntentsExtension/ConfigureView": (.interaction, false),
    "/intentmesh.v1.IntentsExtension/StartSendingUpdates": (.intent, true),
  ]

  /// The domain replica for a scanned request, or nil when the gateway's server must answer.
  func domain(for found: IntentWireScan.Found) -> DomainEndpoint? {
    guard let route = try? directory.table.route(intentClass: found.intentClass, appName: found.appName) else {
      return nil
    }
    if found.deviceLocked && route.restrictedWhileLocked { return nil }
    let endpoint = directory.choose(among: route.replicas)
    guard directory.health(of: endpoint) == "SERVING" else { return nil }
    return endpoint
  }

  /// A unary call's deadline as the domain gets it: the caller's, capped, or the default.
  private func timeout(_ headers: HPACKHeaders) -> Duration {
    let asked = headers.first(name: "grpc-timeout").flatMap(GRPCTimeout.parse)
    return min(asked ?? deadline.defaultTimeout, deadline.maximumTimeout)
  }

  /// The request headers as the domain gets them: the caller's deadline capped (or the default
  /// when it set none; a live-update stream keeps the caller's), and a request id. Both change
  /// from call to call, so they are sent without HPACK indexing: indexed, they would fill the
  /// encoder's dynamic table, which it searches entry by entry for every header. With them, a
  /// unary call's deadline as the domain gets it (nil for a stream).
  func upstreamHeaders(_ headers: HPACKHeaders, streaming: Bool) -> (headers: HPACKHeaders, timeout: Duration?) {
    var headers = headers
    var timeout: Duration?
    if !streaming {
      let capped = self.timeout(headers)
      headers.replaceOrAdd(name: "grpc-timeout", value: Self.timeoutHeader(capped), indexing: .nonIndexable)
      timeout = capped
    }
    let id = RequestID.accept(headers.first(name: RequestID.metadataKey))
    headers.replaceOrAdd(name: RequestID.metadataKey, value: id, indexing: .nonIndexable)
    return (headers, timeout)
  }

  /// An upstream's response headers as the client gets them: the request id it echoes is sent
  /// without HPACK indexing (see `upstreamHeaders`).
  static func clientHeaders(_ headers: HPACKHeaders) -> HPACKHeaders {
    guard let id = headers.first(name: RequestID.metadataKey) else { return headers }
    var headers = headers
    headers.replaceOrAdd(name: RequestID.metadataKey, value: id, indexing: .nonIndexable)
    return headers
  }

  /// A gRPC timeout header for `duration`: at most eight digits, in the finest unit that fits.
  static func timeoutHeader(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    if microseconds < 100_000_000 { return "\(max(microseconds, 1))u" }
    let milliseconds = microseconds / 1000
    if milliseconds < 100_000_000 { return "\(milliseconds)m" }
    return "\(min(seconds, 99_999_999))S"
  }
}
