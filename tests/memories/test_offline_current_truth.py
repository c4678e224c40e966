"""Current truth without a model (memories/extraction/offline/reconcile.py), through
POST /v1/memories and GET /v1/retrieve: a later session that changes something said
before ranks first and links what it replaces; one that changes someone else's thing,
or nothing, links nothing. Sentences of our own, none from the write-path scenarios.
"""

from tests.memories.test_offline_extractor import memory, top

LATER = "2026-04-20T09:00:00Z"


def superseded_by(api, job) -> list[str]:
    """The bodies the job's new memories supersede."""
    found = []
    for path in job["result"]["created"]:
        for link in memory(api, path)["related"]:
            if link["type"] == "supersedes":
                found.append(memory(api, link["path"])["body"])
    return found


def test_a_verb_that_changes_a_thing_i_called_mine_supersedes_it(api, say):
    say("My swimming club is £20 a month.")
    job = say("The club upped the fee to £24.", when=LATER)
    assert superseded_by(api, job) == ["My swimming club is £20 a month."]
    assert "£24" in top(api, "how much is my swimming club")


def test_moving_my_thing_to_another_day_supersedes_the_day_it_had(api, say):
    say("I sing in a choir that meets on Wednesdays.")
    job = say("Choir has moved to Mondays.", when=LATER)
    assert superseded_by(api, job) == ["I sing in a choir that meets on Wednesdays."]
    assert "Mondays" in top(api, "when does my choir meet")


def test_someone_elses_change_to_the_same_kind_of_thing_supersedes_nothing(api, say):
    say("I play five-a-side on Tuesdays.")
    job = say("My son plays five-a-side on Saturdays now.", when=LATER)
    assert superseded_by(api, job) == []
    other = say("Tom's gym put its price up to £50.", when=LATER)
    assert superseded_by(api, other) == []


def test_my_thing_ended_by_someone_else_is_over_and_what_replaced_it_ranks_first(api, say):
    say("I ride a Brompton to work.")
    job = say("Someone stole my Brompton from outside the station, so I bought a Tern.", when=LATER)
    assert superseded_by(api, job) == ["I ride a Brompton to work.", "I ride a Brompton to work."]
    assert "Tern" in top(api, "what bike do I ride")


def test_trading_a_thing_in_ends_it(api, say):
    say("I drive a Ford Focus.")
    job = say("Traded in the Focus for a Honda Civic.", when=LATER)
    assert superseded_by(api, job) == ["I drive a Ford Focus."]
    assert "Civic" in top(api, "what car do I drive")


def test_a_correction_that_says_not_the_old_thing_supersedes_it(api, say):
    say("I'm allergic to penicillin.")
    job = say("Actually it's amoxicillin I'm allergic to, not penicillin.", when=LATER)
    assert superseded_by(api, job) == ["I'm allergic to penicillin."]
    assert "amoxicillin" in top(api, "what am I allergic to")


def test_a_new_amount_said_without_a_verb_is_kept_and_replaces_the_old_one(api, say):
    say("I weigh 90 kilos.")
    job = say("Down to 86kg!", when=LATER)
    assert superseded_by(api, job) == ["I weigh 90 kilos."]
    assert "86kg" in top(api, "how much do I weigh")


def test_no_longer_on_a_shift_ends_working_it(api, say):
    say("I work nights.")
    job = say("I'm not on nights anymore.", when=LATER)
    assert superseded_by(api, job) == ["I work nights."]
    assert "anymore" in top(api, "do I work nights")


def test_a_place_name_after_a_preposition_is_kept(api, say):
    job = say("I drive to Reading now.", "Nice.", "My parents live in Dorking.")
    bodies = [memory(api, p)["body"] for p in job["result"]["created"]]
    assert any("Reading" in b for b in bodies), bodies
    assert any("Dorking" in b for b in bodies), bodies


def test_a_quality_of_a_person_is_no_new_value_of_who_they_are(api, say):
    job = say(
        "My cousin Rhodri is a plumber in Bangor.", "Nice.", "my cousin is great, she said so"
    )
    assert superseded_by(api, job) == []
