internal import ServiceLifecycle

/// Runs the directory until graceful shutdown; it stops after the server has drained.
struct DirectoryService: Service {
  let directory: DomainDirectory

  func run() async throws {
    await cancelWhenGracefulShutdown {
      await directory.run()
    }
  }
}
