internal import Foundation
internal import GRPCCore
internal import IntentMeshProtos
internal import IntentsKit
internal import PaymentsProtos
internal import IntentMeshCore
internal import SQLKit
internal import SwiftProtobuf

/// `intentmesh.payments.v1.UnicornPayApp`: UnicornPay's app side. Every call acts as the caller's
/// verified identity (the bearer token's subject, checked by the server's
/// `AuthenticationInterceptor`); a user reads and changes only their own profile, accounts,
/// payees, payments and the requests sent to them.
struct UnicornPayAppService: Intentmesh_Payments_V1_UnicornPayApp.SimpleServiceProtocol {
  private let store: any IntentStore
  private let identifiers: any IdentifierGenerator
  private let now: @Sendable () -> Date

  init(
    store: any IntentStore, identifiers: any IdentifierGenerator, now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.store = store
    self.identifiers = identifiers
    self.now = now
  }

  private var milliseconds: Int64 { now().epochMilliseconds }

  func signUp(
    request: Intentmesh_Payments_V1_SignUpRequest, context: ServerContext
  ) async throws -> Intentmesh_Payments_V1_SignUpResponse {
    let userID = try UserIdentity.caller()
    let name = try AppInput.displayName(request.displayName)
    let handle = try AppInput.handle(request.handle)
    let currency = try Self.currency(request.homeCurrency.isEmpty ? "USD" : request.homeCurrency)
    let profile = StoredPaymentProfile(userID: userID, displayName: name, handle: handle, homeCurrency: currency)
    let account = StoredAccount(
      id: identifiers.next(), ownerID: userID, nickname: "UnicornPay Balance", accountNumber: Self.accountNumber(),
      type: .prepaid, organizationName: "UnicornPay", currency: currency, isDefault: true)
    let opened = try await store.write { database in
      try await PaymentsApp.signUp(profile, in: database)
      try await PaymentsApp.openAccount(account, at: milliseconds, in: database)
      return try await AccountRepository.account(account.id, in: database) ?? account
    }
    return .with {
      $0.profile = profile.appProfile
      $0.account = opened.appAccount
    }
  }

  func getProfile(
    request: Intentmesh_Payments_V1_GetProfileRequest, context: ServerContext
  ) async throws -> Intentmesh_Payments_V1_GetProfileResponse {
    let userID = try UserIdentity.caller()
    guard let profile = try await store.read({ try await StoredPaymentProfile.load(userID, in: $0) }) else {
      throw RPCError(code: .notFound, message: "\(userID) has no UnicornPay profile: SignUp first")
    }
    return .with { $0.profile = profile.appProfile }
  }

  func openAccount(
    request: Intentmesh_Payments_V1_OpenAccountRequest, context: ServerContext
  ) async throws -> Intentmesh_Payments_V1_OpenAccountResponse {
    let userID = try UserIdentity.caller()
    let nickname = try AppInput.displayName(request.nickname)
    guard [.checking, .saving, .prepaid].contains(request.type) else {
      throw RPCError(code: .invalidArgument, message: "UnicornPay opens checking, saving and prepaid accounts")
    }
    let currency = try Self.currency(request.currency)
    let organization =
      request.organizationName.isEmpty ? "UnicornPay" : try AppInput.displayName(request.organizationName)
    let account = StoredAccount(
      id: identifiers.next(), ownerID: userID, nickname: nickname, accountNumber: Self.accountNumber(),
      type: request.type,
      organizationName: organization, currency: currency, isDefault: request.makeDefault)
    let opened = try await store.write { database in
      _ = try await PaymentsApp.profile(of: userID, in: database)
      if try await AccountRepository.accounts(of: userID, in: database).contains(where: {
        $0.nickname.lowercased() == nickname.lowercased()
      }) {
        throw RPCError(code: .alreadyExists, message: "an account is already called \(nickname)")
      }
      try await PaymentsApp.openAccount(account, at: milliseconds, in: database)
      return try await AccountRepository.account(account.id, in: database) ?? account
    }
    return .with { $0.account = opened.appAccount }
  }

