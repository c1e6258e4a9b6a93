"""plyground: a plugin-architecture framework for board-game AI."""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("plyground")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"
