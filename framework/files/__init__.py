"""What plyground keeps on disk, written whole or not at all; a room above the host's contracts.

``atomic``        atomic writes, and every path a user names checked before it is opened
``storage``       trainers' files: arrays and JSON in one ``.npz``, JSON files, a run directory's lock
``recordio``      game records in each game's own format, saved atomically or appended game by game
``bundled_data``  record files named on the command line: a path, or games a game ships (``acf``)
"""
