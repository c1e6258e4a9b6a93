"""The screens every front end shows (the pygame window, the web page) as models that import no GUI library: the
game screen (:mod:`.game`, with :mod:`.messages`, :mod:`.looking_back`, :mod:`.report`, :mod:`.panel`), the
menu (:mod:`.menu`), their controls (:mod:`.controls`); the game played in a thread and its link to its screen
(:mod:`.link`); what a renderer showing them does alike (:mod:`.frontend`, :mod:`.folders`).  Each front end
draws what these models hold -- board views on its :class:`~plyground.boardview.canvas.Canvas` -- and turns its
own input into their actions."""
