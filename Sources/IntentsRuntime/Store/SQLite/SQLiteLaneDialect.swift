internal import SQLKit
internal import SQLiteKit

/// SQLiteKit's dialect with the bind placeholders made once: SQLiteKit's makes "?N" by string
/// interpolation for every parameter of every statement (an integer's description and a string
/// built from it, ~20 bound values a payment). Everything else is SQLiteKit's answer, forwarded.
struct SQLiteLaneDialect: SQLDialect {
  private let base = SQLiteDialect()

  /// "?1" … "?\(placeholderCount)"; a statement binding more makes the rest as SQLiteKit does.
  static let placeholderCount = 64
  private static let placeholders: [SQLRaw] = (1...placeholderCount).map { SQLRaw("?\($0)") }

  func bindPlaceholder(at position: Int) -> any SQLExpression {
    guard position >= 1, position <= Self.placeholderCount else { return base.bindPlaceholder(at: position) }
    return Self.placeholders[position - 1]
  }

  var name: String { base.name }
  var identifierQuote: any SQLExpression { base.identifierQuote }
  var literalStringQuote: any SQLExpression { base.literalStringQuote }
  var supportsAutoIncrement: Bool { base.supportsAutoIncrement }
  var autoIncrementClause: any SQLExpression { base.autoIncrementClause }
  var autoIncrementFunction: (any SQLExpression)? { base.autoIncrementFunction }
  func literalBoolean(_ value: Bool) -> any SQLExpression { base.literalBoolean(value) }
  var literalDefault: any SQLExpression { base.literalDefault }
  var supportsIfExists: Bool { base.supportsIfExists }
  var enumSyntax: SQLEnumSyntax { base.enumSyntax }
  var supportsDropBehavior: Bool { base.supportsDropBehavior }
  var supportsReturning: Bool { base.supportsReturning }
  var triggerSyntax: SQLTriggerSyntax { base.triggerSyntax }
  var alterTableSyntax: SQLAlterTableSyntax { base.alterTableSyntax }
  func customDataType(for dataType: SQLDataType) -> (any SQLExpression)? { base.customDataType(for: dataType) }
  func normalizeSQLConstraint(identifier: any SQLExpression) -> any SQLExpression {
    base.normalizeSQLConstraint(identifier: identifier)
  }
  var upsertSyntax: SQLUpsertSyntax { base.upsertSyntax }
  var unionFeatures: SQLUnionFeatures { base.unionFeatures }
  var sharedSelectLockExpression: (any SQLExpression)? { base.sharedSelectLockExpression }
  var exclusiveSelectLockExpression: (any SQLExpression)? { base.exclusiveSelectLockExpression }
  func nestedSubpathExpression(in column: any SQLExpression, for path: [String]) -> (any SQLExpression)? {
    base.nestedSubpathExpression(in: column, for: path)
  }
}
