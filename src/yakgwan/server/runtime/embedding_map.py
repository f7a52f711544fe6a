"""A 2-D map of chunk embeddings for the workbench: t-SNE (scikit-learn, exact for small sets,
Barnes–Hut above) of the L2-normalised vectors, as the seed draws it. Deterministic for a seed."""

from __future__ import annotations

import numpy as np

MAX_POINTS = 3000  # above this a fixed, evenly spaced sample is drawn


def sample_rows(n: int, limit: int = MAX_POINTS) -> np.ndarray:
    """Row indexes to draw: all when ``n <= limit``, else ``limit`` evenly spaced ones."""
    if n <= limit:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, limit).round().astype(int))


def project_2d(vectors: np.ndarray, seed: int = 0) -> np.ndarray:
    """(n, d) → (n, 2). t-SNE with perplexity min(30, (n − 1) / 3) and PCA initialisation; fewer
    than 4 points are laid out on a line (t-SNE needs a neighbourhood)."""
    n = vectors.shape[0]
    if n == 0:
        return np.zeros((0, 2))
    if n < 4:
        return np.column_stack([np.arange(n, dtype=float), np.zeros(n)])
    from sklearn.manifold import TSNE

    x = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    perplexity = min(30.0, (n - 1) / 3.0)
    method = "exact" if n <= 500 else "barnes_hut"
    return TSNE(n_components=2, perplexity=perplexity, init="pca", random_state=seed, method=method).fit_transform(x.astype(np.float64))
