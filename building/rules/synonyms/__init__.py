"""Synonyms of a compound and of its words: the gold synonym (NC_Syn), lexicon lookups, ranking in context, NC_WordsSyn and one-sided variants, generic words, the offensive-word filter."""
