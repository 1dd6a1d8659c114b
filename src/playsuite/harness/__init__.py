"""Closed-loop play: the episode loop, the recorder, and the node runner."""
