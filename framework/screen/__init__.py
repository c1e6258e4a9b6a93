"""What a game's screen is, for every front end (the window, the web page): the game played in a thread and its
messages (:mod:`.link`), where games are saved (:mod:`.folders`).  Imports no GUI library: the front ends draw
what these modules hold and turn their own input into their actions."""
