"""``yakgwan serve``: build the app from the environment and run it with uvicorn."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from yakgwan.config import ServerConfig, Settings
from yakgwan.core.errors import InputError


def serve(settings: Settings, host: str, port: int, data: Path | None) -> int:
    import uvicorn

    from yakgwan.server.app import create_app

    if not 0 < port < 65536:
        raise InputError(None, f"--port must be 1–65535, got {port}")
    config = ServerConfig.from_env(settings)
    if data is not None:
        config = dataclasses.replace(config, data_dir=data)
    config = dataclasses.replace(config, warm_up=True)
    if host not in ("127.0.0.1", "localhost", "::1") and config.api_key is None:
        print(f"warning: serving on {host} without YAKGWAN_API_KEY: anyone who can reach this address can use the API", file=sys.stderr)
    url = f"http://{'localhost' if host in ('127.0.0.1', '::1') else host}:{port}/"
    print(f"yakgwan: web app at {url} (API schema {url}openapi.json); data in {config.data_dir}", file=sys.stderr, flush=True)
    uvicorn.run(create_app(config), host=host, port=port, log_level="warning" if settings.quiet else "info", access_log=not settings.quiet)
    return 0
