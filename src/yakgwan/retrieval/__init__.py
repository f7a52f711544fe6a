"""Retrievers and fusion."""
