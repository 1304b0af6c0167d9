"""The errors the client raises (docs/api.md#errors)."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

# A stable, short name per status, since the API's error body carries only `detail`.
_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    409: "conflict",
    410: "gone",
    413: "payload_too_large",
    415: "unsupported_media_type",
    416: "range_not_satisfiable",
    422: "validation_error",
    429: "rate_limited",
    500: "internal_error",
    502: "bad_gateway",
    503: "service_unavailable",
    504: "gateway_timeout",
}


class WeftError(Exception):
    """Every error this client raises derives from this one."""


class WeftConnectionError(WeftError):
    """The gateway could not be reached (after the retries the request allowed)."""


class WeftTimeoutError(WeftError, TimeoutError):
    """A run did not end within the time given to wait for it. `run` is its last known record."""

    def __init__(self, message: str, run: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(message)
        self.run = run


class WeftApiError(WeftError):
    """An answer of status 400 or above.

    `status` is the HTTP status, `code` a short name for it (`not_found`,
    `conflict`, `validation_error`, ...; `external_id_conflict` for a claimed
    external_id), `message` the gateway's `detail` (for a 422, its problems
    joined), `details` the list of problems of a 422 (each with `loc`, `msg`,
    `type`), `existing_id` the holder of a claimed external_id on a 409.
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        code: Optional[str] = None,
        details: Optional[List[Dict[str, Any]]] = None,
        existing_id: Optional[str] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        method: Optional[str] = None,
        url: Optional[str] = None,
    ) -> None:
        self.status = status
        self.code = code or _CODES.get(status, "http_%d" % status)
        self.message = message
        self.details = details
        self.existing_id = existing_id
        self.body = body
        self.headers = dict(headers or {})
        self.method = method
        self.url = url
        where = "%s %s: " % (method, url) if method and url else ""
        super().__init__("%s%d %s" % (where, status, message))


class WeftBadRequestError(WeftApiError):
    """400: an app run's inputs break the app's rules, an unsupported or mislabelled upload, ..."""


class WeftAuthenticationError(WeftApiError):
    """401: a missing, unknown or revoked API key, or a bad token."""


class WeftPermissionError(WeftApiError):
    """403: an organization the caller does not belong to."""


class WeftNotFoundError(WeftApiError):
    """404: no such object, or one the caller may not see."""


class WeftConflictError(WeftApiError):
    """409: a claimed external_id (`existing_id` names its holder), a run that has ended, a review decided."""


class WeftValidationError(WeftApiError):
    """422: the request does not validate; `details` lists every problem."""


class WeftRateLimitError(WeftApiError):
    """429: a rate limit exceeded (raised once the retries are spent)."""


class WeftServerError(WeftApiError):
    """5xx: a bug of the gateway's (500) or a service it needs is unreachable (503)."""


_CLASSES = {
    400: WeftBadRequestError,
    401: WeftAuthenticationError,
    403: WeftPermissionError,
    404: WeftNotFoundError,
    409: WeftConflictError,
    422: WeftValidationError,
    429: WeftRateLimitError,
}


def api_error(
    status: int,
    body: Any,
    headers: Optional[Mapping[str, str]] = None,
    method: Optional[str] = None,
    url: Optional[str] = None,
) -> WeftApiError:
    """The typed error for an answer, from the API's error body (`{"detail": ...}`)."""
    detail = body.get("detail") if isinstance(body, dict) else None
    details: Optional[List[Dict[str, Any]]] = None
    if isinstance(detail, list):
        details = [d for d in detail if isinstance(d, dict)]
        message = "; ".join(_describe(d) for d in details) or "Validation failed"
    elif isinstance(detail, str):
        message = detail
    elif isinstance(body, str) and body:
        message = body[:500]
    else:
        message = "HTTP %d" % status
    existing_id = body.get("existing_id") if isinstance(body, dict) else None
    code = "external_id_conflict" if status == 409 and existing_id else None
    cls = _CLASSES.get(status, WeftServerError if status >= 500 else WeftApiError)
    return cls(
        status,
        message,
        code=code,
        details=details,
        existing_id=existing_id if isinstance(existing_id, str) else None,
        body=body,
        headers=headers,
        method=method,
        url=url,
    )


def _describe(issue: Dict[str, Any]) -> str:
    loc = issue.get("loc")
    where = ".".join(str(part) for part in loc) if isinstance(loc, list) else ""
    msg = str(issue.get("msg", ""))
    return "%s: %s" % (where, msg) if where else msg


class WeftLookupError(WeftError, LookupError):
    """No agent or app has the name given to Client.run(), or several do."""
