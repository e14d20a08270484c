"""A run's report: built once from the shards, shaped into tables and figures, drawn as pages and downloads."""
