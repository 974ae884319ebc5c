"""Prolog text: terms, the reader and its operators, the writer, and Prolog source files."""
