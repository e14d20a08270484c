"""Frequencies and association of compounds and their words: wordfreq or corpus counts, PMI."""
