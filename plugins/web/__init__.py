"""The web renderer: play in a browser page served on this computer (docs/web.md)."""
