"""What Client.run() does before creating a run: find the agent or app, upload the files given as inputs."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any, List, Mapping, Optional, Tuple

from .errors import WeftLookupError, WeftNotFoundError
from .resources import Inputs, Record, run_inputs

if TYPE_CHECKING:
    from .client import Client

UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")

# Inputs that take {"asset_ids": [...]}: agents name them by node type, apps by media type.
ASSET_INPUT_TYPES = {
    "agent": frozenset({"image_input", "video_input", "audio_input", "file_input"}),
    "app": frozenset({"image", "video", "audio", "file"}),
}


def is_uuid(value: Any) -> bool:
    return isinstance(value, str) and UUID.match(value) is not None


def resolve_target(client: "Client", target: str, kind: Optional[str]) -> Tuple[str, Record]:
    """("agent" | "app", its record) for an id or an exact name; `kind` narrows the search.

    A name is looked up among the caller organization's own agents and apps first, then
    among other organizations' public ones: your own wins over another's public one of the
    same name. Two matches at the same level are ambiguous.
    """
    if kind not in (None, "agent", "app"):
        raise ValueError("kind must be 'agent', 'app' or None, got %r" % (kind,))
    kinds = [kind] if kind else ["agent", "app"]
    if is_uuid(target):
        for k in kinds:
            try:
                return k, _resource(client, k).get(target)
            except WeftNotFoundError:
                continue
        raise WeftLookupError("No %s has the id %s" % (" or ".join(kinds), target))
    # A public one of the caller's own matches in the first tier: the second holds other organizations'.
    for tier, whose in (({"owned": True}, "yours"), ({"visibility": "public"}, "public, another organization")):
        found = [(k, c) for k in kinds for c in _named(client, k, target, tier)]
        if len(found) > 1:
            names = ", ".join("%s %s (%s)" % (k, c["id"], whose) for k, c in found)
            raise WeftLookupError("Several are named %r (%s): pass an id, or kind=" % (target, names))
        if found:
            k, summary = found[0]
            return k, _resource(client, k).get(summary["id"])
    raise WeftLookupError("No %s is named %r" % (" or ".join(kinds), target))


def _named(client: "Client", kind: str, target: str, tier: Mapping[str, Any]) -> List[Record]:
    """The agents or apps of one tier named `target`: exactly if any, else letter case aside."""
    candidates = list(_resource(client, kind).list(search=target, page_size=100, **tier))
    exact = [c for c in candidates if c.get("name") == target]
    return exact or [c for c in candidates if str(c.get("name", "")).casefold() == target.casefold()]


def prepare_inputs(client: "Client", kind: str, record: Record, inputs: Inputs) -> List[Record]:
    """The inputs as the API takes them, each file given for an asset input uploaded first.

    For an asset input, a value may be a path (str or os.PathLike), bytes, a binary file
    object, an asset id, an asset record, or a list of those; `{"asset_ids": [...]}` passes
    as it is. A string that is a UUID is taken for an asset id, any other for a path.
    """
    asset_types = ASSET_INPUT_TYPES[kind]
    asset_inputs = {spec.get("id") for spec in record.get("inputs") or [] if spec.get("type") in asset_types}
    prepared = run_inputs(inputs)
    for item in prepared:
        if item.get("id") in asset_inputs:
            item["value"] = _asset_value(client, item.get("value"))
    return prepared


def _asset_value(client: "Client", value: Any) -> Any:
    if isinstance(value, Mapping) and "asset_ids" in value:
        return dict(value)
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    return {"asset_ids": [_asset_id(client, v) for v in values]}


def _asset_id(client: "Client", value: Any) -> Any:
    if is_uuid(value):
        return value
    if isinstance(value, Mapping) and isinstance(value.get("id"), str):
        return value["id"]
    if isinstance(value, (str, os.PathLike, bytes, bytearray, memoryview)) or hasattr(value, "read"):
        return client.assets.upload(value)["id"]
    # Anything else goes as given: the gateway says what it expected.
    return value


def _resource(client: "Client", kind: str) -> Any:
    return client.agents if kind == "agent" else client.apps


__all__ = ["resolve_target", "prepare_inputs", "is_uuid"]
