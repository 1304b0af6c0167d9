"""Weft's Python client (standard library only): upload, run, follow, review, download.

    import weft
    client = weft.Client()  # WEFT_URL, WEFT_API_KEY
    run = client.run("Post idea with review", {"topic": "tea"},
                     on_review=lambda review, run: weft.approve())
"""

__version__ = "0.1.0"

from .client import Client
from .decisions import Decision, approve, retry
from .errors import (
    WeftApiError,
    WeftAuthenticationError,
    WeftBadRequestError,
    WeftConflictError,
    WeftConnectionError,
    WeftError,
    WeftLookupError,
    WeftNotFoundError,
    WeftPermissionError,
    WeftRateLimitError,
    WeftServerError,
    WeftTimeoutError,
    WeftValidationError,
)
from .events import Event

__all__ = [
    "Client",
    "Decision",
    "Event",
    "approve",
    "retry",
    "WeftApiError",
    "WeftAuthenticationError",
    "WeftBadRequestError",
    "WeftConflictError",
    "WeftConnectionError",
    "WeftError",
    "WeftLookupError",
    "WeftNotFoundError",
    "WeftPermissionError",
    "WeftRateLimitError",
    "WeftServerError",
    "WeftTimeoutError",
    "WeftValidationError",
]
