"""User vocabulary (INVocabulary.setVocabularyStrings(_:of:)): one ordered set of phrases per user and
type, replaced as a whole, as the Swift runtime keeps it."""

#: Phrases longer than this many UTF-16 code units are discarded.
MAX_UTF16_UNITS = 1024


def entries(request):
    """The request's phrases to keep, in order — (phrase, identifier), trimmed, each once whatever its
    case — and how many were discarded (empty, or too long)."""
    given = [(text, "") for text in request.strings] + [
        (speakable.spoken_phrase, speakable.vocabulary_identifier) for speakable in request.speakables
    ]
    kept, seen, discarded = [], set(), 0
    for phrase, identifier in given:
        phrase = phrase.strip()
        if not phrase or len(phrase.encode("utf-16-le")) // 2 > MAX_UTF16_UNITS:
            discarded += 1
            continue
        if phrase.lower() in seen:  # "Moon Gallop" and "moon gallop " are one phrase
            continue
        seen.add(phrase.lower())
        kept.append((phrase, identifier))
    return kept, discarded


def replace(user_id, vocabulary_type, kept, database):
    """The user's whole set of `vocabulary_type`, replaced by `kept`."""
    database.execute(
        "DELETE FROM user_vocabulary WHERE user_id = ? AND vocabulary_type = ?", (user_id, vocabulary_type)
    )
    database.executemany(
        "INSERT INTO user_vocabulary (user_id, vocabulary_type, position, phrase, vocabulary_identifier)"
        " VALUES (?, ?, ?, ?, ?)",
        [(user_id, vocabulary_type, i, phrase, identifier) for i, (phrase, identifier) in enumerate(kept)],
    )
