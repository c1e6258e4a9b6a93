"""The web renderer's server: aiohttp (chosen by measurement: docs/web.md) in a thread of its own.

It serves the page (``/``) and its script and style (``/static/``), and talks to the page over one WebSocket
(``/ws``): every message in is checked (:mod:`.messages`) and handed to the owner's ``act``; what the page shows
is the owner's ``snapshot()``, sent again whenever it changes -- at once when the game's thread posts
(:meth:`WebServer.wake`), and four times a second while something ticks (a clock, a bot's thinking time).

Safe by default (docs/web.md, "Safe by default"):

- bound to 127.0.0.1 unless a host is given;
- a random token in the printed address, exchanged on the first load for an HttpOnly, SameSite=Strict cookie (the
  page then drops it from the address bar; the WebSocket's address carries none): without it neither the page nor
  the WebSocket answers;
- a request whose ``Host`` is not an address this server serves is refused (DNS rebinding), and so is a
  WebSocket whose ``Origin`` is not this page's (``null`` and missing included);
- at most :data:`MAX_CONNECTIONS` connections (:data:`MAX_PER_ADDRESS` from one address; those past it are closed
  at once), and a connection that has not sent a whole request head within :data:`HEAD_TIMEOUT` seconds is closed;
- each page is sent to by a task of its own, from a queue of its own: the answers to its messages (at most
  :data:`QUEUE`; a page that sends faster than it reads waits on itself) and the newest snapshot (one: a newer one
  replaces it).  A page that takes :data:`SEND_TIMEOUT` seconds to take one message is dropped (the page
  reconnects), so one that never reads holds up no other;
- messages longer than :data:`~.messages.MAX_MESSAGE` refused, and those past :data:`MAX_FRAME` end the
  connection (aiohttp's limit).
"""
from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import resource
import secrets
import socket
import threading
import traceback
from importlib import resources
from typing import Any, Protocol

from plyground.errors import UsageError

from .addresses import host_names, reachable_addresses
from .messages import MAX_MESSAGE, BadMessage, check

#: The largest WebSocket frame read at all; a longer one closes the connection (1009, message too big).
MAX_FRAME = 64 * 1024
#: Seconds between snapshots while something on the page ticks (clocks, a thinking bot's time).
TICK = 0.25
#: The page's files, served from the package.
STATIC = {"page.js": "application/javascript", "page.css": "text/css"}
#: Seconds a connection may take to send a whole request head (and that an idle kept-alive one stays open).
HEAD_TIMEOUT = 10.0
#: Connections open at once, at most (fewer where the process may open few files); from one address, at most
#: (and never over a quarter of the first: one address cannot take every place).
MAX_CONNECTIONS = 256
MAX_PER_ADDRESS = 32
#: Connections waiting to be accepted, at most (the listen backlog; asyncio also accepts up to this many in one turn
#: of its loop, so it is bounded by the files the process may open too: :func:`_connection_limit`).
BACKLOG = 128
#: Answers waiting to be sent to one page, at most (its messages are not read meanwhile).
QUEUE = 32
#: Seconds one message may take to be taken by a page before the page is dropped.
SEND_TIMEOUT = 10.0
#: The cookie the token becomes after the first load (one name a port: two games' pages on one host differ).
COOKIE = "plyground-{port}"


class Owner(Protocol):
    """What the server serves: the renderer."""

    def snapshot(self) -> dict: ...
    def act(self, message: dict) -> None: ...
    def page_count_changed(self, pages: int) -> None: ...


def _static(name: str) -> bytes:
    return resources.files(__package__).joinpath("static", name).read_bytes()


