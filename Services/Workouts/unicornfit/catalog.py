"""The workouts UnicornFit knows by name: the app's vocabulary (AppIntentVocabulary.plist, e.g.
"Colorlicious", said "colorlishus") and each user's own (SetUserVocabulary of workout activity
names: the workouts they made in the app). A spoken name matches a workout by any of its phrases
or pronunciations, ignoring case, accents and punctuation."""
import unicodedata
from dataclasses import dataclass

from intentmesh.v1 import manifest_pb2, types_pb2

WORKOUT_NAMES = manifest_pb2.VOCABULARY_STRING_TYPE_WORKOUT_ACTIVITY_NAME


def normalized(text):
    """"Colorlicious!" and "colorlicious" compare equal; so do "Rainbow-Run" and "rainbow run"."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    kept = "".join(c if c.isalnum() else " " for c in decomposed if not unicodedata.combining(c))
    return " ".join(kept.split())


@dataclass(frozen=True)
class Workout:
    """A workout by name: its identifier and the name to show, and every way it may be said."""

    identifier: str
    name: str
    phrases: tuple

    def speakable(self):
        return types_pb2.SpeakableString(spoken_phrase=self.name, vocabulary_identifier=self.identifier)


@dataclass(frozen=True)
class Match:
    """What a spoken name found: one workout for sure, a guess, several, or none."""

    exact: tuple
    partial: tuple


class Catalog:
    def __init__(self, app_workouts):
        self.app_workouts = tuple(app_workouts)

    @staticmethod
    def from_plist(vocabulary, parameter_name="INStartWorkoutIntent.workoutName"):
        """The workouts of AppIntentVocabulary.plist's ParameterVocabularies for `parameter_name`."""
        workouts = []
        for entry in vocabulary.get("ParameterVocabularies", []):
            if parameter_name not in entry.get("ParameterNames", []):
                continue
            for item in entry.get("ParameterVocabulary", []):
                synonyms = item.get("VocabularyItemSynonyms", [])
                phrases = []
                for synonym in synonyms:
                    phrases.append(synonym["VocabularyItemPhrase"])
                    if synonym.get("VocabularyItemPronunciation"):
                        phrases.append(synonym["VocabularyItemPronunciation"])
                if phrases:
                    workouts.append(Workout(item["VocabularyItemIdentifier"], phrases[0], tuple(phrases)))
        return Catalog(workouts)

    def workouts_of(self, user_id, database):
        """The app's workouts and the user's own, the user's first (they are what the user named)."""
        rows = database.execute(
            "SELECT phrase, vocabulary_identifier FROM user_vocabulary WHERE user_id = ? AND vocabulary_type = ?"
            " ORDER BY position",
            (user_id, WORKOUT_NAMES),
        ).fetchall()
        own = [Workout(row["vocabulary_identifier"] or row["phrase"], row["phrase"], (row["phrase"],)) for row in rows]
        return own + list(self.app_workouts)

    def match(self, spoken, workouts):
        wanted = normalized(spoken)
        exact, partial = [], []
        for workout in workouts:
            forms = [normalized(phrase) for phrase in workout.phrases]
            if wanted in forms:
                exact.append(workout)
            elif wanted and any(_contains_words(form, wanted) or _contains_words(wanted, form) for form in forms):
                partial.append(workout)
        return Match(tuple(_distinct(exact)), tuple(_distinct(partial)))


def _contains_words(longer, shorter):
    words = longer.split()
    needle = shorter.split()
    return bool(needle) and any(words[i : i + len(needle)] == needle for i in range(len(words) - len(needle) + 1))


def _distinct(workouts):
    seen, kept = set(), []
    for workout in workouts:
        if workout.identifier not in seen:
            seen.add(workout.identifier)
            kept.append(workout)
    return kept
