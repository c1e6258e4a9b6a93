"""Other processes: external engines, serving a player as an engine, and the worker pool; beside ``play``.

``process``      one engine process, whatever its protocol (UCI, Hub): start, lines with deadlines, a clean end
``player``       what the players that are external engine processes share (``uci``, ``hub``)
``server``       a plyground player served over a line protocol (``plyground uci``, ``plyground hub``)
``actors``       actors, jobs and the pool every worker backend shares
``workers``      the worker pool's backends: processes on this machine, or (``workers_ray``) Ray actors
"""
