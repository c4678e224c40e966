"""Prompt texts for the ingestion pipeline's two model calls.

Bump ``PROMPT_VERSION`` whenever a prompt or the JSON it asks for changes: it goes into
every job's commit trailers, so a memory can be traced to the prompt that wrote it.
Each rule carries a short example of its own: a model follows an example more surely
than a definition (docs/design/model-path.md lists the rules and why each is there).
"""

from __future__ import annotations

PROMPT_VERSION = "2026-12-06.2"

EXTRACT_SCHEMA_NAME = "extract_memories"
RELATE_SCHEMA_NAME = "relate_memories"

EXTRACT_SYSTEM = """\
You turn a conversation into long-term memories about the user (and people they \
mention), written so they still help in a month. Steps: EXTRACT and CUE.

KEEP: who people are, work, homes, belongings, plans and appointments, \
relationships, health, decisions, lasting likes and dislikes.
SKIP: moods and one-off states ("I'm shattered today"), weather, greetings, thanks, \
questions, what the user is doing in this chat ("help me write an email"), and \
facts already in KNOWN unless this conversation changes them.
- Hypotheticals, jokes and other people's plans only with their hedge or owner: \
"If I won the lottery I'd buy a boat" -> nothing (a daydream says nothing lasting); \
"Maya might move to Bristol" -> "Rosa's sister Maya is thinking of moving to Bristol", \
never "Maya is moving".
- A value the user corrects in the chat ("it's 850, not 900") is kept corrected only.
- An assistant's suggestion the user accepts is the user's: "Service reminders?" \
"yes pls" -> "Rosa wants service reminders for her car". Unaccepted: skip.
- One fact per memory; a list or roster stays one memory naming every member.

TEXT: third person and self-contained: the speaker's name when known ("the user" \
only when no name is given), other people by name, no "I"/"you". Resolve references \
with KNOWN ("same time" -> the time KNOWN gives; "the car" -> "her 2022 Toyota Yaris").
DATES: absolute, resolved from the message's own "time" and "weekday" (the \
speaker's clock): "tomorrow" said on Tuesday 2026-03-10 -> 2026-03-11. A month or \
day without a year is its NEXT occurrence for a plan and its LAST for a past event \
("in September" said in 2026-12: a plan -> September 2027; "went in September" -> \
September 2026). A weekend is its date range: "this weekend" said on Wednesday \
2026-03-11 -> 2026-03-14 to 2026-03-15. Keep the words too if useful: "next \
Friday (2026-03-20)". A happening the messages do not date gets no date: "I bought a kettle" -> "Rosa bought a kettle", never the day the message was sent; a length of time is anchored to when it was said: "nursing six years now" -> "Rosa has been a nurse for six years (as of 2026-03-10)". Never state a date, number or name nobody said, nor add one from general knowledge ("CDMX" stays "CDMX"; a town gets no country).
tier: "facts" (stable), "preferences" (likes, wishes), "events" (dated happenings \
and appointments), "working" (useful for days, not months).
sources: ids of the messages the memory comes from.

CUE: 3 to 5 questions the user would later ask that this memory answers, in the \
asker's own voice: the user says "I/my" ("what do I do for work", "where is my \
driving test", "what car do I drive"); other people by name ("what does Siobhan \
teach"). Never "the user" or the user's own name in a cue. Each cue carries a \
distinguishing term (name, brand, place, number, date).

Answer with one JSON object and nothing else:
{"memories": [{"tier": "events", "topic": "driving test", "title": "driving test \
date", "text": "Rosa's driving test is on 2026-12-03 at Harehills test centre.", \
"tags": ["driving"], "cues": ["when is my driving test", "where is my driving test \
Harehills"], "sources": ["m3"], "confidence": 0.9}]}
topic: two or three words naming the subject; title: a few words naming this fact. \
Nothing worth keeping: {"memories": []}.
"""

RELATE_SYSTEM = """\
You maintain a store of memories. You get NEW memories just extracted (keys n1, \
n2, ...) and EXISTING ones that may be about the same things (e1, e2, ...). \
Steps: RELATE and RECONCILE.

RELATE: link memories about the same real-world entity or event: {"from", "to", \
"type"}, at least one side new, type a short lowercase relation ("same-trip", \
"same-person", "part-of"). Not for a shared topic word.

RECONCILE each NEW memory against the EXISTING ones:
1. Nothing existing is about the same thing: do nothing (the default; it is stored \
as new).
2. The same thing with a changed or more precise attribute (a moved appointment, \
new shift hours, a new rent), or the same fact said again: rewrite the existing memory, \
folding the new one in ("memories": ["n1"]). State the CURRENT value only, keeping every specific the new \
one does not contradict: "Rosa's check-up with Dr Okafor is on 2026-10-21", not \
"moved from 2026-10-14". Git keeps the old version. Write "previous" only where \
someone would ask about the past ("Rosa's previous landlord was Mr Pike").
3. A different thing takes over a role (a new car, a new landlady, a new flat, a new \
job): keep the NEW memory on its own, never fold it in. Rewrite the old one in the \
past tense with nothing folded in ("memories": [], "Rosa drove a 2015 Honda Jazz \
until she sold it in September 2026") AND link {"from": "n1", "to": "e2", "type": \
"supersedes"}.
4. An existing memory the news made stale (a flat shared in the old city after a \
move, a service reminder for a car that was sold): rewrite it with nothing folded in \
("memories": []) so it is true again, in the past tense for what ended; link it \
"supersedes" from the new memory when it no longer holds at all.
Each existing memory is rewritten at most once; each new memory folded at most once.
A rewrite gives "text" (third person, names, absolute dates); "cues": its complete \
new cue set, 3 to 5 questions in the asker's voice ("what car do I drive", "what \
does Siobhan teach"), none naming a value the text no longer holds; and, when what the \
memory is about changed (a new city, a new car), a new "title" and "topic".

Answer with one JSON object and nothing else:
{"links": [{"from": "n1", "to": "e2", "type": "supersedes"}], \
"rewrites": [{"target": "e1", "memories": ["n2"], "text": "...", "cues": ["..."], \
"title": "optional", "topic": "optional"}]}
Use empty lists when there is nothing to link or rewrite.
"""
