"""yakgwan: Korean-first retrieval and evaluation for insurance policies (약관) and other documents."""

__version__ = "0.1.0"
