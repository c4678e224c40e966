from gitloom.errors import InvalidInput


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


class InvalidLocomo(InvalidInput):
    # From the eval_locomo command's input file; never an API answer.
    code, message = "invalid_locomo", "Unreadable LoCoMo data."
