internal import SwiftProtobuf
package import IntentMeshProtos

extension Intentmesh_V1_ViewNode {
  /// A run of text with a style role, showing `parameter` when given.
  package static func text(_ text: String, role: String = "", parameter: String = "") -> Self {
    .with {
      $0.text = .with { $0.text = text }
      $0.role = role
      $0.parameterKeyPath = parameter
    }
  }

  /// A stack of nodes.
  package static func stack(_ axis: Intentmesh_V1_ViewNode.Stack.Axis, _ children: [Self], role: String = "") -> Self {
    .with {
      $0.stack = .with {
        $0.axis = axis
        $0.children = children
      }
      $0.role = role
    }
  }

  /// A label and a value on one line.
  package static func row(_ label: String, _ value: String, parameter: String = "") -> Self {
    .with {
      $0.row = .with {
        $0.label = label
        $0.value = value
      }
      $0.parameterKeyPath = parameter
    }
  }
}

extension Intentmesh_V1_Parameter {
  /// The parameters at `keyPaths` of `intentClass`: what a view claims to draw.
  package static func claims(of intentClass: String, _ keyPaths: [String]) -> [Intentmesh_V1_Parameter] {
    keyPaths.map { keyPath in
      .with {
        $0.parameterClass = intentClass
        $0.keyPath = keyPath
      }
    }
  }
}