def _connection_limit() -> tuple[int, int]:
    """(connections open at once, the listen backlog): :data:`MAX_CONNECTIONS` and :data:`BACKLOG`, or an eighth of
    the files this process may open each if that is fewer (connections past the limit are accepted, then closed:
    they hold files for a moment too, a turn's backlog of them at a time)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS, BACKLOG
    return max(8, min(MAX_CONNECTIONS, soft // 8)), max(8, min(BACKLOG, soft // 8))


class _Page:
    """One page's WebSocket and what waits to be sent to it: answers to its messages, then the newest snapshot."""

    def __init__(self, ws, transport) -> None:
        self.ws, self.transport = ws, transport
        self.answers: asyncio.Queue[str] = asyncio.Queue(QUEUE)
        self.snapshot: str | None = None
        self.waiting = asyncio.Event()
        self.closed = asyncio.Event()
        self.sender: asyncio.Task | None = None

    async def answer(self, text: str) -> None:
        """Queue an answer to this page's message; while its queue is full, wait (the page's own messages are not
        read meanwhile) -- until there is room, or the page is dropped."""
        if self.answers.full() and not self.closed.is_set():
            room = asyncio.ensure_future(self.answers.put(text))
            closed = asyncio.ensure_future(self.closed.wait())
            await asyncio.wait({room, closed}, return_when=asyncio.FIRST_COMPLETED)
            closed.cancel()
            if not room.done():
                room.cancel()
        elif not self.closed.is_set():
            self.answers.put_nowait(text)
        self.waiting.set()

    def show(self, text: str) -> None:
        self.snapshot = text
        self.waiting.set()

    async def next(self) -> str:
        while self.answers.empty() and self.snapshot is None:
            self.waiting.clear()
            await self.waiting.wait()
        if not self.answers.empty():
            return self.answers.get_nowait()
        text, self.snapshot = self.snapshot, None
        return text

    def drop(self) -> None:
        """Close the connection at once (what is waiting to be sent is discarded; an answer waiting for room
        gives up)."""
        self.closed.set()
        if self.transport is not None and not self.transport.is_closing():
            self.transport.abort()


