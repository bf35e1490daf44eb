import Foundation
import IntentMeshProtos
@testable import IntentsKit
@testable import ListsAndNotes
import ListsAndNotesProtos
import SwiftProtobuf
import IntentsKitTesting
import Testing

@Suite("INCreateNoteIntent and INAppendToNoteIntent")
struct NotesTests {
  @Test("create: only a title makes an empty note; text and image content are stored; folders match or are made")
  func create() async throws {
    try await NotesFixture.with { fixture in
      let context = fixture.context()
      let missing = try await fixture.createNote.resolveTitle(intent: .init(), context: context)
      #expect(missing.needsValuePrompt == "What do you want to call it?")
      let empty = try await fixture.handle(fixture.createNote, .with { $0.title = spoken("Packing list") })
      #expect(empty.response.code == .success)
      #expect(empty.response.createdNote.title.spokenPhrase == "Packing list")
      #expect(empty.response.createdNote.contents.isEmpty)
      #expect(empty.response.createdNote.createdDateComponents.hour == 11)

      let folder = try await fixture.createNote.resolveGroupName(
        intent: .with { $0.groupName = spoken("rainbow") }, context: context)
      #expect(folder.successValue?.spokenPhrase == "Rainbow")
      let withText = try await fixture.handle(
        fixture.createNote,
        .with {
          $0.title = spoken("Stable plans"); $0.content = text("Bigger hay loft"); $0.groupName = spoken("rainbow")
        })
      #expect(withText.response.createdNote.groupName.spokenPhrase == "Rainbow")
      #expect(withText.response.createdNote.contents.first?.text == "Bigger hay loft")

      let image = NoteContent.with {
        $0.image = .with {
          $0.contentType = "image/png"; $0.data = Data([0x89, 0x50, 0x4E, 0x47])
        }
      }
      #expect(
        try await fixture.createNote.resolveContent(intent: .with { $0.content = image }, context: context).successValue
          == image)
      let withImage = try await fixture.handle(
        fixture.createNote,
        .with {
          $0.title = spoken("Sketch"); $0.content = image; $0.groupName = spoken("Art")
        })
      #expect(withImage.response.createdNote.contents.first?.image.data == Data([0x89, 0x50, 0x4E, 0x47]))
      let folders = try await fixture.store.read { try await TaskListRepository.folders(of: "diana", in: $0) }
      #expect(folders == ["Art", "Rainbow"])

      try await fixture.setVocabulary(.notebookItemGroupName, [("sparkle drawer", "Rainbow")])
      let vocabulary = try await fixture.createNote.resolveGroupName(
        intent: .with { $0.groupName = spoken("Sparkle Drawer") }, context: context)
      #expect(vocabulary.successValue?.spokenPhrase == "Rainbow")
    }
  }

  @Test("append: target by title or vocabulary; several → disambiguation; none → unsupported; protected → its code")
  func append() async throws {
    try await NotesFixture.with { fixture in
      let context = fixture.context()
      func resolve(_ title: String) async throws -> ResolutionResult<Note> {
        try await fixture.append.resolveTargetNote(
          intent: .with { $0.targetNote = .with { $0.title = spoken(title) } }, context: context)
      }
      #expect(try await resolve("unicorn ideas").successValue?.identifier == "note-ideas")
      #expect(try await resolve("Dragon plans").unsupportedReason?.message == "You have no note called Dragon plans.")
      let none = try await fixture.append.resolveTargetNote(intent: .init(), context: context)
      #expect(none.needsValuePrompt == "Which note?")
      try await fixture.setVocabulary(.notebookItemTitle, [("brainstorm", "note-ideas")])
      #expect(try await resolve("Brainstorm").successValue?.identifier == "note-ideas")
      _ = try await fixture.handle(fixture.createNote, .with { $0.title = spoken("Unicorn ideas") })
      #expect(try await resolve("Unicorn ideas").disambiguationOptions?.count == 2)

      let content = try await fixture.append.resolveContent(intent: .init(), context: context)
      #expect(content.needsValuePrompt == "What do you want to add?")
      let secret = AppendToNoteIntent.with {
        $0.targetNote = .with { $0.title = spoken("Secret stable codes") }; $0.content = text("Back door: 9876")
      }
      #expect(
        try await fixture.append.confirm(intent: secret, context: context).response.code
          == .failureCannotUpdatePasswordProtectedNote)
      #expect(
        try await fixture.handle(fixture.append, secret).response.code == .failureCannotUpdatePasswordProtectedNote)

      fixture.clock.advance(by: 60)
      let appended = try await fixture.handle(
        fixture.append,
        .with {
          $0.targetNote = .with { $0.identifier = "note-ideas" }; $0.content = text("Rainbow-proof saddle")
        })
      #expect(appended.response.code == .success)
      #expect(appended.response.note.contents.map(\.text) == ["Glitter-powered hoverboard", "Rainbow-proof saddle"])
      #expect(appended.response.note.modifiedDateComponents.minute == 1)
      let notes = try await fixture.store.read { try await NoteRepository.notes(of: "diana", in: $0) }
      #expect(notes.first { $0.id == "note-ideas" }?.contents.count == 2)
      #expect(notes.first { $0.id == "note-secret" }?.contents.map(\.text) == ["Gate: 1234"])
    }
  }
}
