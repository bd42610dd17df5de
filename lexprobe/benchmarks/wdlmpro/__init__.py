"""WDLMPro: match words and WordNet definitions (W2D, D2W) within groups of taxonomic sisters."""
