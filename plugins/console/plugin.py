from plyground.hookspecs import hookimpl

from .renderer import ConsoleRenderer


@hookimpl
def register_renderers():
    return [ConsoleRenderer]
