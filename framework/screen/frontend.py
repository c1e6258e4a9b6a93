"""What a renderer that shows game screens does the same way in the window and on the web page: where it saves
games (:class:`~.folders.SaveFolders`), a review (the menu's Open game: with a hint bot), and the renderer calls that
``plyground match --renderer ...`` makes on the renderer itself, forwarded to the game screen shown through a
:class:`~.link.LinkRenderer`.
"""
from __future__ import annotations

from typing import Any, Callable

from plyground.protocols import State

from .folders import SaveFolders
from .link import LinkRenderer


class ScreenFrontEnd(SaveFolders):
    """A part of a renderer showing game screens (the pygame window, the web page).  It holds ``_direct`` (the
    link renderer of the screen shown, while calls come straight to the renderer: a match's, a review's hints)
    and ``_hinter`` (the hint bot of a review opened from the menu); the renderer supplies ``menu``, ``config``,
    ``game_screen`` (the game screen shown), ``open_review(review, hint, from_menu=...)`` and ``wait_until_left()``
    (its loop, until what it shows is left)."""

    _direct: LinkRenderer | None = None
    _hinter = None

    def _forward(self, call: Callable[[], Any]) -> Any:
        """Make a call on the screen's link renderer (a renderer turns the screen being left into its own
        error here: the web page's PageClosed)."""
        return call()

    # ------------------------------------------------------------ the menu's Open game
    def review_from_menu(self, review) -> None:
        """The menu's Open game: ``review`` on the board, hints and analysis from the default human player's hint
        bot; the menu's screen comes back when it is left."""
        hinter = self.menu.registry.make_player("human", review.game)
        hinter.renderer = self
        self._hinter = hinter
        self.open_review(review, hinter.hint, from_menu=True)

    def review(self, review, hint: Callable[[State], None]) -> State | None:
        """Step through ``review`` (a :class:`plyground.play.review.GameReview`: its keys, clicks on its move list, Hint;
        ``hint(state)`` searches a position and reports through :meth:`show_analysis`) until it is left; the
        position Play from here chose, or None."""
        self.open_review(review, hint)
        screen = self.game_screen
        try:
            self.wait_until_left()
        finally:
            screen.stop_hint()
            self._direct = None
        return screen.play_from

    def close_hinter(self) -> None:
        """Close the hint bot of a review opened from the menu, if there is one."""
        hinter, self._hinter = self._hinter, None
        if hinter is not None:
            hinter.close()

    # ------------------------------------------------------------ direct calls (plyground match --renderer ...)
    def show(self, state: State, last_move: str | None) -> None:
        self._forward(lambda: self._direct.show(state, last_move))

    def thinking(self, player: str) -> None:
        self._forward(lambda: self._direct.thinking(player))

    def interruption(self):
        if self._direct is None:
            return None
        return self._forward(self._direct.interruption)

    def show_analysis(self, title: str, analysis: dict | None, mover: str | None = None) -> None:
        if self._direct is None:
            return
        if analysis and analysis.get("live"):
            self._direct.show_analysis(title, analysis, mover)    # the search's thread: posted only, never raises
        else:
            self._forward(lambda: self._direct.show_analysis(title, analysis, mover))

    def ask_move(self, state: State):
        return self._forward(lambda: self._direct.ask_move(state))


__all__ = ["ScreenFrontEnd"]
