"""Pure ASGI middleware: request body limit and one access-log line per request."""

import logging
import time

from service.web.schemas import ErrorBody

log = logging.getLogger("rulesqa.access")


async def _send_error(send, status: int, detail: str, code: str) -> None:
    """The API's error shape (ErrorBody), sent before any route runs."""
    body = ErrorBody(detail=detail, code=code).model_dump_json().encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """Refuses bodies over max_bytes with 413, whether announced by Content-Length or streamed.

    The body is read here in full (it is small by construction) and replayed to the app, so the limit
    holds before any route code runs.
    """

    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        too_large = f"corps de requête trop volumineux (maximum {self.max_bytes // 1024} Kio)"
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            return await _send_error(send, 413, too_large, "body_too_large")
        body = b""
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # client went away
            body += message.get("body", b"")
            if len(body) > self.max_bytes:
                return await _send_error(send, 413, too_large, "body_too_large")
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class AccessLog:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        start = time.perf_counter()
        status = 500

        async def capture(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, capture)
        finally:
            ms = (time.perf_counter() - start) * 1000
            log.info("%s %s %d %.1fms", scope["method"], scope["path"], status, ms)
