internal import NIOCore
internal import NIOPosix

/// Runs each job on the event loop of the thread that enqueues it — a call resumed by its
/// connection's reads runs on that connection's loop, and its writes reach the channel without
/// leaving the thread — or, when enqueued from any other thread (a timer, the group-commit thread),
/// on the group's next loop. Jobs run in place between the loop's I/O, so they must not block.
final class LoopLocalTaskExecutor: TaskExecutor {
  private let group: MultiThreadedEventLoopGroup

  init(group: MultiThreadedEventLoopGroup) {
    self.group = group
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? group.next()
    loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
