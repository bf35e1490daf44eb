import Foundation
import SwiftProtobuf
import IntentMeshProtos
@testable import IntentsKit
import MessagingProtos
import Testing
@testable import ServiceKit
@testable import IntentMeshCore

@Suite("Resolution results")
struct ResolutionResultTests {
  @Test("every kind has its wire form")
  func wireForms() throws {
    let person = Intentmesh_V1_Person.with { $0.displayName = "Celestra" }
    #expect(try ResolutionResult.success(person).proto().success.value.displayText == "Celestra")
    let options = try ResolutionResult.disambiguation([person, person], prompt: "Which one?").proto()
    #expect(options.disambiguation.options.count == 2)
    #expect(options.disambiguation.prompt == "Which one?")
    #expect(try ResolutionResult<String>.needsValue(prompt: "To whom?").proto().needsValue.prompt == "To whom?")
    #expect(try ResolutionResult<String>.notRequired.proto().kind == .notRequired(.init()))
    let reason = ResolutionReason(
      Intentmesh_Messaging_V1_SendMessageRecipientUnsupportedReason.noAccount, "No account.")
    let unsupported = try ResolutionResult<String>.unsupported(reason).proto().unsupported.reason
    #expect(unsupported.name == "noAccount")
    #expect(unsupported.code == 1)
    #expect(unsupported.type == "intentmesh.messaging.v1.SendMessageRecipientUnsupportedReason")
    #expect(unsupported.message == "No account.")
    let confirm = try ResolutionResult.confirmationRequired("Rainbow", prompt: "Did you mean Rainbow?").proto()
    #expect(confirm.confirmationRequired.value.displayText == "Rainbow")
    #expect(try Google_Protobuf_StringValue(unpackingAny: confirm.confirmationRequired.value.value).value == "Rainbow")
  }

  @Test("array parameters need one result per element, or one parameter-level result")
  func arrayRule() throws {
    typealias Parameter = IntentParameter<TestDomain.Handler>
    func validate(_ results: [ResolutionResult<String>], elements: Int) throws {
      try Parameter.validate(Parameter.outcomes(of: results), elements: elements, keyPath: "x", intentClass: "I")
    }
    try validate([.success("a"), .success("b")], elements: 2)
    try validate([.needsValue()], elements: 0)
    try validate([.notRequired], elements: 3)
    #expect(throws: IntentMeshError.self) { try validate([.success("a")], elements: 2) }
    #expect(throws: IntentMeshError.self) { try validate([.needsValue(), .success("a")], elements: 2) }
  }

  @Test("a result taken apart: its wire form, whether it settles, whether it speaks for the whole array, its value")
  func outcomes() throws {
    typealias Parameter = IntentParameter<TestDomain.Handler>
    let reason = ResolutionReason(
      Intentmesh_Messaging_V1_SendMessageRecipientUnsupportedReason.noAccount, "No account.")
    let results: [ResolutionResult<String>] = [
      .success("a"), .disambiguation(["b", "c"]), .confirmationRequired("d"), .needsValue(), .notRequired,
      .unsupported(reason),
    ]
    let outcomes = try Parameter.outcomes(of: results)
    #expect(outcomes.map(\.isSettled) == [true, false, false, false, true, false])
    #expect(outcomes.map(\.isParameterLevel) == [false, false, false, true, true, false])
    #expect(outcomes.map(\.value) == ["a", nil, "d", nil, nil, nil])
    let kinds = outcomes.map { outcome -> String in
      switch outcome.proto.kind {
      case .success: "success"
      case .disambiguation(let options): "disambiguation \(options.options.count)"
      case .confirmationRequired: "confirmationRequired"
      case .needsValue: "needsValue"
      case .notRequired: "notRequired"
      case .unsupported(let unsupported): "unsupported \(unsupported.reason.name)"
      case nil: "none"
      }
    }
    #expect(
      kinds == [
        "success", "disambiguation 2", "confirmationRequired", "needsValue", "notRequired", "unsupported noAccount",
      ])
    #expect(outcomes.map(\.proto.success.value.displayText) == ["a", "", "", "", "", ""])
  }

  @Test(
    "response codes map to SiriKit's handling status",
    arguments: [
      ("unspecified", Intentmesh_V1_IntentHandlingStatus.unspecified),
      ("ready", .ready),
      ("inProgress", .inProgress),
      ("success", .success),
      ("failure", .failure),
      ("failureMessageServiceNotAvailable", .failure),
      ("failureRequiringAppLaunch", .deferredToApplication),
      ("failureRequiringAppLaunchNoServiceInArea", .deferredToApplication),
      ("continueInApp", .deferredToApplication),
    ])
  func handlingStatus(code: String, status: Intentmesh_V1_IntentHandlingStatus) {
    #expect(IntentHandlingStatusRule.status(forCodeNamed: code) == status)
  }

  @Test("generated enum cases carry SiriKit's names")
  func enumNames() {
    typealias Code = Intentmesh_Messaging_V1_SendMessageIntentResponse.Code
    #expect(EnumCaseName.of(Code.failureRequiringAppLaunch) == "failureRequiringAppLaunch")
    #expect(EnumCaseName.of(Code.UNRECOGNIZED(42)) == "unrecognized(42)")
    #expect(EnumCaseName.value(named: "ready", in: Code.self) == .ready)
    #expect(Intentmesh_Messaging_V1_SendMessageIntentResponse.ready.code == .ready)
    #expect(Intentmesh_Messaging_V1_SendMessageIntentResponse(code: .failure).handlingStatus == .failure)
  }

  @Test("case names are the same when asked again (kept after the first time), per enum type")
  func enumNamesKept() {
    typealias Code = Intentmesh_Messaging_V1_SendMessageIntentResponse.Code
    typealias Status = Intentmesh_V1_IntentHandlingStatus
    for _ in 0..<3 {
      #expect(EnumCaseName.of(Code.failureRequiringAppLaunch) == "failureRequiringAppLaunch")
      #expect(EnumCaseName.of(Code(rawValue: Code.failureRequiringAppLaunch.rawValue)!) == "failureRequiringAppLaunch")
      #expect(EnumCaseName.of(Code.UNRECOGNIZED(4242)) == "unrecognized(4242)")
      #expect(
        EnumCaseName.of(Status(rawValue: Code.failureRequiringAppLaunch.rawValue)!) != "failureRequiringAppLaunch")
      #expect(EnumCaseName.value(named: "ready", in: Code.self) == .ready)
      #expect(EnumCaseName.value(named: "noSuchCase", in: Code.self) == nil)
      #expect(EnumCaseName.value(named: "ready", in: Status.self) == .ready)
    }
  }
}
