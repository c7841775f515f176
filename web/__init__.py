"""The web pages: a Flask app factory over the running service.

``create_app(service)`` takes anything with the small :class:`TableService` surface (the
service composition root passes itself). The scoreboard is open to the LAN and read-only;
anything that changes a game needs the table PIN.
"""

from web.app import TableService, create_app

__all__ = ["TableService", "create_app"]
