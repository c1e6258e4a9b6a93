"""``plyground uci SPEC``: any plyground chess player as a UCI engine, for GUIs and engine clients.

The other side of :mod:`.engine` (which *uses* UCI engines).  One line in,
zero or more lines out, in the order of the UCI protocol:

* ``uci`` -> ``id name``/``id author``, one ``option`` line per option the
  player declares (spin, check, combo or string), ``uciok``;
* ``setoption name N value V`` -> the player is rebuilt with that option at
  the next ``isready``/``go`` (a bad name or value: one ``info string``);
* ``isready`` -> ``readyok`` (at once, even while a search runs), once the player has warmed up: the
  engine compiles or loads its kernels and reads its model as it starts (an ``info string`` says when it
  compiles), and the first ``isready`` -- the protocol's place for slow start-up -- waits for that, so
  no search pays for it;
* ``ucinewgame`` -> the player forgets the last game (``reset``);
* ``position startpos|fen FEN [moves m1 m2 ...]`` -> the position (every
  move checked; after a bad FEN or move there is no position: ``go`` answers ``bestmove 0000`` and
  why, never a move of another position).
  A position that plyground's rules call drawn by a rule that players claim
  (threefold repetition, 50-move rule) but that has moves is searched as
  given: the GUI decides when its game ends;
* ``go`` with ``depth``, ``nodes``, ``movetime``, ``wtime``/``btime``/
  ``winc``/``binc``/``movestogo``, ``infinite`` -> the search runs on a
  thread, then ``info depth .. score cp|mate .. nodes .. nps .. time .. pv
  ..`` from the player's analysis and ``bestmove``;
* ``stop`` -> the player's stop signal: it answers with its best move so far;
* ``quit`` (or the end of input) -> the search is stopped and the engine exits.

``go`` and ``ucinewgame`` sent during a search wait for its ``bestmove``
(with what follows them); everything else is answered at once
(framework/engines/server.py).

A line it cannot use gets one ``info string error: ...`` line naming what
was wrong and what would be valid, never an exception: GUIs show those
lines and carry on.
"""
from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from plyground.analysis import principal_variation, protocol_score
from plyground.play.clock import allot_most_seconds, allot_seconds
from plyground.engines.server import (INFINITE_DEPTH, INFINITE_NODES, MOST_NODES, MOST_SECONDS, EngineServer, clip,
                                     search_limit)
from plyground.errors import PlygroundError
from plyground.options import Option, Spec
from plyground.protocols import Budget, Game, Player, State

#: What each numeric ``go`` argument may be: (least, most); clock times below 0 mean the clock has run out.
_MOST_MILLIS = MOST_SECONDS * 1000
GO_LIMITS = {"depth": (1, 10**6), "nodes": (1, MOST_NODES), "movetime": (0, _MOST_MILLIS),
             "wtime": (-_MOST_MILLIS, _MOST_MILLIS), "btime": (-_MOST_MILLIS, _MOST_MILLIS),
             "winc": (0, _MOST_MILLIS), "binc": (0, _MOST_MILLIS), "movestogo": (1, 10**6), "mate": (1, 10**6)}


def uci_score(analysis: dict) -> str | None:
    """``cp N`` or ``mate N`` (moves, negative when losing) for the side to move, from an analysis dict."""
    score = protocol_score(analysis)
    if score is None:
        return None
    kind, amount = score
    if kind in ("win", "loss"):
        moves = (int(amount) + 1) // 2
        return f"mate {moves if kind == 'win' else -moves}"
    if kind == "moves":
        return f"mate {int(amount)}"
    return f"cp {int(round(100 * amount))}"


def uci_option_line(option: Option, value: Any) -> str:
    """The ``option`` line announcing a player option, now ``value``, to a GUI."""
    default = "none" if value is None else value
    if option.type is bool:
        return f"option name {option.name} type check default {'true' if default else 'false'}"
    if option.choices:
        return (f"option name {option.name} type combo default {default} "
                + " ".join(f"var {choice}" for choice in option.choices))
    # A number a GUI shows as a spin box; one that is none now (optional, unset) as text, so "none" can be shown.
    if option.type is int and value is not None and option.min is not None and option.max is not None:
        return f"option name {option.name} type spin default {default} min {int(option.min)} max {int(option.max)}"
    return f"option name {option.name} type string default {default}"


