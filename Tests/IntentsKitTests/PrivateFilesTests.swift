import Foundation
import IntentMeshCore
@testable import IntentsRuntime
import IntentsKitTesting
import ServiceKit
import SQLKit
import Testing

/// Every user's messages and payments, and the confirmation key, live in the stores: readable by
/// the service's own user only.
@Suite("Private files: folders 0700, stores and logs 0600, tightened when found open")
struct PrivateFilesTests {
  static func mode(_ path: String) throws -> Int {
    try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
  }

  static func scratch() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("private-\(UUID().uuidString)")
  }

  @Test("a folder and its missing parents are made 0700; an open one of this user is tightened; files 0600, kept whole")
  func foldersAndFiles() throws {
    let root = Self.scratch()
    defer { try? FileManager.default.removeItem(at: root) }
    let nested = root.appendingPathComponent("a/b")
    try PrivateFiles.directory(nested.path)
    #expect(try Self.mode(root.path) == 0o700)
    #expect(try Self.mode(nested.path) == 0o700)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: nested.path)
    try PrivateFiles.directory(nested.path)
    #expect(try Self.mode(nested.path) == 0o755, "an existing folder is the operator's unless asked")
    try PrivateFiles.directory(nested.path, tighteningExisting: true)
    #expect(try Self.mode(nested.path) == 0o700)
    // A shared folder (sticky, as /tmp) is never tightened.
    let shared = root.appendingPathComponent("shared").path
    try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
    try FileManager.default.setAttributes([.posixPermissions: 0o1777], ofItemAtPath: shared)
    try PrivateFiles.directory(shared, tighteningExisting: true)
    #expect(try Self.mode(shared) == 0o1777)
    let file = nested.appendingPathComponent("store.sqlite").path
    try PrivateFiles.file(file)
    #expect(try Self.mode(file) == 0o600)
    try Data("kept".utf8).write(to: URL(fileURLWithPath: file))
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
    try PrivateFiles.file(file)
    #expect(try Self.mode(file) == 0o600)
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "kept")
  }

  @Test(
    "a SQLite store's file, its log and the log's index are 0600 in a 0700 folder it made; an open old one is tightened; the folder of a store in /tmp is left alone"
  )
  func sqliteStore() async throws {
    let root = Self.scratch()
    defer { try? FileManager.default.removeItem(at: root) }
    let path = root.appendingPathComponent("data/payments.sqlite").path
    let store = try await SQLiteStore.open(path: path, logger: TestStore.quietLogger, readers: 1)
    try await store.write { try await $0.raw("CREATE TABLE t (x INTEGER)").run() }
    #expect(try Self.mode(root.appendingPathComponent("data").path) == 0o700)
    for file in [path, path + "-wal", path + "-shm"] { #expect(try Self.mode(file) == 0o600, "\(file)") }
    try await store.close()
    for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
      try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
    }
    let reopened = try await SQLiteStore.open(path: path, logger: TestStore.quietLogger, readers: 1)
    for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
      #expect(try Self.mode(file) == 0o600, "\(file)")
    }
    try await reopened.close()
    let temporary = FileManager.default.temporaryDirectory.path
    let before = try Self.mode(temporary)
    let loose = TemporaryDatabase.path(named: "private-files")
    defer { TemporaryDatabase.remove(loose) }
    try await SQLiteStore.open(path: loose, logger: TestStore.quietLogger, readers: 1).close()
    #expect(try Self.mode(temporary) == before)
    #expect(try Self.mode(loose) == 0o600)
  }
}

@Suite("A plaintext server beyond loopback says so")
struct PlaintextWarningTests {
  @Test("0.0.0.0 or a LAN address without TLS: a warning naming the host; loopback or TLS: none")
  func warning() {
    #expect(PlaintextWarning.message(host: "0.0.0.0", tls: false)?.contains("serving plaintext on 0.0.0.0") == true)
    #expect(PlaintextWarning.message(host: "10.0.0.5", tls: false) != nil)
    #expect(PlaintextWarning.message(host: "0.0.0.0", tls: true) == nil)
    for loopback in ["127.0.0.1", "::1", "localhost"] {
      #expect(PlaintextWarning.message(host: loopback, tls: false) == nil)
    }
  }
}
