"""English checkers over the Hub protocol, the text protocol of the draughts engine Scan (docs/hub.md).

``protocol.py`` is the one place that reads and writes Hub: command lines
with their ``key=value`` arguments, positions and moves.  ``server.py`` runs
a plyground player as a Hub engine (``plyground hub SPEC``, registered by
``command.py``); the ``hub`` player (``player.py``, registered by ``plugin.py``)
uses Hub engines, each one an ``engine.py`` client, through the same protocol
module.
"""
