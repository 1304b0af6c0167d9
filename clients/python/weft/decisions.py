"""Review decisions (docs/api.md#reviews): approve as proposed, with some items kept or edited, or retry."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Mapping, Optional, Union


class Decision:
    """What to do with a pending review. Build one with approve() or retry()."""

    def __init__(
        self,
        decision: str,
        *,
        items: Optional[Iterable[Any]] = None,
        output: Optional[Mapping[str, Any]] = None,
    ) -> None:
        if decision not in ("approve", "retry"):
            raise ValueError("decision must be 'approve' or 'retry', got %r" % (decision,))
        if items is not None and output is not None:
            raise ValueError("give items or output, not both")
        self.decision = decision
        self.items = list(items) if items is not None else None
        self.output = dict(output) if output is not None else None

    def needs_proposal(self) -> bool:
        """Whether the body depends on what the review proposed (an approval without a full output)."""
        return self.decision == "approve" and self.output is None

    def body(self, proposed_output: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        """The request body, given the review's `proposed_output` (`{"prompts": [...]}` or `{"asset_ids": [...]}`)."""
        if self.decision == "retry":
            return {"decision": "retry"}
        if self.output is not None:
            return {"decision": "approve", "output": self.output}
        if proposed_output is None:
            raise ValueError("approving as proposed, or with items, needs the review's proposed_output")
        if self.items is None:
            return {"decision": "approve", "output": dict(proposed_output)}
        keys = list(proposed_output.keys())
        if len(keys) != 1:
            raise ValueError("cannot tell which key holds the items of %r" % (proposed_output,))
        return {"decision": "approve", "output": {keys[0]: self.items}}

    def __repr__(self) -> str:
        extra = ", items=%r" % self.items if self.items is not None else ""
        extra += ", output=%r" % self.output if self.output is not None else ""
        return "Decision(%r%s)" % (self.decision, extra)


def approve(items: Optional[Iterable[Any]] = None, *, output: Optional[Mapping[str, Any]] = None) -> Decision:
    """Approve a review: as proposed (no argument); with `items`, the prompts or asset ids to
    go on with (a subset of the proposal to keep only those, or other ones to edit it); or
    with a whole `output` such as `{"prompts": ["..."]}`."""
    return Decision("approve", items=items, output=output)


def retry() -> Decision:
    """Ask for something different: what can change upstream runs again and the review proposes anew."""
    return Decision("retry")


DecisionLike = Union[Decision, str]


def as_decision(value: DecisionLike) -> Decision:
    if isinstance(value, Decision):
        return value
    if value == "approve":
        return approve()
    if value == "retry":
        return retry()
    raise TypeError("expected weft.approve(...), weft.retry(), 'approve' or 'retry', got %r" % (value,))
