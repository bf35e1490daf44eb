internal import GRPCCore
internal import Instrumentation

/// Reads W3C trace context (`traceparent`, `tracestate`) out of a call's gRPC metadata.
struct MetadataExtractor: Extractor {
  init() {}

  func extract(key: String, from carrier: Metadata) -> String? {
    carrier[stringValues: key].first(where: { _ in true })
  }
}

/// Writes W3C trace context into a call's gRPC metadata, replacing what was there.
struct MetadataInjector: Injector {
  init() {}

  func inject(_ value: String, forKey key: String, into carrier: inout Metadata) {
    carrier.replaceOrAddString(value, forKey: key)
  }
}
