@testable import Gateway
import Testing

/// `LargeRequestBudget`: what a connection's and a loop's budgets take, and what gives it back,
/// without sockets.
@Suite("LargeRequestBudget: large first messages held for a connection and for the process")
struct LargeRequestBudgetTests {
  typealias Budget = LargeRequestBudget

  static func reserve(_ bytes: Int, _ connection: Budget, _ loop: Budget, loops: Int = 2)
    -> Result<Budget.Reservation, Budget.Refused>
  {
    Budget.reserve(bytes, connection: connection, loop: loop, loops: loops)
  }

  @Test("within both budgets: reserved in both; past the connection's or the loop's: refused, naming which")
  func reserves() throws {
    let (connection, other, loop) = (Budget(limit: 10), Budget(limit: 10), Budget(limit: 15))
    let first = try Self.reserve(6, connection, loop).get()
    #expect(connection.reserved == 6 && loop.reserved == 6)
    #expect(throws: Budget.Refused(scope: .connection(limit: 10))) { try Self.reserve(5, connection, loop).get() }
    let second = try Self.reserve(4, connection, loop).get()
    #expect(connection.reserved == 10 && loop.reserved == 10)
    // Another connection has room of its own, but the loop's share of the process has not:
    // the limit named is the process's (two loops' shares).
    #expect(throws: Budget.Refused(scope: .process(limit: 30))) { try Self.reserve(6, other, loop).get() }
    #expect(other.reserved == 0 && loop.reserved == 10)
    let third = try Self.reserve(5, other, loop).get()
    #expect(loop.reserved == 15)
    withExtendedLifetime((first, second, third)) {}
  }

  @Test("given back by release() once (a second call does nothing), or when the reservation goes")
  func givesBack() throws {
    let (connection, loop) = (Budget(limit: 10), Budget(limit: 10))
    let released = try Self.reserve(7, connection, loop).get()
    released.release()
    released.release()
    #expect(connection.reserved == 0 && loop.reserved == 0)
    do {
      let dropped = try Self.reserve(9, connection, loop).get()
      #expect(connection.reserved == 9 && dropped.bytes == 9)
    }
    #expect(connection.reserved == 0 && loop.reserved == 0)
  }

  @Test("a budget holding nothing takes any one message, even one larger than its limit; the next waits")
  func loneMessage() throws {
    let (connection, loop) = (Budget(limit: 4), Budget(limit: 4))
    let large = try Self.reserve(9, connection, loop).get()
    #expect(connection.reserved == 9)
    #expect(throws: Budget.Refused(scope: .connection(limit: 4))) { try Self.reserve(1, connection, loop).get() }
    large.release()
    #expect(throws: Never.self) { try Self.reserve(1, connection, loop).get() }
  }
}
