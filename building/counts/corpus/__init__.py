"""Streaming corpus counting in chunks (pure: no Django import)."""
