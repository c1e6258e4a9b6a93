"""Errors a user can cause.  The CLI turns each into one line and exit code 2."""


class PlygroundError(Exception):
    """Base class: the message is written for the person at the keyboard."""


class UsageError(PlygroundError, ValueError):
    """A bad name, option value or argument given by the user."""


class OptionError(UsageError):
    """An option value that is unknown, of the wrong type or out of range."""


class UnsupportedGame(UsageError):
    """A player or trainer built for a game it cannot play or train: ``plugin`` (its class) says why,
    in ``reason``."""

    def __init__(self, message: str, plugin: type, reason: str) -> None:
        super().__init__(message)
        self.plugin, self.reason = plugin, reason


class PluginError(PlygroundError):
    """A plugin that failed to load or registered something invalid."""


class MoveError(PlygroundError, ValueError):
    """Move text that cannot be parsed, or a move that is not legal here."""


class PositionError(PlygroundError, ValueError):
    """Position text (e.g. FEN) that cannot be parsed or describes no legal position."""


class RecordError(PlygroundError, ValueError):
    """A game record file (PDN, PGN, ...) that cannot be read."""


class ModelFileError(PlygroundError):
    """A model or checkpoint file that is missing, corrupt or for something else."""


def clip(text: str, limit: int = 60) -> str:
    """Text a user gave, as an error message quotes it: at most ``limit`` characters, then '...'."""
    return text if len(text) <= limit else text[:limit] + "..."

