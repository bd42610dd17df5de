"""CoDA21: align the contexts and definitions of hidden words (Senel et al., 2021)."""
