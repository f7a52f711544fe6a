"""The PostgreSQL + pgvector backend (``yakgwan[postgres]``): ``postgresql://…?collection=NAME``."""
