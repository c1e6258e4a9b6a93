"""The bottom room: small services that know nothing of games, players or files, which every other room uses.

``wording``        counts in words ("1 game", "2 games")
``durations``      durations and ETAs as people read them
``notices``        one line on stderr before a long silence
``machine``        the machine in words, and the cores this process may use
``memory``         what this machine can still allocate
``stopping``       stopping work no longer wanted (a search, a game, a run): signals, Ctrl-C
``timelimit``      a wall-clock limit for a long job (``--minutes``)
``closure_cache``  on-disk numba caching for compiled closures

It imports nothing of plyground: the layers are drawn in docs/architecture.md ("The host's rooms").
"""
