from gitloom.core.errors import Conflict, GitLoomError, InvalidInput, NotFound, ServiceUnavailable


class MemoryNotFound(NotFound):
    code, message = "memory_not_found", "Memory not found."


class JobNotFound(NotFound):
    code, message = "job_not_found", "Job not found."


class IdempotencyKeyReused(Conflict):
    code, message = (
        "idempotency_key_reused",
        "This Idempotency-Key was already used with a different request body.",
    )


class JobAttemptsExhausted(GitLoomError):
    # Recorded on the job (GET /v1/jobs/<id>), never raised to a request.
    code, status, message = (
        "job_attempts_exhausted",
        500,
        "The job was started too many times without finishing.",
    )


class InvalidTier(InvalidInput):
    code, message = "invalid_tier", "Unknown tier."


class InvalidTranscript(InvalidInput):
    code, message = "invalid_transcript", "Invalid transcript."


class InvalidIdempotencyKey(InvalidInput):
    code, message = (
        "invalid_idempotency_key",
        "Idempotency-Key is at most 255 printable characters.",
    )


class InvalidArchive(InvalidInput):
    code, message = "invalid_archive", "The upload is not a valid tar.gz of memory files."


class ImportTooLarge(InvalidInput):
    code, message = "import_too_large", "The archive holds too much."


class InvalidFormat(InvalidInput):
    code, message = "invalid_format", "Unknown format."


class InvalidMessageId(InvalidInput):
    # Recorded on a job whose messages cannot be cited (ids the model could not be given).
    code, message = "invalid_message_id", "Message ids must be short printable strings."


class DuplicateMessageId(InvalidInput):
    code, message = "duplicate_message_id", "A message id appears twice."


class JobInternalError(GitLoomError):
    # Recorded on the job (GET /v1/jobs/<id>) when it failed on a bug, never raised.
    code, status, message = "internal_error", 500, "The job failed on an internal error."


# --- reverting a job (memories.reverts) --------------------------------------------


class JobNotFinished(Conflict):
    code, message = (
        "job_not_finished",
        "The job has not finished yet; it can be reverted once it is done.",
    )


class NothingToRevert(Conflict):
    code, message = (
        "nothing_to_revert",
        "The job wrote no commit (nothing was worth keeping, or it failed): there is "
        "nothing to revert.",
    )


class JobNotRevertible(Conflict):
    code, message = (
        "job_not_revertible",
        "A bundle import brings in history rather than one change; it cannot be reverted.",
    )


class RevertConflict(Conflict):
    # ``details.conflicts`` names each file in the way and the later commits that changed
    # it; ``details.revertible`` counts the files ``force`` would revert.
    code, message = (
        "revert_conflict",
        "Files the job wrote were changed or removed since; nothing was reverted.",
    )
    example_details = {
        "conflicts": [
            {
                "path": "facts/pets/beagle-biscuit-5b2e9d10.md",
                "change": "add",
                "now": "changed",
                "commits": [
                    {
                        "commit": "8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c",
                        "time": "2026-08-02T10:00:03Z",
                        "message": "Ingest job 0f3b8a6e-2c1d-4e5f-9a8b-7c6d5e4f3a2b: 0 new, "
                        "1 rewritten (offline extractor)",
                        "action": "ingest",
                        "job": "0f3b8a6e-2c1d-4e5f-9a8b-7c6d5e4f3a2b",
                    }
                ],
            }
        ],
        "revertible": 1,
    }


class InvalidMatch(InvalidInput):
    code, message = "invalid_match", "The text to purge must be 3 to 200 characters."


# --- the model endpoint (memories/extraction/model/client.py) ---------------------------------------


class ModelOutputInvalid(GitLoomError):
    code, status, message = (
        "model_output_invalid",
        502,
        "The model kept answering with output that is not valid for this step.",
    )


class ModelUnavailable(ServiceUnavailable):
    code, status, message = "model_unavailable", 503, "The model endpoint is unavailable."


class ModelRequestRefused(ModelUnavailable):
    # It refused outright (wrong model name, bad key): retrying would not help.
    code, message = "model_request_refused", "The model endpoint refused the request."