class UciServer(EngineServer):
    """The UCI loop for the player ``spec`` of ``game`` (see the module docstring)."""

    NEEDS_IDLE = frozenset({"go", "ucinewgame"})
    NEEDS_WARM = frozenset({"isready"})

    def __init__(self, game: Game, spec: Spec, make_player, inp: TextIO = sys.stdin, out: TextIO = sys.stdout) -> None:
        super().__init__(game, spec, make_player, inp, out)
        self.state: State | None = game.new_initial_state()
        self.refused = ""                   # why the last 'position' left no position to search

    def send(self, line: str) -> None:
        self.send_line(line)

    def format_error(self, message: str) -> str:
        return f"info string error: {message}"

    def format_info(self, message: str) -> str:
        return f"info string {message}"

    def label_of(self, line: str) -> str:
        return repr(clip(line))

    def handle(self, line: str) -> None:
        """Answer one line."""
        command, _, rest = line.partition(" ")
        handler = getattr(self, "_cmd_" + command, None)
        if handler is None:
            self.error(f"unknown command {clip(command)!r}; this engine understands uci, isready, setoption, "
                       f"ucinewgame, position, go, stop, quit")
            return
        handler(rest.strip())

    # ------------------------------------------------------------ commands
    def _cmd_uci(self, _: str) -> None:
        self.send(f"id name plyground {self.spec}")
        self.send("id author the plyground authors")
        settings = self.settings()
        for option in type(self.player).options:      # the defaults announced are the values in force
            self.send(uci_option_line(option, settings[option.name]))
        self.send("uciok")

    def _cmd_isready(self, _: str) -> None:
        with self.answering("isready", lambda: self.send("readyok")):    # whatever happens, the GUI gets it
            if not self.searching():
                self.ready_player()

    def _cmd_debug(self, _: str) -> None:
        pass

    def _cmd_ucinewgame(self, _: str) -> None:
        self.ready_player().reset()

    def _cmd_setoption(self, rest: str) -> None:
        words = rest.split()
        if not words or words[0] != "name":
            raise ValueError("expected: setoption name NAME value VALUE")
        text = " ".join(words[1:])
        name, _, value = (text[:-len(" value")], "", "") if text.endswith(" value") else text.partition(" value ")
        option = self.option_named(name.strip())
        if option is None:
            raise ValueError(f"no option {clip(name.strip())!r}; options: {', '.join(self.declared) or 'none'}")
        self.set_option(option, value.strip())

    def _cmd_position(self, rest: str) -> None:
        # Whatever is wrong with it, the position asked for is not the last one: until a good 'position',
        # 'go' answers 'bestmove 0000' with the reason rather than a move of another position.
        self.state, self.refused = None, ""
        try:
            self.state = self._position(rest)
        except Exception as exc:
            self.refused = str(exc)
            raise ValueError(f"{exc}; no position until a good 'position' ('go' answers 'bestmove 0000')") from None

    def _position(self, rest: str) -> State:
        words = rest.split()
        if not words:
            raise ValueError("expected: position startpos|fen FEN [moves MOVE ...]")
        if "moves" in words:
            at = words.index("moves")
            setup, moves = words[:at], words[at + 1:]
        else:
            setup, moves = words, []
        if not setup:
            raise ValueError("expected 'startpos' or 'fen FEN' before 'moves'")
        if setup == ["startpos"]:
            state = self.game.new_initial_state()
        elif setup[0] == "fen" and len(setup) > 1:
            state = self.game.new_state(" ".join(setup[1:]))
        else:
            raise ValueError("expected 'startpos' or 'fen FEN' after 'position'")
        for number, text in enumerate(moves, start=1):
            state = self.playable(state)               # past a draw that nobody claimed, the game goes on
            try:
                state.apply(state.parse_move(text))
            except PlygroundError as exc:
                raise ValueError(f"move {number} ({clip(text)}): {exc}") from None
        return state

    def _cmd_go(self, rest: str) -> None:
        try:
            budget, depth = self._budget(rest.split())
        except ValueError as exc:
            # A GUI waits for a bestmove after every 'go': the reason, then the null move (issue #57).
            self.error(self.failure(self.label_of(f"go {rest}"), exc))
            self.send("bestmove 0000")
            return
        if self.state is None:
            self.error(f"no position to search: the last 'position' was refused ({self.refused}); "
                       f"send 'position startpos|fen FEN [moves ...]'")
            self.send("bestmove 0000")
            return
        state = self.playable(self.state)
        if state.is_terminal():
            self.send("info string the game is over: " + state.outcome_reason())
            self.send("bestmove 0000")
            return
        infinite = budget.simulations == INFINITE_NODES
        # A GUI waits for a bestmove whatever happens: when the search cannot start, the first legal move.
        with self.answering(f"'go {clip(rest)}'", lambda: self.send(f"bestmove {state.legal_moves()[0].uci()}"),
                            only_on_failure=True):
            self.start_search(self._think, state.clone(), budget, depth, infinite, infinite=infinite)

    def _cmd_ponderhit(self, _: str) -> None:
        pass                                    # pondering is not offered (no 'Ponder' option)

    # ------------------------------------------------------------ searching
    def _budget(self, words: list[str]) -> tuple[Budget, int | None]:
        """The player's budget for ``go`` arguments, and the depth asked for (None: the player's own)."""
        numbers: dict[str, int] = {}
        flags = set()
        i = 0
        while i < len(words):
            key = words[i]
            if key in ("infinite", "ponder"):
                flags.add(key)
                i += 1
            elif key in GO_LIMITS:
                least, most = GO_LIMITS[key]
                if i + 1 >= len(words) or not words[i + 1].lstrip("-").isdigit():
                    raise ValueError(f"'go {key}' needs a whole number from {least} to {most}")
                numbers[key] = int(search_limit(f"{key} {clip(words[i + 1])}", words[i + 1], least, most))
                i += 2
            elif key == "searchmoves":
                raise ValueError("'go searchmoves' is not supported")
            else:
                raise ValueError(f"unknown 'go' argument {clip(key)!r}; expected depth, nodes, movetime, wtime, "
                                 f"btime, winc, binc, movestogo or infinite")
        if "infinite" in flags:
            return Budget(simulations=INFINITE_NODES, seconds=None), INFINITE_DEPTH
        seconds = numbers["movetime"] / 1000 if "movetime" in numbers else None
        most = None
        white = self.state is None or self.game.side_names[self.state.current_player()] == "White"
        left = numbers.get("wtime" if white else "btime")
        if seconds is None and left is not None:          # a clock below zero has run out: move at once
            increment = numbers.get("winc" if white else "binc", 0)
            clock = (max(0, left) / 1000, increment / 1000, numbers.get("movestogo"))
            seconds, most = allot_seconds(*clock), allot_most_seconds(*clock)
        return Budget(simulations=numbers.get("nodes"), seconds=seconds, most_seconds=most), numbers.get("depth")

    def _think(self, player: Player, state: State, budget: Budget, depth: int | None, infinite: bool) -> None:
        started = time.perf_counter()

        def live(analysis: dict) -> None:     # the search so far, as a GUI shows it while the engine thinks
            self.send(self._info(analysis, state, None, time.perf_counter() - started))
        try:
            with self.depth(player, depth), self.reporting(player, live):
                move = player.choose_move(state.clone(), budget)
            info = self._info(player.analysis() or {}, state, move, time.perf_counter() - started)
        except Exception as exc:  # noqa: BLE001 - answer with a legal move rather than fall silent
            self.error(f"the search failed ({type(exc).__name__}: {exc}); playing the first legal move")
            move, info = state.legal_moves()[0], None
        # UCI: an infinite search answers only after 'stop', even when it has finished (a mate found, one
        # legal move): the GUI decides when the analysis ends.
        while infinite and not player.stop_signal.is_set():
            time.sleep(0.005)
        if info is not None:
            self.send(info)
        self.send(f"bestmove {move.uci()}")

    def _info(self, analysis: dict, state: State, move, elapsed: float) -> str:
        """An ``info`` line of ``analysis``: the finished search's (its ``move`` when it has no line) or the search
        so far (``move`` None: its line, if it has one yet)."""
        parts = [f"depth {int(analysis.get('depth') or 1)}"]
        if analysis.get("seldepth"):
            parts.append(f"seldepth {int(analysis['seldepth'])}")
        score = uci_score(analysis)
        if score:
            parts.append(f"score {score}")
        nodes = int(analysis.get("simulations") or analysis.get("nodes") or 0)    # MCTS's nodes: its whole tree
        millis = int(1000 * float(analysis.get("seconds") or elapsed))
        parts += [f"nodes {nodes}", f"nps {int(nodes / max(millis, 1) * 1000)}", f"time {millis}"]
        pv = [pv_move.uci() for _, pv_move in principal_variation(analysis, state)] or \
            ([move.uci()] if move is not None else [])
        if pv:
            parts.append("pv " + " ".join(pv))
        return "info " + " ".join(parts)
