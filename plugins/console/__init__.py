"""The console renderer: plain stdin/stdout, so it can be scripted and tested."""
from .renderer import ConsoleRenderer
from .plugin import register_renderers

__all__ = ["ConsoleRenderer", "register_renderers"]
