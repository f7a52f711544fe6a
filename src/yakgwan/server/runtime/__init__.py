"""What the server keeps while it runs: collections and their uploads, the job queue, the
workbench's datasets, and the service that bundles them with the shared models."""
