"""What a game's board view for the pygame window is (:mod:`.base`: ``BoardView``, ``GridView``,
``MoveInput``, marks) and the window's colours and fonts (:mod:`.theme`), a layer below the games: each
game keeps its own view beside its rules (``games/<game>/view.py``) and registers it through the pygame
renderer's ``register_board_views`` hook, as a third-party game's package does.  Importing a view
imports pygame, so games register theirs inside the hook, and this package is imported only when a
window wants a view."""
