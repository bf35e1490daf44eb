#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// libFuzzer's entry points. One binary holds every target; `INTENTMESH_FUZZ_TARGET` picks the one
/// a run drives (scripts/fuzz sets it). libFuzzer supplies `main`, so this executable is built only
/// with `--sanitize=fuzzer`.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
  _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
  guard let name = getenv("INTENTMESH_FUZZ_TARGET").map({ String(cString: $0) }),
    let target = FuzzTarget(rawValue: name)
  else {
    let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
    print("set INTENTMESH_FUZZ_TARGET to one of: \(names)")
    exit(2)
  }
  FuzzTarget.selected = target
  target.prepare()
  return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  let bytes = start.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
  FuzzTarget.selected?.run(bytes)
  return 0
}

/// The fuzz targets.
enum FuzzTarget: String, CaseIterable {
  /// The relay's connections: frames from a client and from an upstream, interleaved, with time.
  case relay
  /// The relay's routing from a request's first bytes: the route decision and the intent wire scan.
  case wireScan = "wire-scan"
  /// SiriKit-style key paths read out of a decoded intent.
  case keyPath = "key-path"
  /// The proto3 JSON reader and codec of the gateway's web side: JSON → binary → JSON, and back.
  case protoJSON = "proto-json"
  /// Every domain's payload decoding and Resolve, Confirm and ConfigureView of the decoded intent, in process.
  case domains

  nonisolated(unsafe) static var selected: FuzzTarget?

  func prepare() {
    switch self {
    case .relay: RelayFuzzTarget.prepare()
    case .wireScan: break
    case .keyPath: break
    case .protoJSON: ProtoJSONFuzzTarget.prepare()
    case .domains: DomainFuzzTarget.prepare()
    }
  }

  func run(_ bytes: [UInt8]) {
    switch self {
    case .relay: RelayFuzzTarget.run(bytes)
    case .wireScan: WireScanFuzzTarget.run(bytes)
    case .keyPath: KeyPathFuzzTarget.run(bytes)
    case .protoJSON: ProtoJSONFuzzTarget.run(bytes)
    case .domains: DomainFuzzTarget.run(bytes)
    }
  }
}
