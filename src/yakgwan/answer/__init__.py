"""Grounded answers: cite exactly or refuse."""
