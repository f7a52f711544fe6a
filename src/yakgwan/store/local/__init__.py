"""The embedded folder backend: an index in one directory, no server (``store``), and its
in-memory query-time view (``view``)."""
