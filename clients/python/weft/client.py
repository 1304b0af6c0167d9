"""The client: its resources, and run() from a name and files to the final record."""

from __future__ import annotations

import os
from typing import Any, Optional

from .follow import OnDelta, OnEvent, OnReview
from .inputs import prepare_inputs, resolve_target
from .resources import Agents, Apps, Assets, Inputs, Record, Reviews, Runs
from .transport import Params, Transport

DEFAULT_BASE_URL = "http://127.0.0.1:8080"
DEFAULT_TIMEOUT_SECONDS = 60.0
DEFAULT_MAX_RETRIES = 3


class Client:
    """A client of one Weft gateway, acting for one organization.

    `base_url` defaults to $WEFT_URL (else http://127.0.0.1:8080, where `npm run dev`
    listens), `api_key` to $WEFT_API_KEY (an API key `weft_...`, or a JWT of the
    deployment's identity service). `timeout` bounds each request (seconds), `max_retries`
    the retries of a request answered 429 or 5xx or cut off (docs: README, Retries).
    `organization_id` selects one of a JWT's organizations.
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        max_retries: int = DEFAULT_MAX_RETRIES,
        organization_id: Optional[str] = None,
        user_agent: Optional[str] = None,
    ) -> None:
        base_url = base_url or os.environ.get("WEFT_URL") or DEFAULT_BASE_URL
        api_key = api_key or os.environ.get("WEFT_API_KEY")
        if not api_key:
            raise ValueError("no API key: pass api_key= or set WEFT_API_KEY")
        self._transport = Transport(
            base_url,
            api_key,
            timeout=timeout,
            max_retries=max_retries,
            organization_id=organization_id,
            user_agent=user_agent,
        )
        self.base_url = self._transport.base_url
        self.agents = Agents(self)
        self.apps = Apps(self)
        self.runs = Runs(self, "/runs", "agent_id")
        self.app_runs = Runs(self, "/app-runs", "app_id")
        self.assets = Assets(self)
        self.reviews = Reviews(self)

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Optional[Params] = None,
        json: Any = None,
        idempotent: bool = False,
    ) -> Any:
        """Any other endpoint (POST /agents, GET /node-types, ...): the parsed JSON answer, or None."""
        kwargs: dict = {"params": params, "idempotent": idempotent}
        if json is not None:
            kwargs["json"] = json
        return self._transport.json(method, path, **kwargs)

    def run(
        self,
        target: str,
        inputs: Inputs = None,
        *,
        external_id: Optional[str] = None,
        on_event: Optional[OnEvent] = None,
        on_review: Optional[OnReview] = None,
        timeout: Optional[float] = None,
        kind: Optional[str] = None,
        poll_interval: float = 2.0,
        on_delta: Optional[OnDelta] = None,
    ) -> Record:
        """Run an agent or app to its end and return the final run record.

        `target` is an agent's or app's id or exact name (`kind="agent"` or `"app"` when a
        name is both). `inputs` maps input ids to values; files for asset inputs (paths,
        bytes, file objects) are uploaded first. With `external_id`, running again with the
        same key follows the run it created instead of starting another. Then as
        Runs.wait(): `on_event`, `on_delta`, `on_review`, `timeout`. The record's `status` says how it
        ended (completed, failed, canceled); `results` holds the outputs.
        """
        found_kind, record = resolve_target(self, target, kind)
        prepared = prepare_inputs(self, found_kind, record, inputs)
        runs = self.runs if found_kind == "agent" else self.app_runs
        created = runs.create(record["id"], prepared, external_id=external_id)
        return runs.wait(
            created["id"],
            on_event=on_event,
            on_review=on_review,
            timeout=timeout,
            poll_interval=poll_interval,
            on_delta=on_delta,
        )

    def __repr__(self) -> str:
        return "Client(%r)" % self.base_url


__all__ = ["Client"]
