"""The pages of building: build jobs, generation, the review queue and a compound's review."""
