"""Hardware at the edge: serial and HID readers (pure frame parsers + thin port loops), the
virtual and replay twins, MQTT, LED scenes and drivers. Imports only companion.core/games."""
