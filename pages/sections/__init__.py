"""Page sections: a section's layout, called from its host page (computations in evalcore/views)."""
