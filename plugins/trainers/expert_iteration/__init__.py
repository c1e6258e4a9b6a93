"""Deep Pepper expert iteration for chess: networks on hand-made features, Stockfish adjudication (docs/deep_pepper.md)."""
