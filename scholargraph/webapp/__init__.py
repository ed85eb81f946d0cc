"""The live review page behind ``scholargraph serve``: type a question, watch the steps and
per-source counts arrive, read the review with its cited passages, download the exports."""

from scholargraph.webapp.app import create_app, serve

__all__ = ["create_app", "serve"]
