"""Built-in plugins of plyground (each registered through an entry point)."""
