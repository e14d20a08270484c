"""Building minimal pairs (pure: no Django import): lexical lookups, random matching, realisation."""
