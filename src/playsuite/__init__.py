"""PlaySuite: foundation models play real games; a video judge scores their progress."""

__version__ = "0.1.0"
