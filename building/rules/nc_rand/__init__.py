"""NC_Rand: compounds of a similar frequency from a pool (the corpus's own phrases or a generated list), as the papers draw them."""
