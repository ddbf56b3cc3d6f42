"""Prefect flows (entrypoints named in prefect.yaml)."""
