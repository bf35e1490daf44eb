#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif

/// The web app the gateway serves at `/`: the files embedded from Web/ (`WebAssets`), or those of
/// a folder given with `--web-root` (to edit the page without rebuilding). Only flat file names
/// with a known extension are served; nothing outside the folder can be named.
struct WebPages: Sendable {
  /// A folder to serve instead of the embedded files.
  let root: String?

  init(root: String? = nil) {
    self.root = root
  }

  struct Page: Equatable {
    var contentType: String
    var body: [UInt8]
    /// nil for files read from --web-root: each load reads them afresh.
    var etag: String?
  }

  static let contentTypes = [
    "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
    "svg": "image/svg+xml", "json": "application/json",
  ]

  /// The file a path names: `/` is `index.html`; `/name.ext` a file of the app; nil for anything
  /// else (a deeper path, a hidden file, an unknown extension).
  static func fileName(for path: String) -> String? {
    let name = path == "/" ? "index.html" : String(path.dropFirst())
    guard path.hasPrefix("/"), !name.isEmpty, !name.contains("/"), !name.hasPrefix("."),
      let dot = name.lastIndex(of: "."), contentTypes[String(name[name.index(after: dot)...])] != nil
    else { return nil }
    return name
  }

  /// The page at `path`, or nil.
  func page(for path: String) -> Page? {
    guard let name = Self.fileName(for: path) else { return nil }
    let type = Self.contentTypes[String(name[name.index(after: name.lastIndex(of: ".")!)...])]!
    if let root {
      guard let data = try? Data(contentsOf: URL(fileURLWithPath: root).appendingPathComponent(name)) else {
        return nil
      }
      return Page(contentType: type, body: [UInt8](data), etag: nil)
    }
    guard let file = WebAssets.files[name] else { return nil }
    return Page(contentType: file.contentType, body: Array(file.text.utf8), etag: "\"\(WebAssets.version)\"")
  }

  /// Headers every page goes with: no framing by others, scripts and styles from this origin only,
  /// calls to this origin only, revalidated on each load.
  static let securityHeaders = [
    (
      "content-security-policy",
      "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    ),
    ("x-content-type-options", "nosniff"), ("referrer-policy", "no-referrer"), ("cache-control", "no-cache"),
  ]
}