  func listAccounts(
    request: Intentmesh_Payments_V1_ListAccountsRequest, context: ServerContext
  ) async throws -> Intentmesh_Payments_V1_ListAccountsResponse {
    let userID = try UserIdentity.caller()
    let accounts = try await store.read { try await AccountRepository.accounts(of: userID, in: $0) }
    return .with { $0.accounts = accounts.map(\.appAccount) }
  }

  func addFunds(
    request: Intentmesh_Payments_V1_AddFundsRequest, context: ServerContext
  ) async throws -> Intentmesh_Payments_V1_AddFundsResponse {
    let userID = try UserIdentity.caller()
    let amount = try Self.amount(request.hasAmount ? request.amount : nil)
    let account = try await store.write { database in
      _ = try await PaymentsApp.profile(of: userID, in: database)
      return try await PaymentsApp.addFunds(
        amount, to: request.accountIdentifier, of: userID, movementID: identifiers.next(), at: milliseconds,
        in: database)
    }
    return .with { $0.account = account.appAccount }
  }

  func addPayee(
    request: Intentmesh_Payments_V1_AddPayeeRequest, context: ServerContext
  ) async throws -> Intentmesh_Payments_V1_AddPayeeResponse {
    let userID = try UserIdentity.caller()
    let given = request.payee
    let handle = try AppInput.handle(given.handle)
    let name = try AppInput.displayName(
      given.displayName.isEmpty
        ? [given.givenName, given.familyName].filter { !$0.isEmpty }.joined(separator: " ") : given.displayName)
    // A payee given by display name only is found by its first name too ("Ava").
    let words = name.split(separator: " ", maxSplits: 1).map(String.init)
    let named = !given.givenName.isEmpty || !given.familyName.isEmpty
    let payee = StoredPayee(
      id: identifiers.next(), displayName: name, givenName: named ? given.givenName : words[0],
      familyName: named ? given.familyName : (words.count > 1 ? words[1] : ""), handle: handle)
    let added = try await store.write { try await PaymentsApp.addPayee(payee, for: userID, in: $0) }
    return .with { $0.payee = added.appPayee }
  }

  func listPayees(
    request: Intentmesh_Payments_V1_ListPayeesRequest, context: ServerContext
  ) async throws -> Intentmesh_Payments_V1_ListPayeesResponse {
    let userID = try UserIdentity.caller()
    let payees = try await store.read { try await PayeeRepository.payees(of: userID, in: $0) }
    return .with { $0.payees = payees.map(\.appPayee) }
  }

  func listPayments(
    request: Intentmesh_Payments_V1_ListPaymentsRequest, context: ServerContext
  ) async throws -> Intentmesh_Payments_V1_ListPaymentsResponse {
    let userID = try UserIdentity.caller()
    guard (0...500).contains(request.limit) else {
      throw RPCError(code: .invalidArgument, message: "limit \(request.limit) is not within 1–500 (0: 100)")
    }
    let limit = request.limit == 0 ? 100 : Int(request.limit)
    let records = try await store.read { try await PaymentRecordRepository.latest(limit, of: userID, in: $0) }
    return .with { $0.payments = records.map(\.appPayment) }
  }

