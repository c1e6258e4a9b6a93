"""Built-in players of plyground (each registered through an entry point)."""
