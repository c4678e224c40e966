"""The OpenAPI examples of the memories app's operations, one camera purchase throughout
(a memory, the job that wrote it, its history, blame, revert, purge and changes).
"""

from __future__ import annotations

COMMIT = "9b1e6f3c2a0d4e5f8a7b6c5d4e3f2a1b0c9d8e7f"


PATH = "facts/camera-gear/sony-a7iii-purchase-1c9e04aa.md"


BLOB = "3f2a91c0d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9"


RAW = (
    "---\ntier: facts\ntags: [camera, purchase]\ncreated: 2026-07-31T09:12:00Z\n"
    "updated: 2026-07-31T09:12:00Z\nconfidence: 0.9\ncues:\n  - what camera do I own\n"
    "  - Sony A7III purchase\nsources:\n  - msg-2041\n---\n\n"
    "Bought a Sony A7III on 2026-07-31 from Fotocentre in Bengaluru.\n"
)


MEMORY_EXAMPLE = {
    "path": PATH,
    "blob": BLOB,
    "commit": COMMIT,
    "tier": "facts",
    "tags": ["camera", "purchase"],
    "created": "2026-07-31T09:12:00Z",
    "updated": "2026-07-31T09:12:00Z",
    "confidence": 0.9,
    "cues": ["what camera do I own", "Sony A7III purchase"],
    "related": [],
    "sources": ["msg-2041"],
    "body": "Bought a Sony A7III on 2026-07-31 from Fotocentre in Bengaluru.",
    "raw": RAW,
}


JOB_EXAMPLE = {
    "id": "5d0c0a56-7a4e-4c53-9d8e-2f1b3c4d5e6f",
    "namespace": "user-8213",
    "status": "done",
    "session_id": "chat-2026-07-31",
    "created": "2026-07-31T09:12:00.412Z",
    "started": "2026-07-31T09:12:00.530Z",
    "finished": "2026-07-31T09:12:01.874Z",
    "attempts": 1,
    "age_seconds": None,
    "extractor": "offline",
    "prompt_version": "2026-07-01",
    "commit": COMMIT,
    "result": {"created": [PATH], "rewritten": [], "linked": []},
    "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0, "calls": 0},
    "error": None,
}


QUEUED_JOB_EXAMPLE = {
    **JOB_EXAMPLE,
    "status": "queued",
    "started": None,
    "finished": None,
    "attempts": 0,
    "age_seconds": 0.1,
    "extractor": "",
    "prompt_version": "",
    "commit": "",
    "result": {},
    "usage": {},
}
MEMORY_PAGE_EXAMPLE = {
    "commit": COMMIT,
    "memories": [
        {key: MEMORY_EXAMPLE[key] for key in ("path", "blob", "tier", "tags", "cues", "updated")}
    ],
    "next_cursor": None,
}
TRANSCRIPT_EXAMPLE = {
    "namespace": "user-8213",
    "session_id": "chat-2026-07-31",
    "messages": [
        {
            "role": "user",
            "content": "I just bought a Sony A7III!",
            "id": "msg-2041",
            "name": "dana",
            "timestamp": "2026-07-31T09:12:00Z",
        },
        {"role": "assistant", "content": "Congratulations! Which lens?"},
    ],
    "metadata": {"channel": "web"},
}


PURGE_EXAMPLE = {
    "id": "0b7d2c1e-4f5a-4b6c-8d9e-0f1a2b3c4d5e",
    "kind": "path",
    "created": "2026-08-02T10:00:00Z",
    "credential": "api_key backend (glk_AbCdEfGh)",
    "paths": [PATH],
    "versions": 2,
    "previous_commit": "4c2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a",
    "commit": COMMIT,
    "commits_replaced": 5,
    "objects_deleted": 12,
}


BLAME_JOB = "5d0c0a56-7a4e-4c53-9d8e-2f1b3c4d5e6f"


