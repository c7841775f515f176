"""Hardware at the edge: serial RFID and barcode readers, HID scanners, seat pads.

Each device has a pure part (frame parsers, key maps, the presence model) with the logic and
the tests, and a thin part that only moves bytes (the port loops). Imports ``companion.core``
and ``companion.games`` only.
"""
