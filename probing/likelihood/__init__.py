"""Probes by probability: what causal and masked language models expect, scored as minicons and lm-evaluation-harness do.

``scoring`` gives each text's per-token log-probabilities (a causal LM's given the left context; a
masked LM's pseudo-log-likelihood with the within-word correction), ``choices`` the multiple-choice
metrics of lm-evaluation-harness, ``loading`` the models a registration allows.
"""
