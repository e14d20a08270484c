"""Paying crowd workers: decisions from the quality flags, the platforms' files, Prolific's API."""
