"""Prolog text: terms, the reader and its operators, and the writer (no learning here)."""
