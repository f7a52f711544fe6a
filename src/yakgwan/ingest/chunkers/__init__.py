"""Chunkers, one file each (``yakgwan_structure``, ``markdown``, ``recursive``), and the registry
that names them and picks one for a document (``registry.chunker_for``)."""
