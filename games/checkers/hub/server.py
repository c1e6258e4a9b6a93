"""``plyground hub SPEC``: any plyground checkers player as a Hub engine, for pydraughts and Hub GUIs.

The other side of the ``hub`` player (player.py), and the Hub twin of
``plyground uci`` (players/uci/server.py).  One line in, zero or more lines
out, as Scan's protocol.txt orders them:

* ``hub`` -> ``id``, one ``param`` per player option (and ``variant``), ``wait``;
* ``set-param name=N value=V`` -> the player is rebuilt with that option
  before the next search (``variant`` takes english or american only);
* ``init`` -> ``ready`` once the player has warmed up (kernels compiled or
  loaded, a model read: the engine starts on it as it starts), so no search
  pays for it;
* ``pos pos=P [moves="m1 m2 ..."]`` -> the position (protocol.py); a bad
  position or move leaves no position, so a following ``go`` is refused
  rather than searching one the client is not in;
* ``level`` with ``move-time``, ``depth``, ``nodes``, ``time``/``inc``/
  ``moves`` or ``infinite`` -> the budget of the following searches (a
  ``time`` below zero: the clock has run out, move at once);
* ``go think|ponder|analyze`` -> the search runs on a thread, then ``info``
  (depth, score in men, nodes, time, pv) and ``done move=M [ponder=P]``;
  a ponder search is an ordinary one (Hub lets an engine answer at any time;
  the client keeps the move until ``ponder-hit``, which is therefore ignored);
* ``stop`` -> the player's stop signal: ``done`` with its best move so far;
* ``ping`` -> ``pong`` (at once, even while searching); ``new-game`` -> the
  player's ``reset``; ``quit`` or the end of input -> the engine exits.

``go``, ``pos``, ``init`` and ``new-game`` sent during a search wait for its
``done`` (with what follows them); everything else is answered at once
(framework/engines/server.py).

A line it cannot use gets one ``error message="..."`` naming what was wrong
and what would be valid, never a traceback; unknown arguments are ignored,
as the protocol asks.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any, TextIO

from plyground import __version__
from plyground.analysis import principal_variation, protocol_score
from plyground.play.clock import allot_most_seconds, allot_seconds
from plyground.engines.server import (INFINITE_DEPTH, INFINITE_NODES, MOST_NODES, MOST_SECONDS, EngineServer, clip,
                                     search_limit)
from plyground.errors import PlygroundError, UsageError
from plyground.options import Option, Spec
from plyground.protocols import Budget, Game, Player, State

from . import protocol

#: What each ``level`` argument may be: (least, most, whole number); a ``time`` below zero means the clock
#: has run out (pydraughts sends the time less the increment).
LEVEL_LIMITS = {"depth": (1, 10**6, True), "nodes": (1, MOST_NODES, True), "moves": (1, 10**6, True),
                "move-time": (0, MOST_SECONDS, False), "time": (-MOST_SECONDS, MOST_SECONDS, False),
                "inc": (0, MOST_SECONDS, False)}
#: A value in [-1, 1] (MCTS, AlphaZero) is shown in men (analysis.value_in_pawns), kept below the scores
#: that mean a win in sight.
_VALUE_MEN_LIMIT = 80.0

COMMANDS = ("hub", "set-param", "init", "pos", "level", "go", "stop", "ping", "ponder-hit", "new-game", "quit")


@dataclass(frozen=True)
class Level:
    """What ``level`` asked for: a budget for the player, and a depth (None: the player's own)."""

    budget: Budget = Budget()
    depth: int | None = None
    infinite: bool = False


def parse_level(args: dict[str, str]) -> Level:
    """The level of a ``level`` line's arguments; UsageError naming a value that is not a number in its range."""
    if "infinite" in args:
        return Level(Budget(simulations=INFINITE_NODES), INFINITE_DEPTH, infinite=True)
    numbers = {name: search_limit(f"{name}={clip(args[name])!r}", args[name], least, most, whole)
               for name, (least, most, whole) in LEVEL_LIMITS.items() if name in args}
    seconds = numbers.get("move-time")
    most = None
    if seconds is None and "time" in numbers:
        moves = numbers.get("moves")
        clock = (max(0.0, numbers["time"]), numbers.get("inc", 0.0), None if moves is None else int(moves))
        seconds, most = allot_seconds(*clock), allot_most_seconds(*clock)
    nodes = numbers.get("nodes")
    depth = numbers.get("depth")
    return Level(Budget(simulations=None if nodes is None else int(nodes), seconds=seconds, most_seconds=most),
                 None if depth is None else int(depth))


def men_score(analysis: dict) -> float | None:
    """The Hub score (men, for the side to move) of a player's analysis, or None if it has none."""
    score = protocol_score(analysis)
    if score is None or score[0] == "moves":           # a chess engine's mate: not a checkers score
        return None
    kind, amount = score
    if kind in ("win", "loss"):
        return protocol.win_score(int(amount), kind == "win")
    return max(-_VALUE_MEN_LIMIT, min(_VALUE_MEN_LIMIT, amount))


def param_line(option: Option, value: Any) -> str | None:
    """The ``param`` line announcing a player option, now ``value``; None when pydraughts could not read it.

    pydraughts splits each argument at every '=', so a value holding one would stop its client.
    """
    text = "none" if value is None else ("true" if value is True else "false" if value is False else str(value))
    if "=" in text:
        return None
    args: dict[str, Any] = {"name": option.name, "value": text}
    if option.type is bool:
        args["type"] = "bool"
    elif option.choices:
        args["type"] = "enum"
        args["values"] = " ".join(map(str, option.choices))
    elif option.type in (int, float):
        args["type"] = "int" if option.type is int else "real"
        if option.min is not None:
            args["min"] = option.min
        if option.max is not None:
            args["max"] = option.max
    else:
        args["type"] = "string"
    return protocol.format_line("param", args)


class HubServer(EngineServer):
    """The Hub loop for the player ``spec`` of ``game`` (see the module docstring)."""

    NEEDS_IDLE = frozenset({"go", "pos", "init", "new-game"})

    def __init__(self, game: Game, spec: Spec, make_player, inp: TextIO = sys.stdin,
                 out: TextIO = sys.stdout) -> None:
        super().__init__(game, spec, make_player, inp, out)
        self.state: State | None = game.new_initial_state()
        self.refused = ""                   # why the last pos left no position
        self.level = Level()
        self._line: tuple[str, list[str]] | None = None   # the game of the last search: start, Hub moves
        self._handlers = {"hub": self._hub, "set-param": self._set_param, "init": self._init, "pos": self._pos,
                          "level": self._level, "go": self._go, "ping": self._ping,
                          "ponder-hit": self._ponder_hit, "new-game": self._new_game}

    # ------------------------------------------------------------ output
    def send(self, command: str, args: dict | None = None) -> None:
        self.send_line(protocol.format_line(command, args))

    def format_error(self, message: str) -> str:
        return protocol.format_line("error", {"message": message})

    # ------------------------------------------------------------ the loop
    def handle(self, raw: str) -> None:
        """Answer one line."""
        try:
            line = protocol.parse_line(raw)
        except PlygroundError as exc:
            self.error(str(exc))
            return
        handler = self._handlers.get(line.command)
        if handler is None:
            self.error(f"unknown command {clip(line.command)!r}; this engine understands {', '.join(COMMANDS)}")
            return
        handler(line.args)

    # ------------------------------------------------------------ set-up
    def _hub(self, _: dict) -> None:
        # No '=' in any value, as pydraughts splits arguments at every '=': the name is the player's, not
        # its spec (whose options hold '=').
        self.send("id", {"name": f"plyground-{self.spec.name}", "version": __version__,
                         "author": "the plyground authors"})
        self.send("param", {"name": "variant", "value": "english", "type": "enum", "values": "english"})
        settings = self.settings()
        for option in type(self.player).options:       # the values announced are the values in force
            line = param_line(option, settings[option.name])
            if line is not None:
                self.send_line(line)
        self.send("wait")

    def _set_param(self, args: dict) -> None:
        name, value = args.get("name"), args.get("value")
        if not name or value is None:
            raise UsageError("expected set-param name=NAME value=VALUE")
        if name == "variant":
            if value.lower() not in protocol.VARIANTS:
                raise UsageError(f"variant {clip(value)!r}: this engine plays English checkers only "
                                 f"(variant {' or '.join(protocol.VARIANTS)})")
            return
        option = self.declared.get(name)
        if option is None:
            raise UsageError(f"no parameter {clip(name)!r}; parameters: variant, {', '.join(self.declared)}")
        self.set_option(option, value)

    def _init(self, _: dict) -> None:
        # The client waits for 'ready' whatever happens (a parameter that fails when the player is built).
        with self.answering("init", lambda: self.send("ready")):
            self.ready_player()          # warmed up: 'init' waited for the start-up warm-up (EngineServer.run)

    def _new_game(self, _: dict) -> None:
        self.ready_player().reset()
        self._line = None

    # ------------------------------------------------------------ position and level
    def _pos(self, args: dict) -> None:
        self.state, self.refused = None, ""
        try:
            if "pos" not in args:
                raise UsageError('expected pos pos=POSITION [moves="MOVE MOVE ..."]')
            start = args["pos"]
            moves = args.get("moves", "").split()
            state = protocol.state_from_position(self.game, start)
            # Moves that continue the last search's game are told to the player, for its tree reuse.
            line = self._line
            seen = len(line[1]) if line is not None and line[0] == start and moves[:len(line[1])] == line[1] else None
            self._line = None
            for number, text in enumerate(moves, start=1):
                state = self.playable(state)    # drawn by a rule of ours: the client's rules decide
                try:
                    move = protocol.parse_state_move(state, text)
                except PlygroundError as exc:
                    over = f"the game is already over ({state.outcome_reason()})" if state.is_terminal() else exc
                    raise UsageError(f"move {number} ({clip(text)}): {over}") from None
                if seen is not None and number > seen:
                    self.player.observe_move(state.clone(), move)
                state.apply(move)
        except PlygroundError as exc:
            self.refused = str(exc)
            raise
        self.state = state
        if seen is not None:
            self._line = (start, moves)

    def _level(self, args: dict) -> None:
        self.level = parse_level(args)

    # ------------------------------------------------------------ searching
    def _go(self, args: dict) -> None:
        if not any(mode in args for mode in ("think", "ponder", "analyze")):
            raise UsageError("expected go think, go ponder or go analyze")
        if self.state is None:
            raise UsageError(f"no position to search: the last pos was refused ({self.refused})" if self.refused
                             else "no position to search: send pos pos=... first")
        state = self.playable(self.state).clone()
        if state.is_terminal():
            raise UsageError(f"the game is over ({state.outcome_reason()}): there is no move to search")
        # A client waits for 'done' whatever happens: when the search cannot start, the first legal move.
        first = protocol.state_move(state, state.legal_moves()[0])
        with self.answering("go", lambda: self.send("done", {"move": first}), only_on_failure=True):
            self.start_search(self._think, state, self.level, infinite=self.level.infinite,
                              analysing="analyze" in args)

    def _ping(self, _: dict) -> None:
        self.send("pong")

    def _ponder_hit(self, _: dict) -> None:
        pass            # a ponder search is an ordinary one, already under way or answered

    def player_rebuilt(self) -> None:
        self._line = None                   # the new player has no tree to reuse

    def _think(self, player: Player, state: State, level: Level) -> None:
        info = None
        started = time.perf_counter()

        def live(analysis: dict) -> None:     # the search so far, as a GUI shows it while the engine thinks
            pv = [protocol.state_move(before, pv_move) for before, pv_move in principal_variation(analysis, state)]
            self.send("info", self._info(analysis, pv, time.perf_counter() - started))
        try:
            with self.depth(player, level.depth), self.reporting(player, live):
                move = player.choose_move(state.clone(), level.budget)
            if move not in state.legal_moves():
                raise RuntimeError(f"{player.name} chose {move!r}, which is not a legal move")
            analysis = player.analysis() or {}
            pv = self._pv(analysis, state, move)
            info = self._info(analysis, pv, time.perf_counter() - started)
        except Exception as exc:  # noqa: BLE001 - answer with a legal move rather than fall silent
            self.error(f"the search failed ({type(exc).__name__}: {exc}); playing the first legal move")
            move = state.legal_moves()[0]
            pv = [protocol.state_move(state, move)]
        if info is not None:
            self.send("info", info)
        self.send("done", {"move": pv[0], "ponder": pv[1]} if len(pv) > 1 else {"move": pv[0]})
        # As the match runner does, the mover is told of its own move too (tree reuse); the opponent's
        # reply arrives with the next pos.
        try:
            player.observe_move(state.clone(), move)
            start, moves = protocol.game_position(state)
            self._line = (start, moves + [pv[0]])
        except Exception:  # noqa: BLE001 - reuse is an optimisation; the next search starts afresh
            self._line = None

    @staticmethod
    def _info(analysis: dict, pv: list[str], elapsed: float) -> dict:
        info: dict[str, Any] = {}
        if analysis.get("depth"):
            info["depth"] = int(analysis["depth"])
        score = men_score(analysis)
        if score is not None:
            info["score"] = f"{round(score, 2) + 0.0:.2f}"     # + 0.0: never "-0.00"
        nodes = analysis.get("simulations") or analysis.get("nodes")      # MCTS's nodes: its whole tree
        if nodes:
            info["nodes"] = int(nodes)
        info["time"] = f"{float(analysis.get('seconds') or elapsed):.3f}"
        if pv:
            info["pv"] = " ".join(pv)
        return info

    @staticmethod
    def _pv(analysis: dict, state: State, move) -> list[str]:
        """The principal variation as Hub moves, starting with the move played, as far as it is legal."""
        line = principal_variation(analysis, state)
        if not line or line[0][1] != move:
            line = [(state, move)]
        return [protocol.state_move(before, pv_move) for before, pv_move in line]
