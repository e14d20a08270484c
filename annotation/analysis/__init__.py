"""The analyses of a campaign's ratings (pure: no Django): agreement, aggregation, reliability, quality, type/token."""
