#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// A secret written to a new file that only its owner can read.
enum KeyFile {
  /// Writes `contents` to a file created at `path` with mode 0600; does nothing when it exists.
  static func createExclusively(_ path: String, contents: String) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    guard descriptor >= 0 else {
      if errno == EEXIST { return }
      throw KeySetError.unreadable("cannot create \(path): errno \(errno)")
    }
    defer { close(descriptor) }
    var bytes = Array(contents.utf8)
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeMutableBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
      guard count > 0 else { throw KeySetError.unreadable("cannot write \(path): errno \(errno)") }
      written += count
    }
    guard fsync(descriptor) == 0 else { throw KeySetError.unreadable("cannot sync \(path): errno \(errno)") }
  }
}

extension KeyFile {
  /// Replaces the file at `path` with `contents`, mode 0600: written whole to a new file beside it
  /// and renamed over it, so that no reader sees half of it and no other user ever can.
  static func replace(_ path: String, contents: String) throws {
    let fresh = "\(path).\(getpid()).new"
    unlink(fresh)
    try createExclusively(fresh, contents: contents)
    guard rename(fresh, path) == 0 else {
      unlink(fresh)
      throw KeySetError.unreadable("cannot replace \(path): errno \(errno)")
    }
  }
}
