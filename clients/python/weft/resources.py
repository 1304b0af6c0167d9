"""The API's resources as methods: agents, apps, runs, app runs, assets, reviews."""

from __future__ import annotations

import email.message
import os
import re
import tempfile
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Union

from .decisions import Decision, DecisionLike, as_decision
from .errors import WeftConflictError, WeftConnectionError, WeftNotFoundError
from .events import Event, StreamClosed, stream_once
from .follow import RECONNECT_DELAY_CAP_SECONDS, RECONNECT_DELAY_SECONDS, Follower, OnDelta, OnEvent, OnReview
from .multipart import FilePart, MultipartForm, Source
from .transport import Params, Transport

if TYPE_CHECKING:
    from .client import Client

Record = Dict[str, Any]
Inputs = Union[Mapping[str, Any], Sequence[Mapping[str, Any]], None]

MAX_EXTERNAL_ID_LENGTH = 255
DOWNLOAD_CHUNK_BYTES = 256 * 1024


def paginate(transport: Transport, path: str, params: Params) -> Iterator[Record]:
    """Every item of a listing, page after page (docs/api.md#pagination), fetched as iteration reaches them."""
    query = {k: v for k, v in params.items() if v is not None}
    while True:
        page = transport.json("GET", path, params=query)
        for item in page.get("data") or []:
            yield item
        cursor = page.get("next_cursor")
        if not page.get("has_more") or not cursor:
            return
        query["cursor"] = cursor


def check_external_id(external_id: Optional[str]) -> None:
    if external_id is None:
        return
    if not isinstance(external_id, str) or not 1 <= len(external_id) <= MAX_EXTERNAL_ID_LENGTH:
        raise ValueError("external_id must be a string of 1 to %d characters" % MAX_EXTERNAL_ID_LENGTH)


def run_inputs(inputs: Inputs) -> List[Record]:
    """`{"topic": "tea"}` or `[{"id": "topic", "value": "tea"}]` as the API's list."""
    if inputs is None:
        return []
    if isinstance(inputs, Mapping):
        return [{"id": key, "value": value} for key, value in inputs.items()]
    return [dict(item) for item in inputs]


class _Resource:
    def __init__(self, client: "Client") -> None:
        self._client = client
        self._transport: Transport = client._transport


class Agents(_Resource):
    def list(
        self,
        *,
        search: Optional[str] = None,
        tags: Optional[Iterable[str]] = None,
        visibility: Union[str, Iterable[str], None] = None,
        owned: Optional[bool] = None,
        page_size: Optional[int] = None,
    ) -> Iterator[Record]:
        """The caller organization's agents, newest first (`visibility="public"`: everyone's public ones)."""
        params = {
            "search": search,
            "tags": list(tags) if tags is not None else None,
            "visibility": visibility if visibility is None or isinstance(visibility, str) else list(visibility),
            "owned": owned,
            "limit": page_size,
        }
        return paginate(self._transport, "/agents", params)

    def get(self, agent_id: str) -> Record:
        return self._transport.json("GET", "/agents/%s" % agent_id)


class Apps(_Resource):
    def list(
        self,
        *,
        search: Optional[str] = None,
        visibility: Union[str, Iterable[str], None] = None,
        owned: Optional[bool] = None,
        page_size: Optional[int] = None,
    ) -> Iterator[Record]:
        params = {
            "search": search,
            "visibility": visibility if visibility is None or isinstance(visibility, str) else list(visibility),
            "owned": owned,
            "limit": page_size,
        }
        return paginate(self._transport, "/apps", params)

    def get(self, app_id: str) -> Record:
        return self._transport.json("GET", "/apps/%s" % app_id)


