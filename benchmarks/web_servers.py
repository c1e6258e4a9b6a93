"""Which web server library the browser renderer (#56) is built on: aiohttp against Starlette on uvicorn, side
by side in one run, on what the renderer does most, a WebSocket message in and an answer out.

    python benchmarks/web_servers.py                      # 2,000 round trips and a flood of 10,000 each
    python benchmarks/web_servers.py --round-trips 5000 --flood 20000

Each server runs in its own process on 127.0.0.1 (a free port) with the same
handler: parse the JSON message, check its size and fields, answer with a small
JSON message (as the renderer will answer a move).  One client (aiohttp's, for
both) sends a message and waits for its answer, ``--round-trips`` times: the
latency distribution.  Then it sends ``--flood`` messages without waiting and
reads the answers: messages a second, and the server's resident memory before
and after (``/proc``).  Prints the figures and the load; asserts nothing.
Needs ``pip install aiohttp starlette uvicorn websockets``.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import socket
import statistics
import time

LIMIT = 4096          # the largest message a handler accepts (bytes)


def answer(text: str) -> str:
    """The handler's work: what the renderer does with a message before it reaches the game."""
    if len(text) > LIMIT:
        return json.dumps({"error": f"message of {len(text)} bytes; at most {LIMIT}"})
    try:
        message = json.loads(text)
    except ValueError as error:
        return json.dumps({"error": f"not JSON: {error}"})
    if not isinstance(message, dict) or message.get("type") != "move" or not isinstance(message.get("move"), str):
        return json.dumps({"error": "expected {\"type\": \"move\", \"move\": TEXT}"})
    return json.dumps({"type": "moved", "move": message["move"], "seq": message.get("seq")})


def serve_aiohttp(port: int) -> None:
    from aiohttp import WSMsgType, web

    async def socket_handler(request):
        ws = web.WebSocketResponse(max_msg_size=LIMIT * 4)
        await ws.prepare(request)
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                await ws.send_str(answer(msg.data))
        return ws

    app = web.Application()
    app.router.add_get("/ws", socket_handler)
    web.run_app(app, host="127.0.0.1", port=port, print=None, handle_signals=True)


def serve_starlette(port: int) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocketDisconnect

    async def socket_handler(ws):
        await ws.accept()
        try:
            while True:
                await ws.send_text(answer(await ws.receive_text()))
        except WebSocketDisconnect:
            pass

    app = Starlette(routes=[WebSocketRoute("/ws", socket_handler)])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="error", ws_max_size=LIMIT * 4)


#: Each server: how to run it, and the packages it is made of (their versions are printed).
SERVERS = {"aiohttp": (serve_aiohttp, ("aiohttp",)),
           "starlette+uvicorn": (serve_starlette, ("starlette", "uvicorn", "websockets"))}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


async def drive(port: int, pid: int, round_trips: int, flood: int) -> dict:
    import aiohttp
    async with aiohttp.ClientSession() as session:
        for _ in range(200):                     # wait for the server to listen
            try:
                ws = await session.ws_connect(f"http://127.0.0.1:{port}/ws")
                break
            except aiohttp.ClientError:
                await asyncio.sleep(0.05)
        else:
            raise RuntimeError(f"no server on port {port}")
        for i in range(100):                     # warm up
            await ws.send_str(json.dumps({"type": "move", "move": "11-15", "seq": i}))
            await ws.receive()
        latencies = []
        for i in range(round_trips):
            started = time.perf_counter()
            await ws.send_str(json.dumps({"type": "move", "move": "11-15", "seq": i}))
            reply = await ws.receive()
            latencies.append(time.perf_counter() - started)
            assert json.loads(reply.data)["seq"] == i
        before = rss_kib(pid)
        started = time.perf_counter()
        for i in range(flood):
            await ws.send_str(json.dumps({"type": "move", "move": "11-15", "seq": i}))
        for _ in range(flood):
            await ws.receive()
        seconds = time.perf_counter() - started
        after = rss_kib(pid)
        await ws.close()
    latencies.sort()
    return {"median_ms": 1000 * statistics.median(latencies), "p95_ms": 1000 * latencies[int(0.95 * len(latencies))],
            "p99_ms": 1000 * latencies[int(0.99 * len(latencies))], "max_ms": 1000 * latencies[-1],
            "flood_per_s": flood / seconds, "rss_before_kib": before, "rss_after_kib": after}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--round-trips", type=int, default=2000)
    parser.add_argument("--flood", type=int, default=10000)
    args = parser.parse_args(argv)
    if args.round_trips < 100 or args.flood < 1:
        parser.error("--round-trips takes at least 100 and --flood at least 1")
    from importlib.metadata import PackageNotFoundError, version
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {args.round_trips} round trips, "
          f"a flood of {args.flood}", flush=True)
    context = multiprocessing.get_context("spawn")
    for name, (serve, packages) in SERVERS.items():
        try:
            versions = ", ".join(f"{p} {version(p)}" for p in packages)
        except PackageNotFoundError as missing:
            parser.exit(1, f"{name} needs {missing.name}: pip install aiohttp starlette uvicorn websockets\n")
        port = free_port()
        process = context.Process(target=serve, args=(port,), daemon=True)
        process.start()
        try:
            r = asyncio.run(drive(port, process.pid, args.round_trips, args.flood))
        finally:
            process.terminate()
            process.join(10)
        print(f"{name:18s} ({versions}): round trip median {r['median_ms']:.3f} ms, p95 {r['p95_ms']:.3f}, "
              f"p99 {r['p99_ms']:.3f}, max {r['max_ms']:.2f}; flood {r['flood_per_s']:,.0f} messages/s; "
              f"server memory {r['rss_before_kib'] / 1024:.1f} -> {r['rss_after_kib'] / 1024:.1f} MiB", flush=True)


if __name__ == "__main__":
    main()
