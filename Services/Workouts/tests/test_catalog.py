"""catalog: names as said, the app's vocabulary from the real plist, matching, the user's own names."""
import pytest

from conftest import ALICE, BOB
from unicornfit.catalog import WORKOUT_NAMES, Catalog, Workout, normalized


@pytest.mark.parametrize(
    "said, expected",
    [
        ("Colorlicious!", "colorlicious"),
        ("Rainbow-Run", "rainbow run"),
        ("  Hoof   Sprint\t", "hoof sprint"),
        ("Ünicorn Yóga", "unicorn yoga"),
        ("STRASSE straße", "strasse strasse"),
        ("!!!", ""),
    ],
)
def test_normalized_ignores_case_accents_and_punctuation(said, expected):
    assert normalized(said) == expected


def test_from_plist_reads_every_workout_of_the_real_vocabulary(catalog):
    assert catalog.app_workouts == (
        Workout("colorlicious", "Colorlicious", ("Colorlicious", "colorlishus")),
        Workout("rainbow-run", "Rainbow Run", ("Rainbow Run", "run")),
        Workout("rainbow-ride", "Rainbow Ride", ("Rainbow Ride",)),
        Workout("hoof-sprint", "Hoof Sprint", ("Hoof Sprint", "sprint")),
        Workout("unicorn-yoga", "Unicorn Yoga", ("Unicorn Yoga", "yoga")),
    )


def test_from_plist_takes_only_the_named_parameter(plists):
    assert Catalog.from_plist(plists.vocabulary, "INPauseWorkoutIntent.workoutName").app_workouts == ()


def _ids(workouts):
    return [workout.identifier for workout in workouts]


@pytest.mark.parametrize(
    "said, exact",
    [("colorlishus", ["colorlicious"]), ("COLORLICIOUS!", ["colorlicious"]), ("run", ["rainbow-run"]),
     ("Rainbow-Run", ["rainbow-run"]), ("sprint", ["hoof-sprint"]), ("yoga", ["unicorn-yoga"])],
)
def test_match_exact_by_phrase_or_pronunciation(catalog, said, exact):
    found = catalog.match(said, catalog.app_workouts)
    assert (_ids(found.exact), _ids(found.partial)) == (exact, [])


@pytest.mark.parametrize(
    "said, partial",
    [("hoof", ["hoof-sprint"]), ("yoga class", ["unicorn-yoga"]), ("rainbow", ["rainbow-run", "rainbow-ride"]),
     ("run sprint", ["rainbow-run", "hoof-sprint"])],
)
def test_match_partial_by_whole_words(catalog, said, partial):
    found = catalog.match(said, catalog.app_workouts)
    assert (_ids(found.exact), _ids(found.partial)) == ([], partial)


@pytest.mark.parametrize("said", ["zumba", "", "   ", "colorl", "sprinter"])
def test_match_none(catalog, said):
    found = catalog.match(said, catalog.app_workouts)
    assert (found.exact, found.partial) == ((), ())


def _vocabulary(store, user, rows):
    def insert(db):
        db.executemany(
            "INSERT INTO user_vocabulary (user_id, vocabulary_type, position, phrase, vocabulary_identifier)"
            " VALUES (?, ?, ?, ?, ?)",
            [(user, WORKOUT_NAMES, position, phrase, ident) for position, phrase, ident in rows],
        )

    store.write(insert)


def test_workouts_of_puts_the_users_own_first_in_their_order(catalog, store):
    _vocabulary(store, ALICE, [(1, "Moon Gallop", "gallop-7"), (0, "Sparkle Trot", "")])
    _vocabulary(store, BOB, [(0, "Bob's Burpees", "bob-1")])
    workouts = store.read(lambda db: catalog.workouts_of(ALICE, db))
    assert workouts[:2] == [
        Workout("Sparkle Trot", "Sparkle Trot", ("Sparkle Trot",)),  # no identifier: the phrase is one
        Workout("gallop-7", "Moon Gallop", ("Moon Gallop",)),
    ]
    assert workouts[2:] == list(catalog.app_workouts)


def test_match_keeps_the_first_of_equal_identifiers(catalog):
    own = Workout("colorlicious", "Color Blast", ("Color Blast", "colorlicious"))
    found = catalog.match("colorlicious", [own] + list(catalog.app_workouts))
    assert found.exact == (own,)
