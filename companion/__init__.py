"""Trackside: a table companion for physical railroad board games."""

__version__ = "0.1.0"
