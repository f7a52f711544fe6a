"""Korean text analysis for lexical search."""
