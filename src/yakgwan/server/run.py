"""``yakgwan serve``: build the app from the environment and run it with uvicorn."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import yakgwan.config.env as environment
from yakgwan.config import ServerConfig, Settings
from yakgwan.core.errors import InputError
from yakgwan.messages import msg
from yakgwan.core.location import display_location


def serve(settings: Settings, host: str, port: int, data: Path | None, workers: int = 1) -> int:
    import uvicorn

    from yakgwan.server.app import create_app

    if not 0 < port < 65536:
        raise InputError(None, msg("serve.port", port=port))
    if workers < 1:
        raise InputError(None, msg("serve.workers", workers=workers))
    config = ServerConfig.from_env(settings)
    if data is not None:
        config = dataclasses.replace(config, data_dir=data)
    config = dataclasses.replace(config, warm_up=True)
    if host not in ("127.0.0.1", "localhost", "::1") and config.api_key is None:
        print(msg("serve.open_warning", host=host).text(settings.language), file=sys.stderr)
    url = f"http://{'localhost' if host in ('127.0.0.1', '::1') else host}:{port}/"
    print(msg("serve.url", url=url, data=str(config.data_dir)).text(settings.language), file=sys.stderr, flush=True)
    log_level = "warning" if settings.quiet else "info"
    if workers == 1:
        uvicorn.run(create_app(config), host=host, port=port, log_level=log_level, access_log=not settings.quiet)
        return 0
    if config.database is None:
        raise InputError(None, msg("serve.workers_need_db"))
    # each worker process builds the same app from the environment (uvicorn starts them by import)
    environment.hand_to_workers(config.database, config.data_dir)
    print(msg("serve.workers_sharing", n=workers, database=display_location(config.database)).text(settings.language), file=sys.stderr, flush=True)
    uvicorn.run("yakgwan.server.run:app_from_env", factory=True, workers=workers, host=host, port=port, log_level=log_level,
                access_log=not settings.quiet)
    return 0


def app_from_env():  # type: ignore[no-untyped-def]
    """The app of one worker process of ``serve --workers N``, from the environment (which
    names the database and data folder the parent process was given); its jobs print no
    progress bars."""
    from yakgwan.server.app import create_app

    settings = Settings.from_env().with_(quiet=True)
    return create_app(dataclasses.replace(ServerConfig.from_env(settings), warm_up=True))
