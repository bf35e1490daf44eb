extension StringProtocol {
  /// The string without the whitespace (spaces, tabs, newlines) at either end.
  package func trimmingWhitespace() -> String {
    guard let first = firstIndex(where: { !$0.isWhitespace }),
      let last = lastIndex(where: { !$0.isWhitespace })
    else { return "" }
    return String(self[first...last])
  }
}
