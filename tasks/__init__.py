"""Prefect tasks: thin adapters (retries, caching, logging) over ``assay.pipeline``."""
