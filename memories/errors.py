from gitloom.errors import Conflict, GitLoomError, InvalidInput, NotFound


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


class EmptyBody(InvalidInput):
    code, message = "empty_body", "The request body is empty."


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
