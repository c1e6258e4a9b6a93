"""Serving a plyground player as an engine over a line protocol (``plyground uci``, ``plyground hub``).

What the protocol servers share, whatever their protocol: the player the
spec names (rebuilt before the next search once an option changed), one
search at a time on a thread, a search depth asked for by the client, output
lines written whole from either thread, and the loop that reads the client.

The loop never waits for a search: input is read on a thread of its own, so
``stop``, a ping and the end of input are seen at once however long a search
runs.  A command that needs the player idle (a new search, a new game) and
arrives during a search waits in a queue, with every later command but
``stop`` and ``quit`` behind it so that their order holds, and runs when the
search has answered.  ``quit`` and the end of input stop the search, run
what is queued with every search stopped at once, and end the loop.  A line
that is too long or not UTF-8 text is one error, never the end.
A subclass reads its protocol's lines in :meth:`EngineServer.handle` and
formats its answers.
"""
from __future__ import annotations

import math
import queue
import re
import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable, TextIO

from ..util import notices
from .process import MAX_LINE, LongLine, bounded_lines
from ..errors import PlygroundError, UsageError, clip
from ..options import Option, Spec, resolve_options
from ..protocols import Game, Player, State

#: The simulation (node) budget of an ``infinite`` search: ``stop`` ends it.
INFINITE_NODES = 10**9
#: The deepest alpha-beta iteration an ``infinite`` search asks for.
INFINITE_DEPTH = 64
#: The most a client may ask of one search: more nodes or seconds than a player's arithmetic holds.
MOST_NODES = 10**12
MOST_SECONDS = 10**6
#: How much of a client's line an error message quotes.
QUOTED = 60
#: The longest error message sent (what it quotes is clipped before; this is the last guard).
MOST_ERROR_CHARS = 1000

#: A word of a message too long to quote whole (the quotes, brackets and punctuation around it are kept).
_LONG_WORD = re.compile(r"[^\s'\"()\[\]:;,]{%d,}" % (QUOTED + 4))

_SEARCH_DONE = object()          # the search thread has answered
_END_OF_INPUT = object()


class _Unreadable(str):
    """An input line that could not be read (too long, not UTF-8): the error message about it."""


def search_limit(named: str, text: str, least: float, most: float, whole: bool = True) -> float:
    """The number ``text`` given for a search limit (a whole number, or seconds), checked to lie in
    [``least``, ``most``]; UsageError starting with ``named`` (how the client gave it) and saying what
    would be valid otherwise."""
    valid = f"{'a whole number' if whole else 'a number of seconds'} from {_number(least)} to {_number(most)}"
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        raise UsageError(f"{named}: expected {valid}") from None
    if not math.isfinite(value) or not least <= value <= most:
        raise UsageError(f"{named}: expected {valid}")
    return value


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def engine_spec(registry, text: str) -> Spec:
    """The player spec ``text`` of ``plyground uci``/``plyground hub``; UsageError for a player that takes its
    moves from a person (an engine must answer by itself)."""
    spec = Spec.parse(text)
    if registry.get("players", spec.name).cls.needs_renderer:
        raise UsageError(f"player '{spec.name}' takes its moves from a person at a renderer; an engine must "
                         f"answer by itself (try alphabeta, mcts or random)")
    return spec