  func listRequests(
    request: Intentmesh_Payments_V1_ListRequestsRequest, context: ServerContext
  ) async throws -> Intentmesh_Payments_V1_ListRequestsResponse {
    let userID = try UserIdentity.caller()
    let (bills, requests) = try await store.read { database in
      (
        try await BillRepository.bills(of: userID, in: database).filter(\.isRequest),
        try await PaymentRecordRepository.requests(askedOf: userID, in: database)
      )
    }
    let byID = Dictionary(requests.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    let listed = bills.filter { !request.pendingOnly || $0.status == .unpaid }
      .map { $0.appRequest(byID[$0.requestID]) }
      .sorted { ($0.createdAtMs, $0.identifier) > ($1.createdAtMs, $1.identifier) }
    return .with { $0.requests = listed }
  }

  func payRequest(
    request: Intentmesh_Payments_V1_PayRequestRequest, context: ServerContext
  ) async throws -> Intentmesh_Payments_V1_PayRequestResponse {
    let userID = try UserIdentity.caller()
    let time = now()
    let (bill, record, account) = try await store.write { database in
      let bill = try await Self.requestBill(request.identifier, of: userID, in: database)
      let profile = try await PaymentsApp.profile(of: userID, in: database)
      guard let payer = ProfileCheck.check(profile).readyProfile else {
        throw RPCError(
          code: .failedPrecondition, message: "\(userID) cannot pay yet: sign in, verify and accept the terms first")
      }
      guard
        let source = try await UserPayment.receivingAccount(
          of: userID, currency: bill.amountDue.currency, in: database)
      else {
        throw RPCError(
          code: .failedPrecondition, message: "no default account in \(bill.amountDue.currency) to pay from")
      }
      do {
        try await PaymentRequests.pay(
          bill, by: payer, from: source, identifiers: identifiers, now: time, timeZone: .gmt, in: database)
      } catch let failure as PaymentRequests.Failure {
        throw RPCError(code: .failedPrecondition, message: failure.description)
      } catch Ledger.Failure.wouldOverdraw {
        throw RPCError(
          code: .failedPrecondition, message: "\(source.nickname) does not hold \(bill.amountDue) to pay it")
      }
      return (
        try await BillRepository.bill(bill.id, of: userID, in: database) ?? bill,
        try await PaymentRecordRepository.record(bill.requestID, in: database),
        try await AccountRepository.account(source.id, in: database) ?? source
      )
    }
    return .with {
      $0.request = bill.appRequest(record)
      $0.account = account.appAccount
    }
  }

  func declineRequest(
    request: Intentmesh_Payments_V1_DeclineRequestRequest, context: ServerContext
  ) async throws -> Intentmesh_Payments_V1_DeclineRequestResponse {
    let userID = try UserIdentity.caller()
    let (bill, record) = try await store.write { database in
      let bill = try await Self.requestBill(request.identifier, of: userID, in: database)
      do {
        try await PaymentRequests.decline(bill, in: database)
      } catch let failure as PaymentRequests.Failure {
        throw RPCError(code: .failedPrecondition, message: failure.description)
      }
      return (
        try await BillRepository.bill(bill.id, of: userID, in: database) ?? bill,
        try await PaymentRecordRepository.record(bill.requestID, in: database)
      )
    }
    return .with { $0.request = bill.appRequest(record) }
  }

  // MARK: Input

  /// The request bill `id` of the caller: NOT_FOUND when it is not theirs (or no request);
  /// FAILED_PRECONDITION when it is no longer pending.
  private static func requestBill(_ id: String, of userID: String, in database: any SQLDatabase) async throws
    -> StoredBill
  {
    guard !id.isEmpty, let bill = try await PaymentRequests.bill(id, of: userID, in: database) else {
      throw RPCError(code: .notFound, message: "\(userID) has no payment request \"\(id.prefix(60))\"")
    }
    guard bill.status == .unpaid else {
      throw RPCError(code: .failedPrecondition, message: "the payment request \(id) is no longer pending")
    }
    return bill
  }

  /// A new account's number, "UP-1234-5678": shown masked to its last four digits.
  static func accountNumber() -> String {
    "UP-\(Int.random(in: 1000...9999))-\(Int.random(in: 1000...9999))"
  }

  /// An ISO 4217 code UnicornPay keeps, as given.
  static func currency(_ code: String) throws -> String {
    guard PaymentLimits.unicornPay.currencies.contains(code) else {
      throw RPCError(
        code: .invalidArgument,
        message: "\"\(code.prefix(10))\" is no currency UnicornPay keeps: "
          + PaymentLimits.unicornPay.currencies.joined(separator: ", "))
    }
    return code
  }

  /// An exact amount within UnicornPay's payment limits.
  static func amount(_ given: Intentmesh_V1_CurrencyAmount?) throws -> Money {
    switch AmountCheck.check(given) {
    case .valid(let money): return money
    case .missing: throw RPCError(code: .invalidArgument, message: "an amount is required")
    case .missingCurrency: throw RPCError(code: .invalidArgument, message: "the amount has no currency code")
    case .violation(let violation):
      throw RPCError(code: .invalidArgument, message: PaymentLimits.unicornPay.message(for: violation))
    case .invalid(let message): throw RPCError(code: .invalidArgument, message: message)
    }
  }
}
