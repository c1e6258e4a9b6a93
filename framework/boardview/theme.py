"""Colours, in one place so views and screens agree, in the window and on the page (and tests can look colours up).
The window's font is its own (``plyground.plugins.pygame_gui.theme``)."""
from __future__ import annotations

BACKGROUND = (34, 38, 46)
PANEL = (44, 49, 59)
PANEL_EDGE = (70, 77, 92)
TEXT = (232, 232, 226)
TEXT_DIM = (160, 165, 175)
TITLE = (250, 214, 120)
ACCENT = (96, 165, 250)

BUTTON = (64, 72, 88)
BUTTON_HOVER = (80, 90, 110)
BUTTON_PRIMARY = (46, 125, 80)
BUTTON_DISABLED = (52, 56, 64)

FIELD = (24, 27, 33)
FIELD_FOCUS = (30, 36, 48)
FIELD_EDGE = (90, 98, 115)
FIELD_EDGE_FOCUS = ACCENT

ERROR = (235, 87, 87)
ERROR_BOX = (120, 36, 40)
INFO_BOX = (36, 64, 110)
GOOD_BOX = (30, 92, 60)
SHOWN_MOVE = (58, 92, 150)    # the move list's move whose position the board shows (looking back)

# Boards
LIGHT_SQUARE = (238, 222, 190)
DARK_SQUARE = (120, 82, 56)
COORD_TEXT = (190, 190, 180)
SQUARE_NUMBER = (250, 240, 210)

#: Square highlights: a square is filled with this colour (under the piece).
HIGHLIGHT = {
    "last": (176, 140, 68),       # the last move's squares
    "must": (222, 110, 40),       # pieces that can (and so must) capture
    "selected": (92, 170, 224),   # the piece being moved
    "win": (70, 150, 90),         # a winning line
}
#: Marks drawn over a square: destinations, landings entered so far, captured pieces.
TARGET_DOT = (80, 200, 110)
FINAL_RING = (140, 230, 160)
PATH_DOT = (246, 214, 80)
JUMPED_CROSS = (230, 60, 60)
TAKEN_CROSS = (150, 60, 50)

BLACK_PIECE = (38, 38, 42)
BLACK_PIECE_EDGE = (110, 110, 118)
WHITE_PIECE = (240, 236, 222)
WHITE_PIECE_EDGE = (150, 140, 120)
CROWN = (232, 180, 40)

X_MARK = (214, 70, 60)
O_MARK = (60, 120, 210)

# live analysis: the best move's arrow (RGBA: the board shows through) and the evaluation bar's frame
ARROW = (40, 170, 90, 170)
