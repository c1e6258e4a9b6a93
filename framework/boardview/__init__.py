"""What a game's board view is (:mod:`.base`: ``BoardView``, ``GridView``, ``MoveInput``, marks), what it draws on
(:mod:`.canvas`, in pixels: :mod:`.geometry`), the colours every front end shares (:mod:`.theme`), finding a game's
view (:mod:`.views`) and the position editor's model (:mod:`.editor`): a layer below the games, importing no GUI
library.  Each game keeps its own view beside its rules (``games/<game>/view.py``) and registers it through the
host's ``register_board_views`` hook, as a third-party game's package does; the window and the web page both draw
it."""
