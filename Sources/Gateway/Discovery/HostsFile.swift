/// The text of a hosts-format file: `address name [name …]` per line, `#` starting a comment.
/// Lines whose first word is not an IP address are skipped.
struct HostsFile: Sendable, Equatable {
  /// Lower-cased name → its addresses, in the file's order, without repeats.
  var addresses: [String: [String]] = [:]

  init(_ text: String) {
    for line in text.split(whereSeparator: \.isNewline) {
      let content = line.prefix { $0 != "#" }
      let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
      guard words.count >= 2, words[0].isIPAddress else { continue }
      for name in words.dropFirst() {
        let key = name.lowercased()
        if !addresses[key, default: []].contains(words[0]) { addresses[key, default: []].append(words[0]) }
      }
    }
  }
}
