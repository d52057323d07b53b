"""Runnable demos, one linear file each (CleanRL style); ``rlviz demo`` runs them."""
