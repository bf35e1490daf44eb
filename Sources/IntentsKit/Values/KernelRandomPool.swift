#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif
internal import Synchronization

/// Random bytes from the kernel's generator, fetched a page at a time and handed out in order, each
/// byte once: unpredictable like every other read of that generator (what is handed out tells
/// nothing of what comes next), at three system calls per 256 stored-record identifiers.
/// Foundation's `UUID()` opens, reads and closes /dev/urandom for every one: nine calls a payment.
final class KernelRandomPool: Sendable {
  /// The pool the process's identifiers come from.
  static let shared = KernelRandomPool()

  private struct State: ~Copyable {
    var bytes: UnsafeMutableRawBufferPointer
    /// Where the next unused byte is; `bytes.count` when all are used.
    var position: Int
  }

  private let state: Mutex<State>
  private let size: Int

  /// A pool holding `size` bytes (a multiple of 16) at a time.
  init(size: Int = 4096) {
    precondition(size > 0 && size % 16 == 0, "the pool hands out 16 bytes at a time")
    self.size = size
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
    state = Mutex(State(bytes: bytes, position: size))
  }

  deinit {
    state.withLock { $0.bytes.deallocate() }
  }

  /// 128 bits never handed out before.
  func next128() -> (high: UInt64, low: UInt64) {
    state.withLock { state in
      if state.position == size {
        Self.fill(state.bytes)
        state.position = 0
      }
      let high = state.bytes.load(fromByteOffset: state.position, as: UInt64.self)
      let low = state.bytes.load(fromByteOffset: state.position + 8, as: UInt64.self)
      // Used bytes are not kept.
      state.bytes.baseAddress!.advanced(by: state.position).initializeMemory(as: UInt8.self, repeating: 0, count: 16)
      state.position += 16
      return (high, low)
    }
  }

  /// Fills `buffer` (a multiple of 16 bytes) from the kernel's generator: /dev/urandom, read whole
  /// (three system calls per fill); where it cannot be read, all of it anew from the standard
  /// library's source (`getrandom(2)` or `arc4random_buf`), 8 bytes a call.
  private static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
    var filled = 0
    let device = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
    if device >= 0 {
      defer { close(device) }
      while filled < buffer.count {
        let count = read(device, buffer.baseAddress! + filled, buffer.count - filled)
        if count > 0 {
          filled += count
        } else if count == 0 || errno != EINTR {
          break
        }
      }
    }
    guard filled < buffer.count else { return }
    var system = SystemRandomNumberGenerator()
    for offset in stride(from: 0, to: buffer.count, by: 8) {
      buffer.storeBytes(of: system.next(), toByteOffset: offset, as: UInt64.self)
    }
  }
}
