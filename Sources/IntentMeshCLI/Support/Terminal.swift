import Foundation

/// Unbuffered terminal output: prompts must reach a person (or a test driving stdin) before the
/// CLI waits for the answer.
enum Terminal {
  static func say(_ text: String, terminator: String = "\n") {
    FileHandle.standardOutput.write(Data((text + terminator).utf8))
  }
}
