from gitloom.core.errors import (
    Conflict,
    GitLoomError,
    InvalidInput,
    NotFound,
    PayloadTooLarge,
    ServiceUnavailable,
)


class NamespaceExists(Conflict):
    code, message = "namespace_exists", "A namespace with that name already exists."


# --- object storage and the repository (namespaces/storage.py, namespaces/repository/)


class InvalidStorageKey(InvalidInput):
    # An internal consistency check: no request should reach it.
    code, message = "invalid_key", "Invalid storage key."


class StorageMisconfigured(ServiceUnavailable):
    code, message = "storage_misconfigured", "Object storage is misconfigured."


class RepositoryCorrupt(ServiceUnavailable):
    code, message = "repository_corrupt", "The repository is unreadable."


class InvalidPrefix(InvalidInput):
    code, message = "invalid_prefix", "Invalid repository prefix."


class InvalidCommitId(InvalidInput):
    code, message = "invalid_commit", "Invalid commit id."


class InvalidBlobId(InvalidInput):
    code, message = "invalid_blob", "Invalid blob id."


class InvalidCommitMessage(InvalidInput):
    code, message = "invalid_message", "Invalid commit message."


class InvalidTrailer(InvalidInput):
    code, message = "invalid_trailer", "Invalid commit trailer."


class InvalidAuthor(InvalidInput):
    code, message = "invalid_author", "Author must look like 'Name <email>'."


class InvalidContent(InvalidInput):
    code, message = "invalid_content", "File content must be bytes or None."


class PathConflict(InvalidInput):
    # A file where a folder is, or the reverse.
    code, message = "path_conflict", "A file and a folder would share a path."


class CommitNotFound(NotFound):
    code, message = "commit_not_found", "No such commit in this namespace."


class CommitNotInHistory(GitLoomError):
    # 410: the commit is not (or no longer) on the head's first-parent line, so nothing
    # can be said relative to it; a client starts over from a full copy.
    code, status, message = (
        "commit_not_in_history",
        410,
        "That commit is not in this namespace's history (it never was, or a purge "
        "rewrote the history since): changes cannot be given relative to it. Re-sync in "
        "full: export the namespace, or ask for changes without `since`.",
    )


class BlobNotFound(NotFound):
    code, message = "blob_not_found", "No such blob."


class InvalidBundle(InvalidInput):
    code, message = "invalid_bundle", "Not a valid git bundle."


class BundleTooLarge(PayloadTooLarge):
    code, message = "bundle_too_large", "The bundle is too large."


class UnrelatedHistory(Conflict):
    # A bundle whose history neither continues nor contains the namespace's head.
    code, message = (
        "unrelated_history",
        "The bundle's history does not continue this namespace's: importing it would "
        "replace the namespace's files with the bundle's. Send replace=true to do that.",
    )


class WriteConflict(Conflict):
    code, message = "write_conflict", "The namespace is too busy to write right now; try again."


class CommitPurged(GitLoomError):
    # A commit id a purge replaced (docs/API.md, "Purging"); details.replaced_by is the
    # commit that holds its history now.
    code, status, message = (
        "commit_purged",
        410,
        "This commit was rewritten by a purge; its id is gone for good.",
    )


# --- the memory file format (namespaces/memory_format.py) ------------------------


class InvalidMemory(InvalidInput):
    code, message = "invalid_memory", "Invalid memory file."
