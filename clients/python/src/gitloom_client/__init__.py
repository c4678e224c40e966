"""A Python client for GitLoom, the memory service for LLM applications.

>>> from gitloom_client import GitLoom
>>> gl = GitLoom("http://127.0.0.1:8000", api_key="glk_...")
>>> gl.memories.add("I bought a Sony A7III in Bengaluru.", wait=True)
>>> for result in gl.retrieve("what camera do I own").results:
...     print(result.content)

``AsyncGitLoom`` is the same with ``await``. Errors are ``GitLoomError`` subclasses
carrying the API's error ``code`` (see ``gitloom_client.errors``); API keys themselves
are managed on the dashboard, not through this client.
"""

from gitloom_client._async import AsyncGitLoom
from gitloom_client._core import __version__
from gitloom_client._sync import GitLoom
from gitloom_client.errors import (
    APIConnectionError,
    APIError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    GitLoomError,
    JobError,
    JobFailedError,
    JobTimeoutError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    ServiceUnavailableError,
    UnexpectedResponseError,
)
from gitloom_client.models import (
    Arms,
    Credential,
    Forgotten,
    GraphMatch,
    GraphVia,
    ImportResult,
    Job,
    JobResult,
    LaterCommit,
    LexicalMatch,
    Link,
    Memory,
    MemoryHistory,
    MemoryPage,
    MemorySummary,
    MemoryVersion,
    Message,
    Namespace,
    Retrieval,
    RetrievalResult,
    Revert,
    RevertConflictFile,
    SemanticMatch,
    Usage,
    WhoAmI,
)

__all__ = [
    "APIConnectionError",
    "APIError",
    "Arms",
    "AsyncGitLoom",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "Credential",
    "Forgotten",
    "GitLoom",
    "GitLoomError",
    "GraphMatch",
    "GraphVia",
    "ImportResult",
    "Job",
    "JobError",
    "JobFailedError",
    "JobResult",
    "JobTimeoutError",
    "LaterCommit",
    "LexicalMatch",
    "Link",
    "Memory",
    "MemoryHistory",
    "MemoryPage",
    "MemorySummary",
    "MemoryVersion",
    "Message",
    "Namespace",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "Retrieval",
    "RetrievalResult",
    "Revert",
    "RevertConflictFile",
    "SemanticMatch",
    "ServerError",
    "ServiceUnavailableError",
    "UnexpectedResponseError",
    "Usage",
    "WhoAmI",
    "__version__",
]
