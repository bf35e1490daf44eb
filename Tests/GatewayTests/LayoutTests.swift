@testable import IntentsKit
import Foundation
@testable import Gateway
import IntentMeshProtos
@testable import Messaging
import MessagingProtos
import SwiftProtobuf
import Testing

@Suite("Layout: the configureView sequence folded into sections")
struct LayoutTests {
  static func parameter(_ keyPath: String) -> Intentmesh_V1_Parameter {
    .with {
      $0.parameterClass = "INSendMessageIntent"; $0.keyPath = keyPath
    }
  }

  static func answer(
    configured: Bool, claims: [String] = [], width: Double = 300, height: Double = 80, values: [String: String] = [:]
  ) -> Intentmesh_V1_ConfigureViewResponse {
    .with {
      $0.configured = configured
      $0.configuredParameters = claims.map(parameter)
      $0.desiredSize = .with {
        $0.width = width; $0.height = height
      }
      $0.view = .with { $0.kind = "test" }
      $0.displayValues = values.map { key, text in
        .with {
          $0.parameter = parameter(key); $0.displayText = text
        }
      }
    }
  }

  @Test("the empty set may claim all the rest: one app section")
  func claimAll() {
    var fold = LayoutFold(display: .init())
    fold.add(nil, Self.answer(configured: true, claims: ["recipients", "content"]))
    #expect(fold.isClaimed(Self.parameter("recipients")) && fold.isClaimed(Self.parameter("content")))
    #expect(fold.sections.map(\.kind) == [.app])
    #expect(fold.sections[0].parameters.map(\.keyPath) == ["recipients", "content"])
  }

  @Test("declined parameters become default sections with their values; claims skip later asks")
  func mixed() {
    var fold = LayoutFold(
      display: .with {
        $0.maximumSize = .with {
          $0.width = 200; $0.height = 50
        }
      })
    fold.add(nil, Self.answer(configured: false))
    fold.add(Self.parameter("recipients"), Self.answer(configured: false, values: ["recipients": "Celestra"]))
    fold.add(Self.parameter("content"), Self.answer(configured: true, claims: ["speakableGroupName"]))
    #expect(fold.isClaimed(Self.parameter("speakableGroupName")))
    #expect(fold.sections.map(\.kind) == [.default, .app])
    #expect(fold.sections[0].displayValues.map(\.displayText) == ["Celestra"])
    #expect(fold.sections[1].parameters.map(\.keyPath) == ["content", "speakableGroupName"])
    #expect(fold.sections[1].size.width == 200 && fold.sections[1].size.height == 50)
  }

  @Test("a configured answer of zero size draws nothing but still claims")
  func hidden() {
    var fold = LayoutFold(display: .init())
    fold.add(nil, Self.answer(configured: true, claims: ["recipients"], width: 0, height: 0))
    #expect(fold.sections.isEmpty)
    #expect(fold.isClaimed(Self.parameter("recipients")))
  }

  @Test("Layout of a UnicornChat interaction: concurrent calls give the sequential layout; maps cards get defaults")
  func concurrentEqualsSequential() async throws {
    let interaction = Intentmesh_V1_Interaction.with {
      $0.identifier = "i-1"
      $0.intent = try! TestGateway.intent(
        "INSendMessageIntent",
        payload: SendMessageIntent.with {
          $0.recipients = [.with { $0.displayName = "Celestra" }]; $0.content = "Hi"
        })
      $0.intentHandlingStatus = .success
    }
    func layout(_ builder: LayoutBuilder, context: Intentmesh_V1_HostedViewContext) async throws
      -> Intentmesh_Gateway_V1_LayoutResponse
    {
      try await TestGateway.run(layouts: builder) { harness in
        try await harness.gatewayClient.layout(
          .with {
            $0.context = TestGateway.context
            $0.interactions = [interaction, interaction]
            $0.display = .with { $0.hostedViewContext = context }
          })
      }
    }
    let concurrent = try await layout(LayoutBuilder(concurrent: true), context: .siriSnippet)
    let sequential = try await layout(LayoutBuilder(concurrent: false), context: .siriSnippet)
    #expect(concurrent == sequential)
    #expect(concurrent.layouts.count == 2)
    #expect(concurrent.layouts[0].sections.map(\.kind) == [.app])
    #expect(
      concurrent.layouts[0].sections[0].parameters.map(\.keyPath) == ["recipients", "content", "speakableGroupName"])

    let maps = try await layout(LayoutBuilder(), context: .mapsCard)
    #expect(maps.layouts[0].sections.map(\.kind) == [.default, .default, .default])
    #expect(maps.layouts[0].sections.map { $0.displayValues.first?.displayText ?? "" } == ["Celestra", "Hi", ""])
  }
}
