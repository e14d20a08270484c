"""Minimal-pair variants: gold synonyms, generation with its jobs and resources, curation."""
