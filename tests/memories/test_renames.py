"""Where a rewritten memory lives (memories/extraction/renames.py): its own path unless its name no
longer fits the text. No database."""

from __future__ import annotations

import pytest

from memories.extraction.renames import derived_title, rewritten_path


def moved(path, before, after, **given):
    return rewritten_path(
        path=path, tier=path.split("/")[0], before=before, after=after, topic_sizes={}, **given
    )


@pytest.mark.parametrize(
    ("path", "before", "after"),
    [
        # a tense changes, no value leaves the text
        (
            "facts/home/rosa-lives-with-tom-1a2b3c4d.md",
            "Rosa lives with Tom.",
            "Rosa lived with Tom.",
        ),
        # a value is added, none taken away
        (
            "events/dentist/rosa-check-up-1a2b3c4d.md",
            "Rosa has a check-up with Dr Okafor.",
            "Rosa has a check-up with Dr Okafor on 2026-10-21.",
        ),
        # a title given that names the same file
        ("facts/car/rosa-s-car-1a2b3c4d.md", "Rosa's car is red.", "Rosa's car is blue."),
    ],
)
def test_a_name_that_still_fits_stays(path, before, after):
    assert moved(path, before, after) == path
    assert moved(path, before, after, title="Rosa's car" if "car" in path else "") == path


def test_one_stale_value_is_replaced_by_the_one_new_value_of_its_kind():
    path = "facts/bristol/i-live-in-bristol-1a2b3c4d.md"
    new = moved(path, "I live in Bristol.", "We moved to Bath.")
    assert new.startswith("facts/bath/i-live-in-bath-") and new != path
    price = "facts/brompton/i-paid-900-for-a-brompton-1a2b3c4d.md"
    assert "/i-paid-850-for-a-brompton-" in moved(
        price, "I paid £900 for a Brompton.", "It was £850 for the Brompton."
    )


def test_with_no_one_for_one_value_the_title_comes_from_the_new_text():
    path = "events/dentist/check-up-on-14-october-1a2b3c4d.md"
    new = moved(
        path, "Check-up on 14 October at 9:00.", "Check-up moved to 21 October, 10:30 (2026-10-21)."
    )
    assert new.startswith("events/dentist/check-up-moved-to-21-october-10-30-")


def test_a_models_title_and_topic_name_the_new_path():
    path = "facts/car/rosa-drives-a-honda-jazz-1a2b3c4d.md"
    new = moved(
        path,
        "Rosa drives a Honda Jazz.",
        "Rosa drives a Toyota Yaris.",
        title="Rosa drives a Toyota Yaris",
        topic="car",
    )
    assert new.startswith("facts/car/rosa-drives-a-toyota-yaris-")


def test_a_full_topic_folder_spills_over_as_for_a_new_memory():
    path = "facts/bristol/i-live-in-bristol-1a2b3c4d.md"
    new = rewritten_path(
        path=path,
        tier="facts",
        before="I live in Bristol.",
        after="We moved to Bath.",
        topic_sizes={"facts/bath": 200},
    )
    assert new.startswith("facts/bath-2/")


def test_a_derived_title_is_the_first_sentences_first_words_without_brackets():
    text = "Actually my dentist appointment (the check-up) moved to 21 October. It is at 9."
    assert derived_title(text) == "Actually my dentist appointment moved to 21 October"
