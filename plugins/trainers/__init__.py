"""The trainer plugins that learn networks by playing: ``alphazero`` (self-play; its player is
players/alphazero/) and ``expert-iteration`` (Deep Pepper: Stockfish-adjudicated chess).

Each trainer is one package registered through its own entry point; what a trained network plays
with - the player, the network files, the search - stays with the player in players/.  The
trainers that learn from expert games instead (bonanza, bayes) are plugins beside this folder.
"""
