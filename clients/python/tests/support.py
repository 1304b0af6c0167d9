"""Shared by the tests: the client on sys.path (the tests run from any directory, the client
need not be installed), and loopback HTTP servers that play a gateway for what a real one
cannot be made to do on demand (a 429, a dropped stream)."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Seen:
    """A request as the server received it."""

    def __init__(self, method: str, path: str, headers: Any, body: bytes) -> None:
        # headers: the http.client.HTTPMessage, which looks names up in any letter case.
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.at = time.monotonic()

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


class Exchange:
    """What a handler function gets: the request, and ways to answer it."""

    def __init__(self, handler: BaseHTTPRequestHandler, seen: Seen) -> None:
        self._handler = handler
        self.request = seen

    def send_json(self, status: int, body: Any, headers: Optional[Dict[str, str]] = None) -> None:
        data = json.dumps(body).encode("utf-8") if body is not None else b""
        self._handler.send_response(status)
        self._handler.send_header("Content-Type", "application/json")
        self._handler.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self._handler.send_header(name, value)
        self._handler.end_headers()
        self._handler.wfile.write(data)

    def send_bytes(self, status: int, data: bytes, headers: Dict[str, str]) -> None:
        self._handler.send_response(status)
        self._handler.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self._handler.send_header(name, value)
        self._handler.end_headers()
        self._handler.wfile.write(data)

    def start_stream(self) -> None:
        """Headers of an event stream, sent chunked as the gateway sends it; the connection
        closes when the handler returns, cut short unless end_stream() was called."""
        self._handler.close_connection = True
        self._handler.send_response(200)
        self._handler.send_header("Content-Type", "text/event-stream")
        self._handler.send_header("Cache-Control", "no-cache")
        self._handler.send_header("Transfer-Encoding", "chunked")
        self._handler.end_headers()

    def write(self, text: str) -> None:
        data = text.encode("utf-8")
        self._handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self._handler.wfile.flush()

    def end_stream(self) -> None:
        self._handler.wfile.write(b"0\r\n\r\n")
        self._handler.wfile.flush()

    def event(self, name: str, event_id: str, data: Any) -> None:
        self.write("event: %s\nid: %s\ndata: %s\n\n" % (name, event_id, json.dumps(data)))

    def hang_up(self) -> None:
        """Close the connection without answering."""
        self._handler.close_connection = True


Handler = Callable[[Exchange], None]


class LoopbackServer:
    """An HTTP server on 127.0.0.1 answering every request with `handle`, recording them all."""

    def __init__(self, handle: Handler) -> None:
        self.requests: List[Seen] = []
        self._lock = threading.Lock()
        outer = self

        class RequestHandler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                seen = Seen(self.command, self.path, self.headers, body)
                with outer._lock:
                    outer.requests.append(seen)
                handle(Exchange(self, seen))

            do_GET = do_POST = do_DELETE = do_PUT = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), RequestHandler)
        self._server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def seen(self, method: str, path_prefix: str = "") -> List[Seen]:
        with self._lock:
            return [r for r in self.requests if r.method == method and r.path.startswith(path_prefix)]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def png_bytes(width: int, height: int, rgb: tuple) -> bytes:
    """A real PNG of one colour (the gateway decides a file's type from its bytes)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )
