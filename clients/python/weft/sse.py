"""A parser of text/event-stream (the WHATWG server-sent events format), fed one line at a time.

The standard library has none. This one follows the specification's field rules:
`event`, `data` (several lines joined by newlines), `id` (kept across events, ignored
when it holds a NUL), `retry` (digits only), comment lines starting with a colon,
an event dispatched on a blank line only when it has data, and an unfinished event
at the end of the stream dropped. Lines end in LF or CRLF (what `readline` gives).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, List, Optional, Union


@dataclass(frozen=True)
class Message:
    """One dispatched event: its type (`message` when not named), data and the stream's last event id."""

    event: str
    data: str
    id: Optional[str]
    retry: Optional[int] = None


class Parser:
    def __init__(self) -> None:
        self.last_event_id: Optional[str] = None
        self.retry: Optional[int] = None
        self._event = ""
        self._data: List[str] = []
        self._first = True

    def feed(self, line: Union[bytes, str]) -> Optional[Message]:
        """One line (its line ending included or not); the event it completes, if any."""
        if isinstance(line, bytes):
            line = line.decode("utf-8", errors="replace")
        if self._first:
            self._first = False
            if line.startswith("\ufeff"):
                line = line[1:]
        if line.endswith("\n"):
            line = line[:-1]
        if line.endswith("\r"):
            line = line[:-1]
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        field, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if field == "event":
            self._event = value
        elif field == "data":
            self._data.append(value)
        elif field == "id":
            if "\0" not in value:
                self.last_event_id = value
        elif field == "retry":
            if value.isdigit():
                self.retry = int(value)
        return None

    def _dispatch(self) -> Optional[Message]:
        if not self._data:
            self._event = ""
            return None
        message = Message(
            event=self._event or "message",
            data="\n".join(self._data),
            id=self.last_event_id,
            retry=self.retry,
        )
        self._event = ""
        self._data = []
        return message


def iter_messages(lines: Iterable[Union[bytes, str]]) -> Iterator[Message]:
    """The events of a stream given as lines (a response read with readline, a list in tests)."""
    parser = Parser()
    for line in lines:
        message = parser.feed(line)
        if message is not None:
            yield message
