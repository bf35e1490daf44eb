internal import NIOHPACK
internal import ServiceKit
internal import Tracing

/// The gateway's hop of a call it relays to a domain, as a span: a child of the client's W3C
/// `traceparent` (or the root of a new trace), named "package.Service/Method", with the intent
/// class and the replica it went to; the domain continues it (the upstream request's
/// `traceparent` is this span). A web call's span says its protocol: `rpc.system` is
/// `connect_rpc` for Connect (OpenTelemetry's name), `grpc` for gRPC-Web, and
/// `intentmesh.web.protocol` and `intentmesh.web.codec` name the exact form. Made only when
/// tracing is on. Used on the call's event loop.
struct RelayTrace {
  let span: any Span

  /// The span of a call to `path` from a client that sent `headers`, going to `endpoint`; nil when
  /// tracing is off.
  /// `web`: the form of a Connect or gRPC-Web call (nil: gRPC).
  static func start(
    path: String, headers: HPACKHeaders, endpoint: DomainEndpoint, intentClass: String?,
    web: ConnectRequestKind? = nil
  ) -> RelayTrace? {
    guard TraceExport.isEnabled else { return nil }
    var parent = ServiceContext.topLevel
    InstrumentationSystem.instrument.extract(headers, into: &parent, using: HPACKExtractor())
    let name = path.hasPrefix("/") ? String(path.dropFirst()) : path
    let span = InstrumentationSystem.tracer.startSpan(name, context: parent, ofKind: .server)
    let parts = name.split(separator: "/")
    span.attributes["rpc.system"] = web?.rpcSystem ?? "grpc"
    if let web {
      span.attributes["intentmesh.web.protocol"] = web.protocolName
      span.attributes["intentmesh.web.codec"] = web.codec == .json ? "json" : "proto"
    }
    if parts.count == 2 {
      span.attributes["rpc.service"] = String(parts[0])
      span.attributes["rpc.method"] = String(parts[1])
    }
    span.attributes["intentmesh.relay.upstream"] = endpoint.description
    if let intentClass { span.attributes["intentmesh.intent_class"] = intentClass }
    return RelayTrace(span: span)
  }

  /// Makes this span the parent in the headers sent upstream.
  func inject(into headers: inout HPACKHeaders) {
    InstrumentationSystem.instrument.inject(span.context, into: &headers, using: HPACKInjector())
  }

  /// Ends the span with the call's `grpc-status` and `grpc-message` (nil: none came, e.g. the
  /// stream ended with DATA); `note` says why the relay let go of it otherwise.
  func end(status: String?, message: String? = nil, note: String? = nil) {
    if let status, let code = Int(status) {
      span.attributes["rpc.grpc.status_code"] = code
      if code != 0 {
        // As sent: gRPC percent-encodes only what is not printable ASCII.
        span.setStatus(SpanStatus(code: .error, message: message ?? "grpc-status \(code)"))
      }
    }
    if let note { span.addEvent(SpanEvent(name: note)) }
    span.end()
  }
}

/// Reads trace context out of HTTP/2 request headers.
struct HPACKExtractor: Extractor {
  func extract(key: String, from carrier: HPACKHeaders) -> String? {
    carrier.first(name: key)
  }
}

/// Writes trace context into HTTP/2 request headers, never HPACK-indexed (it changes every call).
struct HPACKInjector: Injector {
  func inject(_ value: String, forKey key: String, into carrier: inout HPACKHeaders) {
    carrier.replaceOrAdd(name: key, value: value, indexing: .nonIndexable)
  }
}
