"""``yakgwan serve``: the HTTP API (collections, ingest jobs, search, ask with streaming, appeal,
evaluation runs) and the web app, in one process. Build it with :func:`yakgwan.server.app.create_app`."""
