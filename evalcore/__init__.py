"""evalcore: meta-evaluation of machine-translation metrics (no UI code in here)."""
__version__ = "0.1.0"
