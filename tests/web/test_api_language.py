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


def test_a_move_is_told_on_the_scoreboard_in_the_screens_language(service: Trackside) -> None:
    """The last moves are the game's own sentence, kept as a message: a Czech screen reads it
    in Czech, an English one in English (the move's outcome keeps its message to the end)."""
    from companion.core.i18n import translations
    from companion.core.messages import is_message_json, render_text

    client = service.app.test_client()
    pin = {"X-Trackside-Pin": PIN}
    assert client.post("/api/input", json=START, headers=pin).json["outcome"] == "applied"
    at = ""
    while True:  # the first choice down to an input: a move the rules accept now
        tree = client.get(f"/api/choices?at={at}", headers=pin).json["choices"]
        first = tree[0]
        at = f"{at}/{first['key']}" if at else first["key"]
        if "input" in first:
            break
    assert client.post("/api/input", json=first["input"], headers=pin).json["outcome"] in (
        "applied",
        "prompt",
    )
    recent = service.engine.latest()[1]["status"]["recent"][-1]
    assert is_message_json(recent["message"]), recent
    czech = render_text(recent["message"], translations("cs"))
    english = render_text(recent["message"], translations("en"))
    assert czech != english
    assert czech in client.get("/", headers={"Accept-Language": "cs"}).get_data(as_text=True)
    assert english in client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
