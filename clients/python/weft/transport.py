"""HTTP requests to the gateway: authentication, JSON, retries (urllib, so proxies from the environment apply)."""

from __future__ import annotations

import http.client
import json as jsonlib
import platform
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Union

from .errors import WeftConnectionError, api_error
from .multipart import MultipartForm
from .retries import backoff_delay, may_retry, parse_retry_after

__all__ = ["Transport", "Response"]

Params = Mapping[str, Any]

_NO_JSON = object()


class Response:
    """An answer below 400. `raw` is the open response when it was asked as a stream (close it)."""

    def __init__(self, status: int, headers: Mapping[str, str], body: bytes = b"", raw: Any = None) -> None:
        self.status = status
        self.headers = headers
        self.body = body
        self.raw = raw

    def json(self) -> Any:
        return jsonlib.loads(self.body.decode("utf-8")) if self.body else None

    def close(self) -> None:
        if self.raw is not None:
            self.raw.close()


def encode_query(params: Optional[Params]) -> str:
    """`?a=1&b=x&b=y`: lists repeat their key, booleans are true/false, None is left out."""
    if not params:
        return ""
    pairs = []
    for key, value in params.items():
        values = value if isinstance(value, (list, tuple, set, frozenset)) else [value]
        for v in values:
            if v is None:
                continue
            pairs.append((key, ("true" if v else "false") if isinstance(v, bool) else str(v)))
    return "?" + urllib.parse.urlencode(pairs) if pairs else ""


class Transport:
    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float,
        max_retries: int,
        organization_id: Optional[str] = None,
        user_agent: Optional[str] = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        from . import __version__

        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max(0, int(max_retries))
        self._sleep = sleep
        self._opener = urllib.request.build_opener()
        self._headers: Dict[str, str] = {
            "User-Agent": user_agent or "weft-python/%s Python/%s" % (__version__, platform.python_version()),
        }
        # Keys go in X-Api-Key; anything else is taken for a token of the deployment's identity service.
        if api_key.startswith("weft_"):
            self._headers["X-Api-Key"] = api_key
        else:
            self._headers["Authorization"] = "Bearer " + api_key
        if organization_id:
            self._headers["X-Organization-Id"] = organization_id

    def url(self, path: str, params: Optional[Params] = None) -> str:
        return self.base_url + "/" + path.lstrip("/") + encode_query(params)

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Optional[Params] = None,
        json: Any = _NO_JSON,
        form: Optional[MultipartForm] = None,
        headers: Optional[Mapping[str, str]] = None,
        idempotent: bool = False,
        stream: bool = False,
        timeout: Optional[float] = None,
    ) -> Response:
        """Send a request, retrying what may be retried (retry.may_retry), honouring Retry-After.

        Raises WeftApiError (typed by status) for an answer of 400 or above once no retry
        is left, WeftConnectionError when the gateway cannot be reached.
        """
        method = method.upper()
        url = self.url(path, params)
        attempt = 0
        while True:
            request = self._build(method, url, json, form, headers)
            status: Optional[int] = None
            retry_after: Optional[float] = None
            try:
                raw = self._opener.open(request, timeout=timeout if timeout is not None else self.timeout)
                if stream:
                    return Response(raw.status, raw.headers, raw=raw)
                try:
                    return Response(raw.status, raw.headers, raw.read())
                finally:
                    raw.close()
            except urllib.error.HTTPError as err:
                status = err.code
                body = _read_quietly(err)
                retry_after = parse_retry_after(err.headers.get("Retry-After")) if err.headers else None
                if attempt >= self.max_retries or not may_retry(status, method, idempotent):
                    raise api_error(status, _decode(body), err.headers, method, url) from None
            except (OSError, http.client.HTTPException) as err:
                # URLError (refused, DNS), timeouts, resets, a response cut short.
                if attempt >= self.max_retries or not may_retry(None, method, idempotent):
                    raise WeftConnectionError("%s %s: %s" % (method, url, _reason(err))) from err
            delay = retry_after if retry_after is not None else backoff_delay(attempt)
            self._sleep(delay)
            attempt += 1

    def json(self, method: str, path: str, **kwargs: Any) -> Any:
        return self.request(method, path, **kwargs).json()

    def _build(
        self,
        method: str,
        url: str,
        json: Any,
        form: Optional[MultipartForm],
        headers: Optional[Mapping[str, str]],
    ) -> urllib.request.Request:
        all_headers = dict(self._headers)
        all_headers["Accept"] = "application/json"
        data: Union[bytes, Iterable[bytes], None] = None
        if json is not _NO_JSON:
            data = jsonlib.dumps(json, ensure_ascii=False, allow_nan=False).encode("utf-8")
            all_headers["Content-Type"] = "application/json"
        elif form is not None:
            data = form.chunks()
            all_headers["Content-Type"] = form.content_type
            all_headers["Content-Length"] = str(form.length)
        elif method in ("POST", "PUT", "PATCH"):
            data = b""
        if headers:
            all_headers.update(headers)
        return urllib.request.Request(url, data=data, headers=all_headers, method=method)


def _read_quietly(err: urllib.error.HTTPError) -> bytes:
    try:
        return err.read()
    except (OSError, http.client.HTTPException):
        return b""
    finally:
        err.close()


def _decode(body: bytes) -> Any:
    text = body.decode("utf-8", errors="replace")
    try:
        return jsonlib.loads(text)
    except ValueError:
        return text


def _reason(err: BaseException) -> str:
    reason = getattr(err, "reason", None)
    return str(reason if reason is not None else err) or type(err).__name__
