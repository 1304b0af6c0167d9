"""multipart/form-data bodies for uploads, streamed from a file and replayable for retries."""

from __future__ import annotations

import io
import mimetypes
import os
import uuid
from typing import IO, Iterator, List, Optional, Sequence, Tuple, Union

Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, IO[bytes]]

CHUNK_BYTES = 256 * 1024


class FilePart:
    """The file of a form: bytes in memory, a path (opened for each attempt), or a binary file object."""

    def __init__(self, source: Source, filename: Optional[str] = None) -> None:
        self._data: Optional[bytes] = None
        self._path: Optional[str] = None
        self._file: Optional[IO[bytes]] = None
        self._start = 0
        if isinstance(source, (bytes, bytearray, memoryview)):
            self._data = bytes(source)
            self.size = len(self._data)
            default_name = "upload"
        elif isinstance(source, (str, os.PathLike)):
            self._path = os.fspath(source)
            self.size = os.stat(self._path).st_size
            default_name = os.path.basename(self._path)
        elif hasattr(source, "read"):
            name = getattr(source, "name", None)
            default_name = os.path.basename(name) if isinstance(name, str) else "upload"
            if _seekable(source):
                self._file = source
                self._start = source.tell()
                self.size = source.seek(0, io.SEEK_END) - self._start
                source.seek(self._start)
            else:
                # Read once so that a retry can send it again.
                data = source.read()
                if isinstance(data, str):
                    raise TypeError("upload: open the file in binary mode ('rb')")
                self._data = bytes(data)
                self.size = len(self._data)
        else:
            raise TypeError("upload: expected a path, bytes or a binary file object, got %s" % type(source).__name__)
        self.filename = filename or default_name
        self.content_type = mimetypes.guess_type(self.filename)[0] or "application/octet-stream"

    def chunks(self) -> Iterator[bytes]:
        if self._data is not None:
            yield self._data
            return
        if self._path is not None:
            with open(self._path, "rb") as f:
                yield from _read_exactly(f, self.size, self._path)
            return
        assert self._file is not None
        self._file.seek(self._start)
        yield from _read_exactly(self._file, self.size, self.filename)


class MultipartForm:
    """A form of text fields and one file part, with its length known before it is sent
    (so the gateway can refuse an oversized upload before reading it)."""

    def __init__(self, fields: Sequence[Tuple[str, str]], file_field: str, file: FilePart) -> None:
        self.boundary = "weft-" + uuid.uuid4().hex
        self.content_type = "multipart/form-data; boundary=" + self.boundary
        head: List[bytes] = []
        for name, value in fields:
            head.append(self._part_header(name, None, None))
            head.append(value.encode("utf-8") + b"\r\n")
        head.append(self._part_header(file_field, file.filename, file.content_type))
        self._head = b"".join(head)
        self._tail = b"\r\n--" + self.boundary.encode("ascii") + b"--\r\n"
        self._file = file
        self.length = len(self._head) + file.size + len(self._tail)

    def chunks(self) -> Iterator[bytes]:
        """The body, from its start: call again for each attempt."""
        yield self._head
        yield from self._file.chunks()
        yield self._tail

    def _part_header(self, name: str, filename: Optional[str], content_type: Optional[str]) -> bytes:
        disposition = 'form-data; name="%s"' % _quote(name)
        if filename is not None:
            disposition += '; filename="%s"' % _quote(filename)
        lines = ["--" + self.boundary, "Content-Disposition: " + disposition]
        if content_type:
            lines.append("Content-Type: " + content_type)
        return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8")


def _quote(value: str) -> str:
    # As browsers write form data (WHATWG): UTF-8, with the quote and line breaks percent-encoded.
    return value.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


def _seekable(f: IO[bytes]) -> bool:
    try:
        return bool(f.seekable()) if hasattr(f, "seekable") else False
    except (OSError, ValueError):
        return False


def _read_exactly(f: IO[bytes], size: int, what: str) -> Iterator[bytes]:
    left = size
    while left > 0:
        chunk = f.read(min(CHUNK_BYTES, left))
        if not chunk:
            raise IOError(
                "%s: the file ended %d bytes short of its size; was it changed while uploading?" % (what, left)
            )
        left -= len(chunk)
        yield chunk
