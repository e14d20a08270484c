"""Parsers of the public datasets' files and the workbench's own format into records (pure: no Django import)."""