class Runs(_Resource):
    """Runs of agents (`client.runs`, /runs) or of apps (`client.app_runs`, /app-runs): the same verbs."""

    def __init__(self, client: "Client", path: str, target_field: str) -> None:
        super().__init__(client)
        self._path = path
        self._target_field = target_field

    def list(
        self,
        *,
        status: Optional[str] = None,
        external_id: Optional[str] = None,
        page_size: Optional[int] = None,
    ) -> Iterator[Record]:
        """The organization's runs, newest first, as summaries (get() reads one whole)."""
        return paginate(self._transport, self._path, {"status": status, "external_id": external_id, "limit": page_size})

    def get(self, run_id: str) -> Record:
        return self._transport.json("GET", "%s/%s" % (self._path, run_id))

    def create(self, target_id: str, inputs: Inputs = None, *, external_id: Optional[str] = None) -> Record:
        """Start a run of the agent (`runs`) or app (`app_runs`) `target_id`; inputs as `{id: value}`.

        With an `external_id` the create is retried like a read (a 409 then means an earlier
        attempt went through), and when the key is already claimed the run holding it is
        returned instead of an error. Inputs are given as the API takes them (asset inputs
        as `{"asset_ids": [...]}`); Client.run() uploads files for you.
        """
        check_external_id(external_id)
        body: Record = {self._target_field: target_id, "inputs": run_inputs(inputs)}
        if external_id is not None:
            body["external_id"] = external_id
        try:
            return self._transport.json("POST", self._path, json=body, idempotent=external_id is not None)
        except WeftConflictError as err:
            if external_id is None:
                raise
            existing = self.find(external_id)
            if existing is None:
                # Agent runs and app runs share one key space: the holder is of the other kind.
                raise err
            return existing

    def find(self, external_id: str) -> Optional[Record]:
        """The run carrying `external_id`, whole, or None."""
        for summary in self.list(external_id=external_id, page_size=1):
            return self.get(summary["id"])
        return None

    def cancel(self, run_id: str) -> None:
        """End a run still in progress (it becomes `canceled`); WeftConflictError if it has already ended."""
        self._transport.request("DELETE", "%s/%s" % (self._path, run_id))

    def events(self, run_id: str, *, last_event_id: Optional[str] = None) -> Iterator[Event]:
        """The run's events as they happen, until `end`, reconnecting (with Last-Event-ID) when the
        connection drops. Raises WeftApiError when the gateway has no event stream (404, 405,
        501); wait() falls back to polling then."""
        delay = RECONNECT_DELAY_SECONDS
        while True:
            try:
                for event in stream_once(self._transport, self._events_path(run_id), last_event_id, None):
                    if event.id is not None:
                        last_event_id = event.id
                    delay = RECONNECT_DELAY_SECONDS
                    yield event
                    if event.type == "end":
                        return
            except (StreamClosed, WeftConnectionError):
                pass
            time.sleep(delay)
            delay = min(RECONNECT_DELAY_CAP_SECONDS, delay * 2)

    def wait(
        self,
        run_id: str,
        *,
        on_event: Optional[OnEvent] = None,
        on_review: Optional[OnReview] = None,
        timeout: Optional[float] = None,
        poll_interval: float = 2.0,
        on_delta: Optional[OnDelta] = None,
    ) -> Record:
        """Follow the run until it ends and return its final record (whatever its status).

        Uses the event stream, or polls GET every `poll_interval` seconds at most where the
        gateway has none. `on_event(event)` sees every event; `on_review(review, run)` is
        called once per pending review and returns weft.approve(...), weft.retry(), or None
        to leave it to someone else. `on_delta(delta)` is called with each `delta` event's
        data, `{node_id, index, text}`: text a node writes as it goes (an llm's answer),
        never stored (none from before, none when polling); on_event never sees them.
        Raises WeftTimeoutError after `timeout` seconds.
        """
        return Follower(self, run_id, on_event, on_review, timeout, poll_interval, on_delta=on_delta).wait()

    def _events_path(self, run_id: str) -> str:
        return "%s/%s/events" % (self._path, run_id)


