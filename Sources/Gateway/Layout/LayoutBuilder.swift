internal import SwiftProtobuf
internal import IntentMeshProtos

/// Runs SiriKit's view sequence against the owning domain and folds the answers into one ordered
/// layout: configureView with the empty set first, then each parameter in the domain's declared
/// order, skipping parameters already claimed.
///
/// Every answer depends only on its own inputs (each call goes to a fresh view controller), so the
/// calls are issued concurrently and folded in order afterwards: the result is the sequential one.
struct LayoutBuilder: Sendable {
  /// Whether to issue the calls concurrently (the default) or one by one, skipping claimed ones.
  var concurrent: Bool

  init(concurrent: Bool = true) {
    self.concurrent = concurrent
  }

  func layout(
    of interaction: Intentmesh_V1_Interaction,
    context: Intentmesh_V1_RequestContext,
    display: Intentmesh_Gateway_V1_Display,
    call: DomainCall
  ) async throws -> Intentmesh_Gateway_V1_InteractionLayout {
    let order = Self.order(call.route.declaration)
    let configure: @Sendable ([Intentmesh_V1_Parameter]) async throws -> Intentmesh_V1_ConfigureViewResponse = {
      parameters in
      try await call.configureView(
        .with {
          $0.context = context
          $0.interaction = interaction
          $0.parameters = parameters
          $0.interactiveBehavior = display.interactiveBehavior
          $0.hostedViewContext = display.hostedViewContext
          $0.minimumSize = display.minimumSize
          $0.maximumSize = display.maximumSize
        })
    }
    var folder = LayoutFold(display: display)
    if concurrent {
      let answers = try await withThrowingTaskGroup(of: (Int, Intentmesh_V1_ConfigureViewResponse).self) { group in
        group.addTask { (-1, try await configure([])) }
        for (index, parameter) in order.enumerated() {
          group.addTask { (index, try await configure([parameter])) }
        }
        var answers: [Int: Intentmesh_V1_ConfigureViewResponse] = [:]
        for try await (index, answer) in group { answers[index] = answer }
        return answers
      }
      folder.add(nil, answers[-1]!)
      for (index, parameter) in order.enumerated() where !folder.isClaimed(parameter) {
        folder.add(parameter, answers[index]!)
      }
    } else {
      folder.add(nil, try await configure([]))
      for parameter in order where !folder.isClaimed(parameter) {
        folder.add(parameter, try await configure([parameter]))
      }
    }
    return .with {
      $0.interactionIdentifier = interaction.identifier
      $0.appName = call.route.appName
      $0.sections = folder.sections
    }
  }

  /// The declared view order, or the intent's parameters.
  static func order(_ declaration: Intentmesh_V1_IntentDeclaration) -> [Intentmesh_V1_Parameter] {
    if !declaration.viewParameters.isEmpty { return declaration.viewParameters }
    return declaration.parameters.map { parameter in
      .with {
        $0.parameterClass = declaration.intentClass
        $0.keyPath = parameter.keyPath
      }
    }
  }
}

/// The sequential fold of configureView answers into sections.
struct LayoutFold {
  let display: Intentmesh_Gateway_V1_Display
  private(set) var sections: [Intentmesh_Gateway_V1_LayoutSection] = []
  private var claimed: Set<String> = []

  init(display: Intentmesh_Gateway_V1_Display) {
    self.display = display
  }

  static func key(_ parameter: Intentmesh_V1_Parameter) -> String { "\(parameter.parameterClass)#\(parameter.keyPath)" }

  func isClaimed(_ parameter: Intentmesh_V1_Parameter) -> Bool { claimed.contains(Self.key(parameter)) }

  /// Adds the answer for `asked` (nil for the empty set).
  mutating func add(_ asked: Intentmesh_V1_Parameter?, _ answer: Intentmesh_V1_ConfigureViewResponse) {
    if answer.configured {
      var parameters = asked.map { [$0] } ?? []
      for parameter in answer.configuredParameters
      where !parameters.contains(where: { Self.key($0) == Self.key(parameter) }) {
        parameters.append(parameter)
      }
      let fresh = parameters.filter { !claimed.contains(Self.key($0)) }
      claimed.formUnion(parameters.map(Self.key))
      // A configured answer of zero size draws nothing (SiriKit hides the view) but still claims.
      guard answer.desiredSize.width > 0, answer.desiredSize.height > 0 else { return }
      let size = clamp(answer.desiredSize)
      sections.append(
        .with {
          $0.kind = .app
          $0.parameters = fresh
          $0.view = answer.view
          $0.size = size
          $0.displayValues = answer.displayValues.filter { value in
            fresh.contains { Self.key($0) == Self.key(value.parameter) }
          }
        })
    } else if let asked {
      claimed.insert(Self.key(asked))
      sections.append(
        .with {
          $0.kind = .default
          $0.parameters = [asked]
          $0.displayValues = answer.displayValues.filter { Self.key($0.parameter) == Self.key(asked) }
        })
    }
  }

  /// The app's desired size within the display's minimum and maximum (a zero bound is open).
  func clamp(_ desired: Intentmesh_V1_Size) -> Intentmesh_V1_Size {
    func bound(_ value: Double, _ minimum: Double, _ maximum: Double) -> Double {
      var result = max(value, minimum)
      if maximum > 0 { result = min(result, maximum) }
      return result
    }
    return .with {
      $0.width = bound(desired.width, display.minimumSize.width, display.maximumSize.width)
      $0.height = bound(desired.height, display.minimumSize.height, display.maximumSize.height)
    }
  }
}
