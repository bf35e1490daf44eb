internal import IntentMeshProtos

/// What a domain's handlers are built over: the opened store and the app vocabulary of its
/// manifest (the synonyms of `AppIntentVocabulary.plist`, such as ride option names).
package struct DomainResources: Sendable {
  package var store: any IntentStore
  package var appVocabulary: AppIntentVocabularyPlist

  package init(store: any IntentStore, appVocabulary: AppIntentVocabularyPlist) {
    self.store = store
    self.appVocabulary = appVocabulary
  }
}
