"""Following a run to its end: its event stream when the gateway has one, polling otherwise,
deciding its reviews on the way (docs/api.md#run-states, #reviews)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Set

from .decisions import Decision, as_decision
from .errors import WeftApiError, WeftConflictError, WeftConnectionError, WeftTimeoutError
from .events import Event, NoEventStream, StreamClosed, stream_once

if TYPE_CHECKING:
    from .resources import Runs

FINAL_STATUSES = frozenset({"completed", "failed", "canceled"})

#: Pause before reconnecting a stream that dropped.
RECONNECT_DELAY_SECONDS = 1.0
RECONNECT_DELAY_CAP_SECONDS = 10.0

#: Polling starts quick and slows down while nothing changes, up to poll_interval.
FIRST_POLL_DELAY_SECONDS = 0.25

OnEvent = Callable[[Event], None]
OnDelta = Callable[[Dict[str, Any]], None]
OnReview = Callable[[Dict[str, Any], Dict[str, Any]], Any]


class Follower:
    def __init__(
        self,
        runs: "Runs",
        run_id: str,
        on_event: Optional[OnEvent],
        on_review: Optional[OnReview],
        timeout: Optional[float],
        poll_interval: float,
        sleep: Callable[[float], None] = time.sleep,
        on_delta: Optional[OnDelta] = None,
    ) -> None:
        self._runs = runs
        self._run_id = run_id
        self._on_event = on_event
        self._on_delta = on_delta
        self._on_review = on_review
        self._deadline = time.monotonic() + timeout if timeout is not None else None
        self._poll_interval = max(FIRST_POLL_DELAY_SECONDS, poll_interval)
        self._sleep = sleep
        self._handled: Set[str] = set()
        self._last: Optional[Dict[str, Any]] = None

    def wait(self) -> Dict[str, Any]:
        record = self._follow_stream()
        return record if record is not None else self._poll()

    def _follow_stream(self) -> Optional[Dict[str, Any]]:
        """The final record, or None when the gateway has no event stream for this run."""
        last_event_id: Optional[str] = None
        delay = RECONNECT_DELAY_SECONDS
        while True:
            try:
                for event in stream_once(
                    self._runs._transport, self._runs._events_path(self._run_id), last_event_id, self._deadline
                ):
                    delay = RECONNECT_DELAY_SECONDS
                    if event.type == "delta":
                        # Text a node writes as it goes: not a change of the run, and it has no id.
                        if self._on_delta is not None and isinstance(event.data, dict):
                            self._on_delta(event.data)
                        continue
                    if event.id is not None:
                        last_event_id = event.id
                    self._emit(event)
                    if event.type in ("run", "end") and isinstance(event.data, dict):
                        self._last = event.data
                        if event.type == "end":
                            return event.data
                        self._decide_reviews(event.data)
            except WeftApiError as err:
                if err.status in (405, 501):
                    return None
                if err.status == 404:
                    # No stream here if the run itself exists (GET raises WeftNotFoundError otherwise).
                    self._last = self._runs.get(self._run_id)
                    return None
                raise
            except NoEventStream:
                return None
            except (StreamClosed, WeftConnectionError):
                pass
            except WeftTimeoutError:
                raise WeftTimeoutError("run %s has not ended in the time given" % self._run_id, self._last) from None
            self._pause(delay)
            delay = min(RECONNECT_DELAY_CAP_SECONDS, delay * 2)

    def _poll(self) -> Dict[str, Any]:
        delay = FIRST_POLL_DELAY_SECONDS
        record = self._last if self._last is not None else self._runs.get(self._run_id)
        previous: Optional[Dict[str, Any]] = None
        while True:
            if record != previous:
                self._emit(Event("run", record))
                delay = FIRST_POLL_DELAY_SECONDS
            if record.get("status") in FINAL_STATUSES:
                self._emit(Event("end", record))
                return record
            self._decide_reviews(record)
            previous = record
            self._pause(delay)
            delay = min(self._poll_interval, delay * 2)
            record = self._runs.get(self._run_id)
            self._last = record

    def _decide_reviews(self, record: Dict[str, Any]) -> None:
        if self._on_review is None or record.get("status") in FINAL_STATUSES:
            return
        for review in record.get("pending_reviews") or []:
            review_id = review.get("id")
            if not review_id or review_id in self._handled:
                continue
            # Asked once per review: None leaves it pending, to be decided elsewhere.
            self._handled.add(review_id)
            answer = self._on_review(review, record)
            if answer is None:
                continue
            decision: Decision = as_decision(answer)
            try:
                self._runs._client.reviews._post(self._run_id, review_id, decision.body(review.get("proposed_output")))
            except WeftConflictError:
                # Decided by someone else meanwhile, or the run ended: what follows says which.
                pass

    def _emit(self, event: Event) -> None:
        if self._on_event is not None:
            self._on_event(event)

    def _pause(self, seconds: float) -> None:
        if self._deadline is not None:
            left = self._deadline - time.monotonic()
            if left <= 0:
                raise WeftTimeoutError("run %s has not ended in the time given" % self._run_id, self._last)
            seconds = min(seconds, left)
        self._sleep(seconds)
