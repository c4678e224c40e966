from gitloom.core.errors import InvalidInput, NotFound, ServiceUnavailable


class InvalidQuery(InvalidInput):
    code, message = "invalid_query", "Invalid query."


class QueryTooLong(InvalidInput):
    code, message = "query_too_long", "The query is too long."


class InvalidLimit(InvalidInput):
    code, message = "invalid_limit", "Invalid limit."


class InvalidArms(InvalidInput):
    code, message = (
        "invalid_arms",
        "Choose lexical and/or semantic (graph follows links from their hits).",
    )


class InvalidAsOf(InvalidInput):
    code, message = (
        "invalid_as_of",
        "as_of must be a commit id (7 to 40 hex digits) or an ISO-8601 time.",
    )


class AmbiguousCommit(InvalidInput):
    code, message = "ambiguous_commit", "That commit prefix names more than one commit."


class AsOfNotFound(NotFound):
    code, message = "as_of_not_found", "No such commit in this namespace's indexed history."


class AsOfBeforeHistory(NotFound):
    code, message = "as_of_before_history", "That time is before the namespace's first commit."


class EmbeddingUnavailable(ServiceUnavailable):
    code, message = "embedding_unavailable", "The embedding model is unavailable."
