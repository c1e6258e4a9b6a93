"""Registers the ``web`` renderer (``plyground play --renderer web``)."""
from plyground.hookspecs import hookimpl

from .renderer import WebRenderer


@hookimpl
def register_renderers():
    return [WebRenderer]
