import Foundation
import IntentsKitTesting

#if canImport(Glibc)
  import Glibc
#endif

/// Reads a service's Prometheus metrics the way a scraper does: `GET /metrics` over HTTP/1.1.
enum MetricsScrape {
  /// The metrics port a service printed ("… metrics on http://127.0.0.1:PORT/metrics").
  static func port(in log: String) -> Int? {
    guard let line = log.split(separator: "\n").first(where: { $0.contains(" metrics on http://") }),
      let address = line.split(separator: "/").dropFirst(1).first
    else { return nil }
    return address.split(separator: ":").last.flatMap { Int($0) }
  }

  /// The status line and body of `GET path` on `host`:`port`.
  static func get(host: String = "127.0.0.1", port: Int, path: String = "/metrics") throws -> (
    status: String, body: String
  ) {
    guard let fd = LoopbackSocket.connect(host: host, port: port) else {
      throw ServiceProcess.Failure(description: "cannot connect to metrics port \(port)")
    }
    defer { close(fd) }
    // A service that never answers fails this read in 10 s instead of blocking the test.
    var limit = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count <= 0 { break }
      response.append(contentsOf: buffer[0..<count])
    }
    let text = String(decoding: response, as: UTF8.self)
    guard let split = text.range(of: "\r\n\r\n") else {
      throw ServiceProcess.Failure(description: "no HTTP response: \(text)")
    }
    let status = text[..<split.lowerBound].split(separator: "\r\n").first.map(String.init) ?? ""
    return (status, String(text[split.upperBound...]))
  }

  /// The value of the sample whose name and labels contain every one of `parts`, if any.
  static func value(in body: String, _ parts: String...) -> Double? {
    body.split(separator: "\n").first { line in !line.hasPrefix("#") && parts.allSatisfy { line.contains($0) } }
      .flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
  }
}
