"""The bottom layer: typed records, the protocols of every swappable role, errors, registries.

Nothing here imports another yakgwan package.
"""