class WebServer:
    """Serves ``owner`` on ``host``:``port`` (0: a free port) from a thread of its own until :meth:`stop`."""

    def __init__(self, owner: Owner, host: str = "127.0.0.1", port: int = 0) -> None:
        self.owner, self.host, self.port = owner, host, port
        self.token = secrets.token_urlsafe(18)
        self.pages: dict[Any, _Page] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._wakeup: asyncio.Event | None = None
        self._last_sent = ""
        self._open: dict[str, int] = {}         # connections open, by the peer's address
        self._hosts: frozenset[str] = frozenset()
        self.refusals = 0          # messages refused (for the tests and the hostile-message check)
        self.dropped = 0           # pages dropped for not taking what was sent

    # ------------------------------------------------------------ life
    @property
    def url(self) -> str:
        """The address to open: for a server on every address (``0.0.0.0``), one another device can use."""
        host = self.address
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}/?token={self.token}"

    @property
    def address(self) -> str:
        if self.host in ("0.0.0.0", "::", ""):
            found = reachable_addresses()
            return found[0] if found else "127.0.0.1"
        return self.host

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

    def _protocol(self, runner, limit: int):
        """The protocol factory: aiohttp's handler for a connection within the limits, else one closed at once."""
        def make():
            return _Counted(self, runner.server(), limit)
        return make

    async def _serve(self) -> None:
        from aiohttp import web
        app = web.Application(client_max_size=MAX_MESSAGE)
        app.router.add_get("/", self._page)
        app.router.add_get("/ws", self._websocket)
        app.router.add_get("/static/{name}", self._file)
        app.router.add_get("/favicon.ico", self._no_icon)
        # keepalive_timeout bounds a request head's time too: aiohttp closes a connection that has not sent a whole
        # request within it of opening (or of its last answer).
        runner = web.AppRunner(app, access_log=None, handle_signals=False, keepalive_timeout=HEAD_TIMEOUT)
        await runner.setup()
        limit, backlog = _connection_limit()
        try:
            server = await asyncio.get_running_loop().create_server(
                self._protocol(runner, limit), self.host or None, self.port, reuse_address=True, backlog=backlog)
        except socket.gaierror as exc:
            await runner.cleanup()
            raise UsageError(f"the web renderer cannot listen on host={self.host}: no such address here "
                             f"({exc.strerror or exc}); give one of this computer's addresses: 127.0.0.1 (this "
                             f"computer only) or 0.0.0.0 (every address, for a phone on your network)") from None
        except OSError as exc:
            await runner.cleanup()
            raise UsageError(f"the web renderer cannot listen on {self.host}:{self.port}: "
                             f"{exc.strerror or exc}; choose another port (web:port=N) or 0 for any free one") from None
        self.port = server.sockets[0].getsockname()[1]
        self._hosts = frozenset(host_names(self.host, self.port))
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
            server.close()
            for page in list(self.pages.values()):
                with contextlib.suppress(asyncio.TimeoutError, ConnectionError, RuntimeError):
                    await asyncio.wait_for(page.ws.close(code=1001, message=b"the game has ended"), 2.0)
                page.drop()
            await runner.shutdown()
            await runner.cleanup()
            # What is left (a page's sender, a handler still closing) ends before the loop does.
            left = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in left:
                task.cancel()
            await asyncio.gather(*left, return_exceptions=True)

    def stop(self) -> None:
        """Close the pages' connections and the server; returns when it is down."""
        thread = self._thread                  # (two threads may stop it: the game's page and its caller)
        if self.loop is None or thread is None:
            return
        if thread.is_alive():
            try:
                self.loop.call_soon_threadsafe(self._stopping.set)
            except RuntimeError:               # the loop closed meanwhile
                pass
            thread.join(10)
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
        given = request.cookies.get(COOKIE.format(port=self.port), "")
        return hmac.compare_digest(given.encode(), self.token.encode())

    def _host_ok(self, request) -> bool:
        return request.headers.get("Host", "").lower() in self._hosts

    def _origin_ok(self, request) -> bool:
        origin = request.headers.get("Origin", "")
        return origin.lower() == f"http://{request.headers.get('Host', '').lower()}" and self._host_ok(request)

    def _refusal(self, request):
        """The answer to a request refused before it is served (a foreign Host), or None."""
        from aiohttp import web
        if not self._host_ok(request):
            return web.Response(status=421, text=f"This server answers to {', '.join(sorted(self._hosts))} only "
                                                 f"(not to Host {request.headers.get('Host', '')[:80]!r}).\n")
        return None

    async def _page(self, request):
        from aiohttp import web
        refused = self._refusal(request)
        if refused is not None:
            return refused
        given = request.query.get("token")
        headers = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
                   "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' "
                                              "'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'",
                   "X-Frame-Options": "DENY"}
        if given is not None and hmac.compare_digest(given.encode(), self.token.encode()):
            response = web.Response(body=_static("page.html"), content_type="text/html", headers=headers)
            response.set_cookie(COOKIE.format(port=self.port), self.token, httponly=True, samesite="Strict",
                                path="/")
            return response                  # the page drops ?token= from the address bar (page.js)
        if given is None and self._token_ok(request):
            return web.Response(body=_static("page.html"), content_type="text/html", headers=headers)
        return web.Response(status=403, text="This game's page needs the address plyground printed, with its "
                                             "token (?token=...).\n")

    async def _no_icon(self, request):
        from aiohttp import web
        return self._refusal(request) or web.Response(status=204)

    async def _file(self, request):
        from aiohttp import web
        refused = self._refusal(request)
        if refused is not None:
            return refused
        name = request.match_info["name"]
        if name not in STATIC:
            raise web.HTTPNotFound()
        return web.Response(body=_static(name), content_type=STATIC[name], headers={"Cache-Control": "no-cache"})

    async def _websocket(self, request):
        from aiohttp import WSMsgType, web
        refused = self._refusal(request)
        if refused is not None:
            return refused
        if not self._origin_ok(request):
            return web.Response(status=403, text="this page's WebSocket takes connections from its own page only "
                                                 "(Origin)\n")
        if not self._token_ok(request):
            return web.Response(status=403, text="wrong or missing token: open the address plyground printed\n")
        ws = web.WebSocketResponse(max_msg_size=MAX_FRAME, heartbeat=20)
        await ws.prepare(request)
        page = _Page(ws, request.transport)
        page.sender = asyncio.ensure_future(self._send_loop(page))
        self.pages[ws] = page
        self.owner.page_count_changed(len(self.pages))
        try:
            page.show(self._snapshot_text())
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    reply = self._take(msg.data)
                elif msg.type == WSMsgType.BINARY:
                    reply = self._take(msg.data)
                else:                  # an error frame (a message past MAX_FRAME): aiohttp closes the socket
                    break
                if reply is not None:
                    # This page's own queue: a page that sends without reading waits on itself alone.
                    await page.answer(json.dumps(reply))
                self._wakeup.set()     # the push loop sends what changed (once for a burst of messages)
        finally:
            page.sender.cancel()
            self.pages.pop(ws, None)
            self.owner.page_count_changed(len(self.pages))
        return ws

    async def _send_loop(self, page: _Page) -> None:
        """Send ``page`` what waits for it; one message not taken within SEND_TIMEOUT drops the page."""
        try:
            while True:
                text = await page.next()
                await asyncio.wait_for(page.ws.send_str(text), SEND_TIMEOUT)
        except asyncio.TimeoutError:
            self._drop(page)
        except (ConnectionError, RuntimeError):       # the page closing meanwhile
            page.drop()

    def _drop(self, page: _Page) -> None:
        self.dropped += 1
        page.drop()

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

    def _send_if_changed(self) -> None:
        text = self._snapshot_text()
        if text == self._last_sent:
            return
        self._last_sent = text
        for page in list(self.pages.values()):
            page.show(text)                            # never waits: each page's own task sends it

    async def _push_loop(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self._wakeup.wait(), TICK)
            except asyncio.TimeoutError:
                pass
            self._wakeup.clear()
            if self.pages:
                self._send_if_changed()

    # ------------------------------------------------------------ connections
    def _admit(self, peer: str, limit: int) -> bool:
        """Count a new connection from ``peer``; False (not counted) past the limits."""
        if sum(self._open.values()) >= limit or self._open.get(peer, 0) >= min(MAX_PER_ADDRESS, limit // 4):
            return False
        self._open[peer] = self._open.get(peer, 0) + 1
        return True

    def _release(self, peer: str) -> None:
        left = self._open.get(peer, 0) - 1
        if left > 0:
            self._open[peer] = left
        else:
            self._open.pop(peer, None)


class _Counted(asyncio.Protocol):
    """aiohttp's handler for one connection, counted against the server's limits (a connection past them is
    closed at once)."""

    def __init__(self, server: WebServer, handler, limit: int) -> None:
        self.server, self.handler, self.limit = server, handler, limit
        self.peer: str | None = None

    def connection_made(self, transport) -> None:
        peer = transport.get_extra_info("peername")
        peer = str(peer[0]) if peer else "?"
        if not self.server._admit(peer, self.limit):
            transport.abort()
            return
        self.peer = peer
        self.handler.connection_made(transport)

    def connection_lost(self, exc) -> None:
        if self.peer is not None:
            self.server._release(self.peer)
            self.peer = None
            self.handler.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.peer is not None:
            self.handler.data_received(data)

    def eof_received(self):
        return self.handler.eof_received() if self.peer is not None else None

    def pause_writing(self) -> None:
        self.handler.pause_writing()

    def resume_writing(self) -> None:
        self.handler.resume_writing()


__all__ = ["WebServer", "MAX_FRAME", "TICK", "HEAD_TIMEOUT", "MAX_CONNECTIONS", "QUEUE"]
