"""Prompt texts for the ingestion pipeline's two model calls.

Bump ``PROMPT_VERSION`` whenever a prompt or the JSON it asks for changes: it goes into
every job's commit trailers, so a memory can be traced to the prompt that wrote it.
"""

from __future__ import annotations

PROMPT_VERSION = "2026-07-31.1"

EXTRACT_SCHEMA_NAME = "extract_memories"
RELATE_SCHEMA_NAME = "relate_memories"

EXTRACT_SYSTEM = """\
You turn a conversation into long-term memories for the people in it. \
You do two steps at once: EXTRACT and CUE.

EXTRACT every distinct fact worth remembering later: who people are, what they own, \
did, plan, like or dislike, relationships, places, dates, numbers, decisions. Skip \
greetings, small talk, questions without information, and anything the assistant merely \
suggested.
- One fact per memory, atomic: do not merge unrelated facts.
- Keep structure: a roster, list or set stays ONE memory that lists every member \
(e.g. "The book club members are Ana, Raj and Lee.").
- Write each memory as a self-contained statement with names instead of pronouns \
(use the speaker's name when given; "the user" otherwise).
- Resolve relative dates ("yesterday", "last week", "in two days") against the \
timestamp of the message they appear in and write absolute dates (YYYY-MM-DD, or \
"the week of YYYY-MM-DD", or "June 2026"). Never leave a relative date in a memory.
- tier: "facts" (stable facts), "preferences" (likes, dislikes, wishes), "events" \
(dated happenings), "working" (short-lived context such as what the user is doing \
right now).
- sources: the ids of the messages the memory comes from (only ids from the transcript).

CUE: for each memory write 3 to 5 short retrieval keys, mostly questions someone might \
later ask that this memory answers ("what camera does Ana own"). Every cue must carry a \
distinguishing term from the memory (a name, brand, place, number or date); \
"camera" alone is useless.

Answer with one JSON object and nothing else:
{"memories": [{"tier": "facts", "topic": "camera gear", "title": "Sony A7III purchase", \
"text": "Ana bought a Sony A7III on 2026-07-30 for 1,800 EUR.", \
"tags": ["camera", "purchase"], "cues": ["what camera does Ana own", \
"when did Ana buy the Sony A7III"], "sources": ["msg-12"], "confidence": 0.9}]}
topic: two or three words naming the subject area; title: a few words naming this fact. \
If nothing is worth remembering, answer {"memories": []}.
"""

RELATE_SYSTEM = """\
You maintain a store of memories. You get NEW memories just extracted from a \
conversation (keys n1, n2, ...) and EXISTING memories from the store that might be \
about the same things (keys e1, e2, ...). You do two steps at once: RELATE and \
RECONCILE.

RELATE: link memories that are about the same real-world entity or event (the same \
person, trip, purchase, project, ...). A link has a "from" key, a "to" key (new or \
existing; at least one side must be new) and a short lowercase type naming the \
relation, e.g. "same-trip", "same-person", "same-purchase", "part-of". Do not link \
memories that merely share a topic word.

RECONCILE: for each NEW memory decide whether an EXISTING memory is about the same \
subject (the same fact, possibly changed or made more precise). If so, rewrite that \
existing memory: "text" must state the current truth and keep every earlier specific \
(names, numbers, dates, places) that the new memory does not contradict; where the new \
memory contradicts the old one, state the new value (you may note the old one as \
previous). If no existing memory is about the same subject, do nothing: the new memory \
is stored on its own (this is the default, and usually right).
Each new memory may be folded into at most one existing memory, and each existing \
memory rewritten at most once (fold several new memories into one rewrite if needed).

Answer with one JSON object and nothing else:
{"links": [{"from": "n1", "to": "e2", "type": "same-trip"}], \
"rewrites": [{"target": "e1", "memories": ["n2"], "text": "...", \
"cues": ["optional extra retrieval keys"]}]}
Use empty lists when there is nothing to link or rewrite.
"""
