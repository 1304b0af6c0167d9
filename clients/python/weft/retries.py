"""When to try a request again, and after how long (docs/api.md#rate-limits, #dependency-outages)."""

from __future__ import annotations

import random
import time
from datetime import timezone
from email.utils import parsedate_to_datetime
from typing import Callable, Optional

#: Statuses worth another attempt: rate limited (nothing was done), and the gateway or a service it needs failing.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})

#: Methods that may be sent twice without doing anything twice.
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})

BACKOFF_BASE_SECONDS = 0.5
BACKOFF_CAP_SECONDS = 30.0


def parse_retry_after(value: Optional[str], now: Optional[Callable[[], float]] = None) -> Optional[float]:
    """Seconds to wait from a `Retry-After` header: a number of seconds or an HTTP date.

    None when the header is missing or unreadable; never negative (a date in the past is 0).
    """
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        if seconds != seconds or seconds in (float("inf"), float("-inf")):
            return None
        return max(0.0, seconds)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        # RFC 9110 dates are GMT; an obsolete format without a zone means the same.
        when = when.replace(tzinfo=timezone.utc)
    current = (now or time.time)()
    return max(0.0, when.timestamp() - current)


def backoff_delay(attempt: int, rand: Callable[[], float] = random.random) -> float:
    """Seconds before retry number `attempt` (0 for the first) without a Retry-After:
    exponential (0.5 s, 1 s, 2 s, ... up to 30 s) with jitter (between half and all of it),
    so that clients failing together do not come back together."""
    ceiling = min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * (2 ** max(0, attempt)))
    return ceiling * (0.5 + rand() / 2)


def may_retry(status: Optional[int], method: str, idempotent: bool) -> bool:
    """Whether an answer of `status` (None: no answer, a connection error) may be retried.

    A 429 always may: the gateway did nothing. Other failures only for requests that are
    safe to send again: idempotent methods, and creates carrying an external_id (the
    second one answers 409 and names the object the first one created).
    """
    if status == 429:
        return True
    if status is not None and status not in RETRY_STATUSES:
        return False
    return idempotent or method.upper() in IDEMPOTENT_METHODS
