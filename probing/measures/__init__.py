"""What a run measures: the minimal pairs, cosines as arrays, Sim, Affinity, Scaled Similarity, correlations."""
