"""Versioned, immutable dataset releases: snapshot, files, checksums, diff."""
