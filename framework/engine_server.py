"""Serving a plyground player as an engine over a line protocol (``plyground uci``, ``plyground hub``).

What the protocol servers share, whatever their protocol: the player the
spec names (rebuilt before the next search once an option changed), one
search at a time on a thread while the loop keeps reading (a ``stop`` or a
ping must be answered during a search), a search depth asked for by the
client, and output lines written whole from either thread.  A subclass reads
its protocol's lines in :meth:`EngineServer.handle` and formats its answers.
"""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable, TextIO

from .errors import PlygroundError
from .options import Option, Spec, resolve_options
from .protocols import Game, Player


class EngineServer:
    """The player of ``spec`` for ``game`` behind a protocol loop over ``inp``/``out``."""

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
    def run(self) -> None:
        """Answer every line until ``handle`` says stop or the input ends; then stop and close the player."""
        try:
            for raw in self.inp:
                if raw.strip() and not self.handle(raw.strip()):
                    break
        finally:
            self.stop_search()
            self.player.close()

    def handle(self, line: str) -> bool:
        """Answer one line; False to end the loop (``quit``)."""
        raise NotImplementedError

    def error(self, message: str) -> None:
        """Tell the client, in its protocol's words, that a line could not be used."""
        raise NotImplementedError

    def dispatch(self, handler: Callable[[Any], None], argument: Any, label: str) -> None:
        """``handler(argument)``; whatever goes wrong is one :meth:`error` naming ``label`` -- a GUI must
        never see the engine die of one line."""
        try:
            handler(argument)
        except (PlygroundError, ValueError) as exc:
            self.error(f"{label}: {exc}")
        except Exception as exc:  # noqa: BLE001 - see above
            self.error(f"{label} failed: {type(exc).__name__}: {exc}")

    # ------------------------------------------------------------ the player
    def option_named(self, name: str) -> Option | None:
        """The player option ``name`` (case as declared or any case), None if it has none."""
        return self.declared.get(name) or {n.lower(): o for n, o in self.declared.items()}.get(name.lower())

    def set_option(self, option: Option, value: str) -> None:
        """Set ``option`` for the searches to come; the value is checked now (a UsageError naming it)."""
        self.need_idle()
        changed = {**self.options, option.name: value}
        resolve_options(type(self.player).options, changed, f"player {self.spec.name}")
        self.options = changed
        self._stale = True

    def ready_player(self) -> Player:
        """The player, rebuilt first if an option changed since it was made.  A value that only fails when
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
        return self.player

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

    # ------------------------------------------------------------ searching
    def start_search(self, think: Callable[..., None], *args: Any, infinite: bool = False) -> None:
        """Run ``think(player, *args)`` on a thread with the player's stop signal cleared."""
        self.need_idle()
        player = self.ready_player()
        player.stop_signal.clear()
        self._infinite = infinite
        self._search = threading.Thread(target=think, args=(player, *args), daemon=True, name="engine-search")
        self._search.start()

    def need_idle(self) -> None:
        """Let a running search finish first, as Stockfish does (an infinite one is stopped: it would never
        finish, and this thread, waiting, could not read the ``stop``)."""
        search = self._search
        if search is not None and search.is_alive():
            if self._infinite:
                self.player.stop_signal.set()
            search.join()
        self._search = None

    def stop_search(self) -> None:
        """Stop the running search (it answers with its best move so far) and wait for it."""
        search = self._search
        if search is not None and search.is_alive():
            self.player.stop_signal.set()
            search.join()
        self._search = None
