"""The web renderer's server: aiohttp (chosen by measurement: docs/web.md) in a thread of its own.

It serves the page (``/``, with the token) and its script and style (``/static/``), and talks to the page over
one WebSocket (``/ws``, with the token): every message in is checked (:mod:`.messages`) and handed to the owner's
``act``; what the page shows is the owner's ``snapshot()``, sent again whenever it changes -- at once when the
game's thread posts (:meth:`WebServer.wake`), and four times a second while something ticks (a clock, a bot's
thinking time).

Safe by default: bound to 127.0.0.1 unless a host is given; a random token in the address, without which
neither the page nor the WebSocket answers; messages longer than :data:`~.messages.MAX_MESSAGE` refused, and
those past :data:`MAX_FRAME` end the connection (aiohttp's limit).
"""
from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import secrets
import threading
import traceback
from importlib import resources
from typing import Any, Protocol

from plyground.errors import UsageError

from .messages import MAX_MESSAGE, BadMessage, check

#: The largest WebSocket frame read at all; a longer one closes the connection (1009, message too big).
MAX_FRAME = 64 * 1024
#: Seconds between snapshots while something on the page ticks (clocks, a thinking bot's time).
TICK = 0.25
#: The page's files, served from the package.
STATIC = {"page.js": "application/javascript", "page.css": "text/css"}


class Owner(Protocol):
    """What the server serves: the renderer."""

    def snapshot(self) -> dict: ...
    def act(self, message: dict) -> None: ...
    def page_count_changed(self, pages: int) -> None: ...


def _static(name: str) -> bytes:
    return resources.files(__package__).joinpath("static", name).read_bytes()


class WebServer:
    """Serves ``owner`` on ``host``:``port`` (0: a free port) from a thread of its own until :meth:`stop`."""

    def __init__(self, owner: Owner, host: str = "127.0.0.1", port: int = 0) -> None:
        self.owner, self.host, self.port = owner, host, port
        self.token = secrets.token_urlsafe(18)
        self.sockets: set = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._wakeup: asyncio.Event | None = None
        self._last_sent = ""
        self.refusals = 0          # messages refused (for the tests and the hostile-message check)

    # ------------------------------------------------------------ life
    @property
    def url(self) -> str:
        host = self.host if self.host not in ("0.0.0.0", "::", "") else "127.0.0.1"
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}/?token={self.token}"

    def start(self) -> "WebServer":
        self._thread = threading.Thread(target=self._run, name="plyground-web", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._failure is not None:
            raise self._failure
        return self

    def _run(self) -> None:
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._serve())
        except BaseException as exc:  # noqa: BLE001 - handed to start() when it fails before serving
            if not self._ready.is_set():
                self._failure = exc
                self._ready.set()
        finally:
            self.loop.close()

    async def _serve(self) -> None:
        from aiohttp import web
        app = web.Application(client_max_size=MAX_MESSAGE)
        app.router.add_get("/", self._page)
        app.router.add_get("/ws", self._websocket)
        app.router.add_get("/static/{name}", self._file)
        app.router.add_get("/favicon.ico", self._no_icon)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise UsageError(f"the web renderer cannot listen on {self.host}:{self.port}: "
                             f"{exc.strerror or exc}; choose another port (web:port=N) or 0 for any free one") from None
        self.port = runner.addresses[0][1]
        self._wakeup = asyncio.Event()
        self._stopping = asyncio.Event()
        self._ready.set()
        pusher = asyncio.ensure_future(self._push_loop())
        try:
            await self._stopping.wait()
        finally:
            pusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pusher
            for ws in list(self.sockets):
                await ws.close(code=1001, message=b"the game has ended")
            await runner.cleanup()

    def stop(self) -> None:
        """Close the pages' connections and the server; returns when it is down."""
        if self.loop is None or self._thread is None:
            return
        if self._thread.is_alive():
            self.loop.call_soon_threadsafe(self._stopping.set)
            self._thread.join(10)
        self._thread = None

    def wake(self) -> None:
        """Something the page shows has changed (from any thread): send a snapshot now."""
        loop = self.loop
        if loop is not None and self._wakeup is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._wakeup.set)
            except RuntimeError:      # the loop closed meanwhile
                pass

    # ------------------------------------------------------------ requests
    def _token_ok(self, request) -> bool:
        given = request.query.get("token", "")
        return hmac.compare_digest(given.encode(), self.token.encode())

    async def _page(self, request):
        from aiohttp import web
        if not self._token_ok(request):
            return web.Response(status=403, text="This game's page needs the address plyground printed, with its "
                                                 "token (?token=...).\n")
        return web.Response(body=_static("page.html"), content_type="text/html",
                            headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
                                     "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                                                                "style-src 'self' 'unsafe-inline'; "
                                                                "connect-src 'self'"})

    async def _no_icon(self, request):
        from aiohttp import web
        return web.Response(status=204)

    async def _file(self, request):
        from aiohttp import web
        name = request.match_info["name"]
        if name not in STATIC:
            raise web.HTTPNotFound()
        return web.Response(body=_static(name), content_type=STATIC[name], headers={"Cache-Control": "no-cache"})

    async def _websocket(self, request):
        from aiohttp import WSMsgType, web
        if not self._token_ok(request):
            return web.Response(status=403, text="wrong or missing token\n")
        ws = web.WebSocketResponse(max_msg_size=MAX_FRAME, heartbeat=20)
        await ws.prepare(request)
        self.sockets.add(ws)
        self.owner.page_count_changed(len(self.sockets))
        try:
            await ws.send_str(self._snapshot_text())
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    reply = self._take(msg.data)
                elif msg.type == WSMsgType.BINARY:
                    reply = self._take(msg.data)
                else:                  # an error frame (a message past MAX_FRAME): aiohttp closes the socket
                    break
                if reply is not None:
                    await ws.send_str(json.dumps(reply))
                self._wakeup.set()     # the push loop sends what changed (once for a burst of messages)
        finally:
            self.sockets.discard(ws)
            self.owner.page_count_changed(len(self.sockets))
        return ws

    def _take(self, data: Any) -> dict | None:
        """Check and act on one message; the reply (a refusal's reason), or None."""
        try:
            message = check(data)
            self.owner.act(message)
        except (BadMessage, ValueError) as exc:
            self.refusals += 1
            return {"type": "refused", "reason": str(exc)}
        except Exception as exc:  # noqa: BLE001 - a fault of ours: said, on the page and here, and the game goes on
            traceback.print_exc()
            self.refusals += 1
            return {"type": "refused", "reason": f"the server failed on this message ({type(exc).__name__}: {exc})"}
        return None

    # ------------------------------------------------------------ pushing what the page shows
    def _snapshot_text(self) -> str:
        try:
            snapshot = self.owner.snapshot()
        except Exception as exc:  # noqa: BLE001 - the page says what went wrong rather than going blank
            snapshot = {"type": "error", "text": f"{type(exc).__name__}: {exc}"}
        return json.dumps(snapshot)

    async def _send_if_changed(self) -> None:
        text = self._snapshot_text()
        if text == self._last_sent:
            return
        self._last_sent = text
        for ws in list(self.sockets):
            try:
                await ws.send_str(text)
            except (ConnectionError, RuntimeError):    # a page closing meanwhile
                self.sockets.discard(ws)

    async def _push_loop(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self._wakeup.wait(), TICK)
            except asyncio.TimeoutError:
                pass
            self._wakeup.clear()
            if self.sockets:
                await self._send_if_changed()


__all__ = ["WebServer", "MAX_FRAME", "TICK"]