BLAME_EXAMPLE = {
    "path": PATH,
    "commit": COMMIT,
    "blob": BLOB,
    "lines": 14,
    "hunks": [
        {"start": 1, "lines": ["---", "tier: facts"], "commit": COMMIT},
        {
            "start": 3,
            "lines": ["tags: [camera, purchase]", "created: 2026-07-31T09:12:00Z"],
            "commit": "1c2b3a4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
        },
    ],
    "commits": [
        {
            "commit": COMMIT,
            "time": "2026-08-02T18:40:11Z",
            "said": "2026-08-02T18:39:58Z",
            "message": f"Ingest job {BLAME_JOB}: 0 new, 1 rewritten (offline extractor)",
            "action": "ingest",
            "trailers": {
                "Gitloom-Job": BLAME_JOB,
                "Gitloom-Session": "chat-2026-08-02",
                "Gitloom-Extractor": "offline",
                "Gitloom-Prompt-Version": "2026-07-01",
            },
            "job": {
                "id": BLAME_JOB,
                "status": "done",
                "session_id": "chat-2026-08-02",
                "created": "2026-08-02T18:40:10.402Z",
            },
            "session_id": "chat-2026-08-02",
            "extractor": "offline",
            "prompt_version": "2026-07-01",
            "sources": ["msg-2041", "msg-2230"],
            "messages": [
                {
                    "id": "msg-2230",
                    "role": "user",
                    "name": "dana",
                    "timestamp": "2026-08-02T18:39:58Z",
                    "content": "Actually I got the A7III from Fotocentre's Indiranagar shop.",
                }
            ],
        },
        {
            "commit": "1c2b3a4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
            "time": "2026-07-31T09:12:01Z",
            "said": "2026-07-31T09:12:01Z",
            "message": "Import 1 memory files",
            "action": "import",
            "trailers": {"Gitloom-Action": "import", "Gitloom-Import": "tar"},
            "job": None,
            "session_id": None,
            "extractor": None,
            "prompt_version": None,
            "sources": ["msg-2041"],
            "messages": [],
        },
    ],
}


REVERT_EXAMPLE = {
    "job": JOB_EXAMPLE["id"],
    "namespace": "user-8213",
    "commit": "4c1f0e2d9b8a7c6d5e4f3a2b1c0d9e8f7a6b5c4d",
    "reverted_commit": COMMIT,
    "already_reverted": False,
    "removed": [PATH],
    "restored": ["facts/work/employer-zalando-77e1a0c2.md"],
    "unlinked": ["facts/camera-gear/kit-lens-28-70-9a01c4de.md"],
    "skipped": [],
}


SKIPPED_EXAMPLE = {
    "path": "facts/pets/beagle-biscuit-5b2e9d10.md",
    "change": "modify",
    "now": "changed",
    "commits": [
        {
            "commit": "8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c",
            "time": "2026-08-02T10:00:03Z",
            "message": "Ingest job 0f3b...: 0 new, 1 rewritten (offline extractor)",
            "action": "ingest",
            "job": "0f3b8a6e-2c1d-4e5f-9a8b-7c6d5e4f3a2b",
        }
    ],
}
HISTORY_EXAMPLE = {
    "path": PATH,
    "versions": [
        {
            "commit": COMMIT,
            "time": "2026-07-31T09:12:01Z",
            "said": "2026-07-31T09:12:00Z",
            "message": "Ingest job 5d0c0a56-7a4e-4c53-9d8e-2f1b3c4d5e6f: "
            "1 new, 0 rewritten (offline extractor)",
            "trailers": {
                "Gitloom-Job": "5d0c0a56-7a4e-4c53-9d8e-2f1b3c4d5e6f",
                "Gitloom-Extractor": "offline",
            },
            "change": "add",
            "blob": BLOB,
            "diff": "--- /dev/null\n+++ b/" + PATH + "\n@@ -0,0 +1,3 @@\n+---\n",
            "path": PATH,
            "moved_from": None,
        }
    ],
}
CHANGES_EXAMPLE = {
    "since": "1c2b3a4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
    "commit": COMMIT,
    "changes": [
        {
            "path": PATH,
            "change": "modify",
            "blob": BLOB,
            "commit": COMMIT,
            "time": "2026-08-02T18:40:11Z",
            "action": "ingest",
            "job": BLAME_JOB,
        },
        {
            "path": "events/lisbon-trip/hotel-avenida-palace-3f2a91c0.md",
            "change": "delete",
            "blob": None,
            "commit": "7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d",
            "time": "2026-08-01T11:02:45Z",
            "action": "forget",
            "job": None,
        },
    ],
    "next_cursor": None,
}
