"""``yakgwan serve``: the HTTP API and the web app (the one command that starts the server)."""

from __future__ import annotations

import argparse

from yakgwan.config import Settings


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    from yakgwan.server.run import serve

    return serve(settings, args.host, args.port, args.data, args.workers)
