"""Issue 17: a refusal through ``POST /api/input`` answers in the ``Accept-Language`` given —
the reason, the rule and the rulebook's section, each in that language."""

from __future__ import annotations

import pytest

from companion.service.runtime import Trackside

from .conftest import PIN

START = {
    "kind": "command",
    "payload": {
        "command": "start_game",
        "game": "ticket-to-ride-europe",
        "players": [{"name": "Anna", "colour": "red"}, {"name": "Petr", "colour": "blue"}],
    },
}
TOO_EARLY = {"kind": "action", "payload": {"action": {"kind": "draw_blind", "player": 1}}}


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("cs-CZ,cs;q=0.9", ("karty cílových stanic", "pravidlo:", "pravidla: ZAČÁTEK HRY")),
        ("es", ("billetes de destino", "regla:", "reglamento:")),
        ("en-GB", ("destination tickets", "rule:", "rulebook: Starting the game")),
    ],
)
def test_a_refusal_answers_in_the_language_asked(
    service: Trackside, language: str, words: tuple[str, ...]
) -> None:
    client = service.app.test_client()
    pin = {"X-Trackside-Pin": PIN}
    assert client.post("/api/input", json=START, headers=pin).json["outcome"] == "applied"
    answer = client.post("/api/input", json=TOO_EARLY, headers={**pin, "Accept-Language": language})
    assert answer.status_code == 409
    assert answer.json["outcome"] == "rejected"
    message = answer.json["message"]
    assert isinstance(message, str)
    for word in words:
        assert word in message, message
    # the language is the request's: the table's state is unchanged by the refusal
    assert service.latest()[1]["seq"] == 1