class Assets(_Resource):
    def list(
        self,
        *,
        asset_ids: Optional[Iterable[str]] = None,
        agent_id: Optional[str] = None,
        run_id: Optional[str] = None,
        external_id: Optional[str] = None,
        page_size: Optional[int] = None,
    ) -> Iterator[Record]:
        """The organization's assets, newest first; the filters given must all match."""
        params = {
            "asset_ids": list(asset_ids) if asset_ids is not None else None,
            "agent_id": agent_id,
            "run_id": run_id,
            "external_id": external_id,
            "limit": page_size,
        }
        return paginate(self._transport, "/assets", params)

    def get(self, asset_id: str) -> Record:
        return self._transport.json("GET", "/assets/%s" % asset_id)

    def upload(
        self,
        source: Source,
        *,
        filename: Optional[str] = None,
        external_id: Optional[str] = None,
        visibility: Optional[str] = None,
    ) -> Record:
        """Upload a file: a path, bytes, or a binary file object. Returns the asset, usable as a run input.

        `filename` names it (by default the path's or file's name). With an `external_id`, an
        upload whose key is already claimed returns the asset holding it.
        """
        check_external_id(external_id)
        fields = []
        if visibility is not None:
            fields.append(("visibility", visibility))
        if external_id is not None:
            fields.append(("external_id", external_id))
        form = MultipartForm(fields, "file", FilePart(source, filename))
        try:
            return self._transport.json("POST", "/assets/upload", form=form, idempotent=external_id is not None)
        except WeftConflictError:
            if external_id is None:
                raise
            existing = self.find(external_id)
            if existing is None:
                raise
            return existing

    def find(self, external_id: str) -> Optional[Record]:
        """The upload carrying `external_id`, whole, or None."""
        for summary in self.list(external_id=external_id, page_size=1):
            return self.get(summary["id"])
        return None

    def download(self, asset_id: str, dest: Union[str, "os.PathLike[str]", IO[bytes], None] = None) -> Any:
        """The file of an asset.

        No `dest`: returns its bytes. A directory: writes it there under the name the gateway
        gives it and returns that Path. A path: writes it there (whole or not at all) and
        returns the Path. A binary file object: writes into it and returns the byte count.
        """
        response = self._transport.request(
            "GET", "/assets/%s/download" % asset_id, headers={"Accept": "*/*"}, stream=True
        )
        try:
            if dest is None:
                return response.raw.read()
            if hasattr(dest, "write"):
                return _copy(response.raw, dest)  # type: ignore[arg-type]
            target = Path(os.fspath(dest))  # type: ignore[arg-type]
            if target.is_dir():
                target = target / _attachment_name(response.headers.get("Content-Disposition"), asset_id)
            fd, partial = tempfile.mkstemp(prefix=".weft-", dir=str(target.parent))
            try:
                with os.fdopen(fd, "wb") as out:
                    _copy(response.raw, out)
                os.replace(partial, target)
            except BaseException:
                if os.path.exists(partial):
                    os.unlink(partial)
                raise
            return target
        finally:
            response.close()

    def delete(self, asset_id: str) -> None:
        self._transport.request("DELETE", "/assets/%s" % asset_id)


class Reviews(_Resource):
    def decide(
        self,
        run_id: str,
        review_id: str,
        decision: DecisionLike = "approve",
        output: Optional[Mapping[str, Any]] = None,
    ) -> None:
        """Decide a pending review of a run (agent or app run).

        `decision` is weft.approve(...) / weft.retry(), or "approve" / "retry". "approve" with
        an `output` (`{"prompts": [...]}` or `{"asset_ids": [...]}`) approves exactly that;
        without one, or weft.approve(items), the run is read to learn what was proposed.
        WeftConflictError when the review is no longer pending.
        """
        chosen: Decision = as_decision(decision)
        if output is not None:
            if chosen.decision != "approve":
                raise ValueError("an output goes with an approval only")
            chosen = Decision("approve", output=output)
        proposed = self._proposal(run_id, review_id) if chosen.needs_proposal() else None
        self._post(run_id, review_id, chosen.body(proposed))

    def approve(self, run_id: str, review_id: str, items: Optional[Iterable[Any]] = None) -> None:
        """Approve as proposed, or with `items` (a kept subset, or edited prompts / other asset ids)."""
        self.decide(run_id, review_id, Decision("approve", items=items))

    def retry(self, run_id: str, review_id: str) -> None:
        self.decide(run_id, review_id, "retry")

    def _post(self, run_id: str, review_id: str, body: Record) -> None:
        self._transport.request("POST", "/runs/%s/reviews/%s" % (run_id, review_id), json=body)

    def _proposal(self, run_id: str, review_id: str) -> Optional[Mapping[str, Any]]:
        try:
            run = self._client.runs.get(run_id)
        except WeftNotFoundError:
            run = self._client.app_runs.get(run_id)
        for review in run.get("pending_reviews") or []:
            if review.get("id") == review_id:
                return review.get("proposed_output")
        raise WeftConflictError(409, "Review %s of run %s is not pending" % (review_id, run_id))


def _copy(source: Any, out: IO[bytes]) -> int:
    total = 0
    while True:
        chunk = source.read(DOWNLOAD_CHUNK_BYTES)
        if not chunk:
            return total
        out.write(chunk)
        total += len(chunk)


def _attachment_name(disposition: Optional[str], fallback: str) -> str:
    name = None
    if disposition:
        message = email.message.Message()
        message["Content-Disposition"] = disposition
        name = message.get_filename()
    # Only a plain name: never a path out of the directory asked for.
    name = os.path.basename((name or "").replace("\\", "/"))
    name = re.sub(r"[\x00-\x1f]", "", name).strip()
    return name if name and name not in (".", "..") else fallback
