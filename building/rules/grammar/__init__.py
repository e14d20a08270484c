"""Putting a replacement into a sentence grammatically: inflection, Portuguese agreement, articles and determiners, capitals, neutral sentences."""
