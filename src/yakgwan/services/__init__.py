"""What every client calls — the CLI, the HTTP server, the demo, the benchmarks: ingest
(``ingest``), search (``search``), ask (``ask``), evaluate (``evaluate``), appeal (``appeal``),
report (``report``), the pipeline list (``pipelines``). One module per service; each builds its
objects from typed ``Settings`` (``context``) and returns typed results. Models shared by a
long-running client live in ``models``."""
