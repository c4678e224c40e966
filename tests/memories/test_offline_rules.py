"""Every sentence-kind rule of the offline extractor against its own examples: the
sentences it must fire on and those it must leave alone. No database, no service: the
rules are data (``memories.extraction.offline.rules.RULES``) and this runs in seconds."""

import pytest

from memories.extraction.offline.language import parse
from memories.extraction.offline.rules import RULES, rule_for

FIRES = [(r.name, r.kind, s) for r in RULES for s in r.fires]
QUIET = [(r.name, r.kind, s) for r in RULES for s in r.quiet]


@pytest.mark.parametrize(("name", "kind", "sentence"), FIRES)
def test_a_rule_fires_on_its_examples(name, kind, sentence):
    found = [rule_for(sent, kind) for sent in parse(sentence).sents]
    assert name in {r.name for r in found if r is not None}, (name, sentence)


@pytest.mark.parametrize(("name", "kind", "sentence"), QUIET)
def test_a_rule_leaves_its_counter_examples_alone(name, kind, sentence):
    found = [rule_for(sent, kind) for sent in parse(sentence).sents]
    assert name not in {r.name for r in found if r is not None}, (name, sentence)


def test_every_rule_has_examples_both_ways_or_says_why_not():
    for rule in RULES:
        assert rule.fires, rule.name
        assert rule.why, rule.name


def test_the_trace_names_the_rule_that_dropped_or_kept_a_sentence(caplog):
    from datetime import date

    from memories.extraction.offline.statements import statements

    caplog.set_level("DEBUG", logger="gitloom.memories.rules")
    said = statements(
        "My landlord says he'll fix the boiler, ha, sure he will. "
        "Good news: my sister Ama's baby is due on 4 June.",
        day=date(2026, 3, 10),
    )
    assert any("Ama" in s.plain for s in said)
    lines = [r.getMessage() for r in caplog.records if r.name == "gitloom.memories.rules"]
    assert any("rule=joke-sarcasm action=drop" in line and "boiler" in line for line in lines)
