"""A tiny UCI engine for tests, misbehaving on request: ``fake_engine.py MODE``.

Modes: ``ok`` plays the first legal move; ``hang`` never answers ``go``;
``crash`` exits with code 3 (and a word on stderr) when asked to move;
``illegal`` answers an illegal move; ``silent`` never finishes the ``uci``
handshake; ``chatter`` prints a line that is not UCI and exits; ``flood``
answers ``go`` with ``info`` lines that never end, ``longline`` with one line
that never ends.

``fake_engine.py MODE PIDFILE`` also starts a helper process that ignores
SIGTERM, does not read the engine's input and sleeps for 1000 s (what a
wrapper or an engine's own helpers might leave behind), and writes its pid to
PIDFILE once the helper ignores SIGTERM.
"""
import os
import subprocess
import sys

import chess

mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
out = sys.stdout

STUBBORN = ("import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "print('ready', flush=True); time.sleep(1000)")


def start_helper(pidfile):
    """A child in this process's group that only SIGKILL ends; its pid written to ``pidfile``."""
    helper = subprocess.Popen([sys.executable, "-c", STUBBORN], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    helper.stdout.readline()          # it ignores SIGTERM from here on
    with open(pidfile + ".tmp", "w") as file:
        file.write(str(helper.pid))
    os.replace(pidfile + ".tmp", pidfile)   # the test never reads half a pid
    return helper


if len(sys.argv) > 2:
    helper = start_helper(sys.argv[2])


def say(line):
    out.write(line + "\n")
    out.flush()


if mode == "chatter":
    say("hello, I am not a chess engine")
    sys.exit(0)

board = chess.Board()
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    command = words[0]
    if command == "uci":
        if mode == "silent":
            continue
        say("id name Fake Engine 1.0")
        say("option name Hash type spin default 16 min 1 max 1024")
        say("option name Style type combo default Normal var Solid var Normal var Risky")
        say("option name Move Overhead type spin default 10 min 0 max 5000")
        say("option name Ponder type check default false")
        say("option name Clear Hash type button")
        say("uciok")
    elif command == "isready":
        say("readyok")
    elif command == "position":
        board = chess.Board() if words[1] == "startpos" else chess.Board(" ".join(words[2:8]))
        if "moves" in words:
            for uci in words[words.index("moves") + 1:]:
                board.push_uci(uci)
    elif command == "go":
        if mode == "hang":
            continue
        if mode == "crash":
            sys.stderr.write("fake engine: simulated crash\n")
            sys.stderr.flush()
            sys.exit(3)
        if mode == "illegal":
            say("bestmove a1a1")
            continue
        if mode == "flood":
            while True:
                say("info string thinking")
        if mode == "longline":
            while True:
                out.write("x" * 4096)
        move = next(iter(board.legal_moves))
        say(f"info depth 1 score cp 12 nodes 1 pv {move.uci()}")
        say(f"bestmove {move.uci()}")
    elif command == "quit":
        break
