#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Darwin)
  internal import Darwin
#endif
internal import Foundation

/// Folders and files only their owner can read: every user's messages and payments live in the
/// stores, and a domain's confirmation key with them, so the data folder is 0700 and each store, log
/// and key file 0600 — made so, and tightened when an earlier version left them open to others.
package enum PrivateFiles {
  /// Makes the folder at `path` and any missing parents with mode 0700. With `tighteningExisting`,
  /// an existing one of this user is tightened to 0700 — never a shared one (sticky, as /tmp), and
  /// only for a folder that is the service's own (its data folder), not one a store file sits in.
  package static func directory(_ path: String, tighteningExisting: Bool = false) throws {
    var made = ""
    for component in URL(fileURLWithPath: path).standardizedFileURL.path.split(
      separator: "/", omittingEmptySubsequences: true)
    {
      made += "/" + component
      if mkdir(made, 0o700) != 0, errno != EEXIST {
        throw PrivateFileError(path: made, operation: "create", code: errno)
      }
    }
    if tighteningExisting { try tighten(made, to: 0o700) }
  }

  /// Makes the file at `path` (empty) with mode 0600 if there is none; an existing one of this user
  /// is tightened to 0600. Its contents are never touched.
  package static func file(_ path: String) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw PrivateFileError(path: path, operation: "create", code: errno) }
    close(descriptor)
    try tighten(path, to: 0o600)
  }

  /// Drops the group and other bits of a file or folder this user owns; a sticky folder (shared,
  /// as /tmp) is left as it is.
  private static func tighten(_ path: String, to mode: mode_t) throws {
    var status = stat()
    guard stat(path, &status) == 0 else { throw PrivateFileError(path: path, operation: "stat", code: errno) }
    guard status.st_uid == geteuid(), status.st_mode & 0o077 != 0, status.st_mode & mode_t(S_ISVTX) == 0 else {
      return
    }
    guard chmod(path, mode) == 0 else { throw PrivateFileError(path: path, operation: "chmod", code: errno) }
  }
}

/// A private folder or file that could not be made.
package struct PrivateFileError: Error, CustomStringConvertible {
  let path: String
  let operation: String
  let code: Int32

  package var description: String { "cannot \(operation) \(path): errno \(code)" }
}
