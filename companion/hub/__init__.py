"""The club hub (docs/hub.md): one screen and one league for many Trackside tables.

A composition root beside ``companion.service``: it reads the club broker (paho), keeps every
table's latest public state, stores every finished game's result once in its own SQLite file,
and serves the wall screen, the per-table pages and the league (Flask). It never changes a
table's game; the only thing it sends a table is a resend request.
"""
