"""A probe run's machinery: shard plans, the vector cache and binary COPY, the engine, loading, schedules."""
