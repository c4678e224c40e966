from gitloom.errors import Conflict, NotFound


class MemoryNotFound(NotFound):
    code, message = "memory_not_found", "Memory not found."


class JobNotFound(NotFound):
    code, message = "job_not_found", "Job not found."


class IdempotencyKeyReused(Conflict):
    code, message = (
        "idempotency_key_reused",
        "This Idempotency-Key was already used with a different request body.",
    )
