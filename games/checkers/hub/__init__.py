"""English checkers over the Hub protocol, the text protocol of the draughts engine Scan (docs/hub.md).

``protocol.py`` is the one place that reads and writes Hub: command lines
with their ``key=value`` arguments, positions and moves.  ``server.py`` runs
a plyground player as a Hub engine (``plyground hub SPEC``, registered by
``command.py``); the ``hub`` player (players/hub) uses Hub engines, through
the same protocol module.
"""
