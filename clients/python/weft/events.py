"""The event stream of a run (GET /runs/{id}/events, GET /app-runs/{id}/events), one connection at a time."""

from __future__ import annotations

import http.client
import json
import time
from dataclasses import dataclass
from typing import Any, Iterator, Optional

from .errors import WeftError, WeftTimeoutError
from .sse import Parser
from .transport import Transport

#: The gateway writes a keep-alive comment every 15 s; three missed ones mean the connection is gone.
STREAM_READ_TIMEOUT_SECONDS = 45.0


@dataclass(frozen=True)
class Event:
    """An event of a run: `type` is `run` (data: the whole run record), `node` (data: one node's
    state) or `end` (data: the final run record); `id` is what to resume after (None for the
    events made up while polling, which carry only `run` and `end`)."""

    type: str
    data: Any
    id: Optional[str] = None


class StreamClosed(Exception):
    """The connection ended (closed, reset, silent too long) before an `end` event."""


class NoEventStream(WeftError):
    """The route answered, but not with an event stream (something between us and the gateway)."""


def stream_once(
    transport: Transport,
    path: str,
    last_event_id: Optional[str],
    deadline: Optional[float],
) -> Iterator[Event]:
    """The events of one connection to `path`, ending after `end`.

    Raises WeftApiError when the route answers an error (404: no stream here, or no such
    run; 405/501: no stream here), NoEventStream when it answers something else than a
    stream, StreamClosed when the connection ends without `end`,
    WeftTimeoutError once `deadline` (a time.monotonic() value) has passed.
    """
    headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    response = transport.request("GET", path, headers=headers, stream=True, timeout=_read_timeout(deadline))
    try:
        content_type = response.headers.get("Content-Type", "") or ""
        if not content_type.startswith("text/event-stream"):
            raise NoEventStream("GET %s answered %r, not an event stream" % (path, content_type))
        parser = Parser()
        while True:
            if deadline is not None and time.monotonic() >= deadline:
                raise WeftTimeoutError("gave up waiting for the run")
            try:
                line = response.raw.readline()
            except (OSError, http.client.HTTPException) as err:
                raise StreamClosed(str(err) or type(err).__name__) from err
            if not line:
                raise StreamClosed("the stream closed before its end event")
            message = parser.feed(line)
            if message is None:
                continue
            try:
                data = json.loads(message.data)
            except ValueError:
                data = message.data
            event = Event(type=message.event, data=data, id=message.id)
            yield event
            if event.type == "end":
                return
    finally:
        response.close()


def _read_timeout(deadline: Optional[float]) -> float:
    if deadline is None:
        return STREAM_READ_TIMEOUT_SECONDS
    return max(0.1, min(STREAM_READ_TIMEOUT_SECONDS, deadline - time.monotonic()))
