"""The HTTP API's routes, one module per area; each ``router(service)`` builds its APIRouter."""
