import Foundation

/// A domain service `intentmesh up` starts. Every domain, whatever its language, takes the same
/// arguments (`--host`, `--port`, `--database`, `--jwks`) and prints "… serving on HOST:PORT" when
/// it serves.
struct DomainLaunch: Sendable {
  /// Where its executable is.
  enum Program: Sendable {
    /// A Swift product built beside `intentmesh`, named as the service.
    case product
    /// An executable file in the checkout, by its path from the checkout's root (a domain written
    /// in another language, e.g. "Services/Workouts/workouts-service").
    case script(String)
  }

  struct NotFound: Error {
    let message: String
  }

  let name: String
  /// Its port's distance from the gateway's.
  let offset: Int
  /// Its SQLite file in the data folder.
  let database: String
  let program: Program

  /// The executable: a product in `bin`; a script in the first folder at or above `bin` or the
  /// working directory that holds it.
  func locate(besides bin: URL) -> Result<URL, NotFound> {
    switch program {
    case .product:
      return .success(bin.appendingPathComponent(name))
    case .script(let path):
      let starts = [bin, URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
      for start in starts {
        var folder = start.standardizedFileURL
        while true {
          let candidate = folder.appendingPathComponent(path)
          if FileManager.default.isExecutableFile(atPath: candidate.path) { return .success(candidate) }
          let parent = folder.deletingLastPathComponent()
          if parent.path == folder.path { break }
          folder = parent
        }
      }
      return .failure(
        NotFound(
          message:
            "\(path) is not in a folder above \(bin.path) or the working directory (run up from the checkout, or pass --without \(name))"
        ))
    }
  }
}
