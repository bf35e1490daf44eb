import Foundation
import IntentsKitTesting

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An HTTP/1.1 client on a blocking loopback socket that writes exactly the bytes it is given and
/// reads one response at a time (Content-Length or chunked): what curl and browsers send to the
/// gateway's public port, and what a slow or hostile peer sends.
final class RawHTTP1Connection: RawLoopbackConnection, @unchecked Sendable {
  struct Response: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name }?.1 }
    var text: String { String(decoding: body, as: UTF8.self) }
  }

  /// The bytes of a request with a Content-Length body.
  static func request(
    _ method: String = "POST", _ path: String, headers: [(String, String)] = [], body: [UInt8] = []
  ) -> [UInt8] {
    var head = "\(method) \(path) HTTP/1.1\r\nhost: 127.0.0.1\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    if method != "GET" && method != "OPTIONS" || !body.isEmpty { head += "content-length: \(body.count)\r\n" }
    return Array((head + "\r\n").utf8) + body
  }

  /// Sends a request and reads its response.
  func call(
    _ method: String = "POST", _ path: String, headers: [(String, String)] = [], body: [UInt8] = [],
    within seconds: Double = 10
  ) throws -> Response {
    write(Self.request(method, path, headers: headers, body: body))
    return try readResponse(within: seconds)
  }

  /// A JSON POST, as `curl -H 'content-type: application/json' -d BODY` sends it.
  func json(_ path: String, _ body: String, headers: [(String, String)] = []) throws -> Response {
    try call("POST", path, headers: [("content-type", "application/json")] + headers, body: Array(body.utf8))
  }

  func readResponse(within seconds: Double = 10) throws -> Response {
    let deadline = Date().addingTimeInterval(seconds)
    var response = try readHead(until: deadline)
    if let length = response.header("content-length").flatMap(Int.init) {
      _ = try readUntil(deadline) { $0.count >= length ? length : nil }
      response.body = Array(received.prefix(length))
      received.removeFirst(length)
    } else if response.header("transfer-encoding") == "chunked" {
      while true {
        let lineEnd = try readUntil(deadline) { Self.find([13, 10], in: $0).map { $0 + 2 } }
        let size = Int(String(decoding: received[..<(lineEnd - 2)], as: UTF8.self), radix: 16) ?? 0
        received.removeFirst(lineEnd)
        _ = try readUntil(deadline) { $0.count >= size + 2 ? size + 2 : nil }
        response.body += received.prefix(size)
        received.removeFirst(size + 2)
        if size == 0 { break }
      }
    }
    return response
  }

  /// The next chunk of a chunked body whose head `readHead` read (empty: the last one), as it comes.
  func readChunk(within seconds: Double = 10) throws -> [UInt8] {
    let deadline = Date().addingTimeInterval(seconds)
    let lineEnd = try readUntil(deadline) { Self.find([13, 10], in: $0).map { $0 + 2 } }
    let size = Int(String(decoding: received[..<(lineEnd - 2)], as: UTF8.self), radix: 16) ?? 0
    received.removeFirst(lineEnd)
    _ = try readUntil(deadline) { $0.count >= size + 2 ? size + 2 : nil }
    let chunk = Array(received.prefix(size))
    received.removeFirst(size + 2)
    return chunk
  }

  /// The status and headers of the next response, its body left to come (a stream that stays open).
  func readHead(within seconds: Double = 10) throws -> Response {
    try readHead(until: Date().addingTimeInterval(seconds))
  }

  private func readHead(until deadline: Date) throws -> Response {
    let headEnd = try readUntil(deadline) { bytes in Self.find([13, 10, 13, 10], in: bytes).map { $0 + 4 } }
    let head = String(decoding: received[..<headEnd], as: UTF8.self)
    received.removeFirst(headEnd)
    var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
    guard !lines.isEmpty, let status = Int(lines.removeFirst().split(separator: " ").dropFirst().first ?? "") else {
      throw Failure.malformed(head)
    }
    let headers = lines.compactMap { line -> (String, String)? in
      guard let colon = line.firstIndex(of: ":") else { return nil }
      return (
        String(line[..<colon]).lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      )
    }
    return Response(status: status, headers: headers, body: [])
  }

  private func readUntil(_ deadline: Date, _ done: ([UInt8]) -> Int?) throws -> Int {
    while true {
      if let end = done(received) { return end }
      guard Date() < deadline else { throw Failure.timedOut }
      if readSome() == .closed { throw Failure.closed }
    }
  }

  private static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
    guard bytes.count >= needle.count else { return nil }
    for start in 0...(bytes.count - needle.count) where Array(bytes[start..<start + needle.count]) == needle {
      return start
    }
    return nil
  }
}

/// Runs blocking socket work on a thread of its own, off Swift's cooperative pool: the servers
/// under test answer web requests in tasks on that pool, which a blocked test thread would starve
/// (the pool has one thread per core).
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try body() }) }.start()
  }
}
