"""A campaign's report: agreement, reliability, aggregates, type/token analyses, and its pages."""
