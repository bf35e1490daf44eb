internal import NIOCore

/// Runs a task's jobs on one NIO event loop. A PostgreSQL transaction runs on the loop of the
/// connection it holds (`withTaskExecutorPreference`): each statement is written from that loop
/// and its answer resumes the transaction on it, in the same pass — where from Swift's shared
/// threads every statement cost two thread wake-ups (a write handed to the loop, the answer handed
/// back).
final class EventLoopTaskExecutor: TaskExecutor {
  private let loop: any EventLoop

  init(_ loop: any EventLoop) {
    self.loop = loop
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
