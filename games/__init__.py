"""Built-in games of plyground (each registered through an entry point)."""