class EngineServer:
    """The player of ``spec`` for ``game`` behind a protocol loop over ``inp``/``out``."""

    #: The protocol's words: ``stop`` is handled at once, even with commands waiting; the commands that
    #: need the player idle wait for a running search to answer; ``quit`` ends the loop.
    STOP = "stop"
    QUIT = "quit"
    NEEDS_IDLE: frozenset[str] = frozenset()
    #: The commands that, besides those, wait for the warm-up the loop starts with (the protocol's
    #: "are you ready?": the place for slow start-up).
    NEEDS_WARM: frozenset[str] = frozenset()

    def __init__(self, game: Game, spec: Spec, make_player: Callable[[Spec, Game], Player],
                 inp: TextIO = sys.stdin, out: TextIO = sys.stdout) -> None:
        self.game, self.spec, self.make_player = game, spec, make_player
        self.inp, self.out = inp, out
        self.options: dict[str, Any] = dict(spec.options)
        self.player: Player = make_player(Spec(spec.name, self.options), game)
        #: The player's options by name, as a client may set them.
        self.declared: dict[str, Option] = {option.name: option for option in type(self.player).options}
        self._stale = False                 # options changed: rebuild the player before the next search
        self._built_with = dict(self.options)   # the options of the player in use
        self._write_lock = threading.Lock()
        self._search: threading.Thread | None = None
        self._infinite = False
        self._events: queue.SimpleQueue = queue.SimpleQueue()   # input lines, and the search's end
        self._waiting: list[str] = []       # commands that wait for the search to answer
        self._quitting = False              # quit or end of input: every search stops at once
        self._warming = False               # the start-up warm-up runs (in place of a search)
        self._compiling = False             # ... and numba compiles kernels for it
        self._asked_ready = False           # ... and the client waits for it
        self._told_compiling = False
        self._stop_waiting = False          # a 'stop' came for the search a waiting command will start
        # The game with the draw rules that players claim left to the client (see playable).
        claimed = {name: 0 for name in ("repetitions", "no_progress_plies") if name in game.params}
        self.client_rules: Game = type(game)(**{**game.params, **claimed}) if claimed else game

    # ------------------------------------------------------------ output
    def send_line(self, line: str) -> None:
        """Write one line whole (the search thread writes too); a client that has gone is not an error:
        the end of its input ends the loop."""
        with self._write_lock:
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except (BrokenPipeError, ValueError):
                pass

    # ------------------------------------------------------------ the loop
    def format_info(self, message: str) -> str | None:
        """The protocol's line telling the client something worth knowing (None: the protocol has none)."""
        return None

    def run(self) -> None:
        """Answer every line until ``quit`` or the end of the input; then stop the search and close the player.

        The player warms up first (:meth:`Player.warm_up`: kernels compiled or loaded, a model read), on the
        search's thread while the loop answers: the commands that need it (``isready``, a search) wait for
        it, so no search pays for it, and a compilation is told to the client as it starts."""
        threading.Thread(target=self._read_input, daemon=True, name="engine-input").start()
        self._warming = True
        self.start_search(self._warm_up)
        try:
            while self._serve(self._events.get()):
                pass
        finally:
            self._quitting = True
            self.stop_search()
            if self._search is not None and not self._warming:   # a warm-up left running ends with the process
                self._search.join()
            self.player.close()

    def _read_input(self) -> None:
        """Put each line of the input on the event queue (a line too long or not UTF-8: its error), then the end."""
        put = self._events.put
        stream = getattr(self.inp, "buffer", self.inp)          # bytes where there are: decoded line by line
        try:
            for line in bounded_lines(stream, MAX_LINE):
                if isinstance(line, LongLine):
                    start = line.start.decode("utf-8", "replace") if isinstance(line.start, bytes) else line.start
                    put(_Unreadable(f"a line longer than {MAX_LINE} characters was ignored (it starts "
                                    f"{clip(start, 40)!r})"))
                    continue
                if isinstance(line, bytes):
                    try:
                        line = line.decode("utf-8")
                    except UnicodeDecodeError as exc:
                        put(_Unreadable(f"a line that is not UTF-8 text was ignored (byte "
                                        f"{exc.object[exc.start]:#04x} at {exc.start + 1}, in "
                                        f"{clip(line.decode('utf-8', 'replace'), 40)!r}); lines are UTF-8 text"))
                        continue
                put(line)
        except (OSError, ValueError):
            pass
        finally:
            put(_END_OF_INPUT)

    def _serve(self, event) -> bool:
        """Act on one event of the queue; False when the loop is over."""
        if event is _SEARCH_DONE:
            self._search_answered()
        elif self._quitting:
            pass                                       # input after quit is not read
        elif event is _END_OF_INPUT:
            self._quit()
        elif isinstance(event, _Unreadable):
            self.error(event)
        elif event.strip():
            line = event.replace("\t", " ").strip()
            command = self.command_of(line)
            if command == self.QUIT:
                self._quit()
            elif command == self.STOP:
                if self._warming:               # the search it means waits behind the warm-up
                    self._stop_waiting = bool(self._waiting)
                else:
                    self.stop_search()
            elif self._waiting or (command in self.NEEDS_IDLE and self.searching()) or \
                    (command in self.NEEDS_WARM and self._warming):
                self._waiting.append(line)
                if self._warming:
                    self._asked_ready = True
                    self._tell_compiling()
                if self._infinite:                     # it would never answer by itself
                    self.player.stop_signal.set()
            else:
                self.dispatch(self.handle, line, self.label_of(line))
        # Quitting, nothing waits for the warm-up (compiling cannot be stopped; its thread ends with the process).
        return not (self._quitting and (not self.searching() or self._warming) and not self._waiting)

    def _quit(self) -> None:
        self._quitting = True
        if self.searching():
            self.player.stop_signal.set()
        self._run_waiting()

    def _warm_up(self, player: Player) -> None:
        def seen(_module: str) -> None:
            self._compiling = True
            self._tell_compiling()
        try:
            with notices.compiling_watched(seen):
                player.warm_up_soon()
        except Exception as exc:  # noqa: BLE001 - the first search meets it again and answers it
            if not self._quitting:      # (quitting, the player may be closed under it: nothing to tell)
                self.error(f"getting ready failed: {type(exc).__name__}: {exc}")

    def _tell_compiling(self) -> None:
        """Once, when the warm-up compiles and the client waits for it (not before the client has spoken)."""
        with self._write_lock:
            if not (self._compiling and self._asked_ready) or self._told_compiling:
                return
            self._told_compiling = True
        if self.player.warming_in_background:
            line = self.format_info("compiling kernels for this machine (first run only, cached afterwards): "
                                    "ready in seconds; until the search's own are compiled (in the background, "
                                    "a minute or less), moves are searched without them, weaker")
        else:
            line = self.format_info("compiling kernels for this machine (first run only, cached afterwards); "
                                    "ready in a minute or less")
        if line is not None:
            self.send_line(line)

    def _search_answered(self) -> None:
        self._warming = False
        if self._search is not None:
            self._search.join()
            self._search = None
        self._run_waiting()

    def _run_waiting(self) -> None:
        """Run the commands that waited, in order, until one starts a search (the rest wait for it)."""
        while self._waiting and not self.searching():
            line = self._waiting.pop(0)
            self.dispatch(self.handle, line, self.label_of(line))

    def searching(self) -> bool:
        """A search has started and not yet answered."""
        return self._search is not None

    def command_of(self, line: str) -> str:
        """The command word of a line (its first word)."""
        return line.partition(" ")[0]

    def label_of(self, line: str) -> str:
        """How an error about ``line`` names it (its command)."""
        return self.command_of(line)

    def handle(self, line: str) -> None:
        """Answer one line (not ``quit``: the loop ends on it)."""
        raise NotImplementedError

    def format_error(self, message: str) -> str:
        """The protocol's line telling the client that something it sent could not be used."""
        raise NotImplementedError

    def error(self, message: str) -> None:
        """Tell the client, in its protocol's words, that a line could not be used.  What the message quotes
        of the client's input is clipped here too (a game's own messages quote a bad move or FEN whole):
        every word to :data:`QUOTED` characters, the whole to :data:`MOST_ERROR_CHARS`."""
        message = _LONG_WORD.sub(lambda word: clip(word.group()), message)
        self.send_line(self.format_error(clip(message, MOST_ERROR_CHARS)))

    def failure(self, label: str, exc: Exception) -> str:
        """The error message for ``exc`` raised while answering ``label``."""
        if isinstance(exc, (PlygroundError, ValueError)):
            return f"{label}: {exc}"
        return f"{label} failed: {type(exc).__name__}: {exc}"

    def dispatch(self, handler: Callable[[Any], None], argument: Any, label: str) -> None:
        """``handler(argument)``; whatever goes wrong is one :meth:`error` naming ``label`` -- a GUI must
        never see the engine die of one line."""
        try:
            handler(argument)
        except Exception as exc:  # noqa: BLE001 - see above
            self.error(self.failure(clip(label), exc))

    @contextmanager
    def answering(self, label: str, answer: Callable[[], None], only_on_failure: bool = False):
        """Within the block, a failure is told (one error naming ``label``) and then ``answer()`` is sent --
        whatever happened, or ``only_on_failure``: a client waits for it (``readyok``, ``ready``, a move),
        and an error after it would be taken for one about the next command."""
        try:
            yield
        except Exception as exc:  # noqa: BLE001 - told to the client
            self.error(self.failure(clip(label), exc))
            answer()
        else:
            if not only_on_failure:
                answer()

    # ------------------------------------------------------------ the player
    def option_named(self, name: str) -> Option | None:
        """The player option ``name`` (case as declared or any case), None if it has none."""
        return self.declared.get(name) or {n.lower(): o for n, o in self.declared.items()}.get(name.lower())

    def set_option(self, option: Option, value: str) -> None:
        """Set ``option`` for the searches to come (a running one keeps its player); the value is checked now
        (a UsageError naming it)."""
        changed = {**self.options, option.name: value}
        resolve_options(type(self.player).options, changed, f"player {self.spec.name}")
        self.options = changed
        self._stale = True

    def ready_player(self) -> Player:
        """The player, rebuilt (and warmed up) first if an option changed since it was made.  A value that only fails when
        the player is built (a missing model file, say) is dropped with its error: the options go back to
        those of the player in use, which stays, so the engine goes on answering."""
        if self._stale:
            self._stale = False
            try:
                player = self.make_player(Spec(self.spec.name, self.options), self.game)
            except Exception:
                self.options = dict(self._built_with)
                raise
            self.player.close()
            self.player, self._built_with = player, dict(self.options)
            self.player_rebuilt()
            player.warm_up_soon()           # a new model to read, say (the kernels are compiled by now)
        return self.player

    def settings(self) -> dict[str, Any]:
        """The value in force of each player option, as a client is told it: the options set so far, checked
        (not the player's config, which holds a search's own depth while it runs)."""
        return resolve_options(type(self.player).options, self.options, f"player {self.spec.name}")

    def player_rebuilt(self) -> None:
        """Called after :meth:`ready_player` made a new player (a subclass forgets what the old one knew)."""

    @contextmanager
    def depth(self, player: Player, depth: int | None):
        """Within the block, the player's ``depth`` option is ``depth`` (the client's ``go depth``), at most
        the option's maximum; players without one search as they would."""
        if depth is None or "depth" not in player.config:
            yield
            return
        saved = player.config["depth"]
        deepest = self.declared["depth"].max if "depth" in self.declared else None
        player.config["depth"] = depth if deepest is None else min(depth, int(deepest))
        try:
            yield
        finally:
            player.config["depth"] = saved

    @contextmanager
    def reporting(self, player: Player, report: Callable[[dict], None]):
        """Within the block, the player's search so far goes to ``report`` as it searches (its progress hook):
        the protocol's ``info`` lines while the engine thinks."""
        player.progress = report
        try:
            yield
        finally:
            player.progress = None

    # ------------------------------------------------------------ positions
    def playable(self, state: State) -> State:
        """``state``, or where the game is over by a draw rule of ours (a repetition, no progress) though moves
        remain, the same position without its history -- or else under the client's rules, where the draws
        that players claim are its to claim: the client, not this engine, decides when its game ends.  The
        state itself when its game is over by any rules (mate, no moves)."""
        if not state.is_terminal():
            return state
        for game in (self.game, self.client_rules):
            fresh = game.new_state(state.to_text())
            if not fresh.is_terminal():
                return fresh
        return state

    # ------------------------------------------------------------ searching
    def start_search(self, think: Callable[..., None], *args: Any, infinite: bool = False,
                     analysing: bool = False) -> None:
        """Run ``think(player, *args)`` on a thread with the player's stop signal cleared (set when the engine
        is quitting: the search answers at once).  An infinite search, or one the client asks as analysis
        (``analysing``: Hub's ``go analyze``), judges the position: the player searches it (no opening book)."""
        player = self.ready_player()
        player.stop_signal.clear()
        player.analysing = infinite or analysing
        if self._quitting or self._stop_waiting:
            player.stop_signal.set()
        self._stop_waiting = False
        self._infinite = infinite

        def search() -> None:
            try:
                think(player, *args)
            finally:
                self._events.put(_SEARCH_DONE)

        self._search = threading.Thread(target=search, daemon=True, name="engine-search")
        self._search.start()

    def stop_search(self) -> None:
        """Stop the running search: it answers with its best move so far, at once."""
        if self.searching():
            self.player.stop_signal.set()
