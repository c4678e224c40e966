from gitloom.errors import Conflict, GitLoomError, NotFound


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
