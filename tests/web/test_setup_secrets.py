"""The setup page never shows the config's secrets (the broker's password, the table PIN) and
saving the config as shown keeps them (noticed in the issue 18 review: anyone signed in to the
setup page, or a trusted kiosk screen, could read the MQTT password)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.service.config import load_settings
from companion.service.runtime import Trackside
from web.setup import KEPT, mask_secrets, restore_secrets

from .conftest import PIN
from .test_table import signed_in

CONFIG = f"""[web]
host = "127.0.0.1"
port = 0
pin = "{PIN}"

[database]
path = "{{db}}"

[mqtt]
host = "127.0.0.1"
port = 1
username = "trackside"
password = "broker-secret"
"""


@pytest.fixture
def configured(tmp_path: Path) -> Iterator[tuple[Trackside, Path]]:
    path = tmp_path / "trackside.toml"
    path.write_text(CONFIG.replace("{db}", str(tmp_path / "db.sqlite3")), encoding="utf-8")
    svc = Trackside(load_settings(path))
    svc.start()
    yield svc, path
    svc.stop()


def test_the_setup_page_shows_no_secret_and_saving_it_keeps_them(
    configured: tuple[Trackside, Path],
) -> None:
    service, path = configured
    client = signed_in(service)
    page = client.get("/setup").get_data(as_text=True)
    assert "broker-secret" not in page
    assert f'pin = "{PIN}"' not in page and PIN not in page
    shown = re.search(r"<textarea[^>]*name=\"config\"[^>]*>(.*?)</textarea>", page, re.S)
    assert shown, page
    import html

    text = html.unescape(shown.group(1))
    assert KEPT in text
    token = re.search(r'name="csrf" value="([^"]+)"', page)
    assert token
    edited = text.replace('username = "trackside"', 'username = "table-7"')
    response = client.post("/setup/config", data={"csrf": token.group(1), "config": edited})
    assert response.status_code == 303
    saved = path.read_text(encoding="utf-8")
    assert 'password = "broker-secret"' in saved and f'pin = "{PIN}"' in saved
    assert 'username = "table-7"' in saved and KEPT not in saved


def test_a_kept_secret_without_a_value_to_keep_is_a_form_error() -> None:
    with pytest.raises(ValueError, match=r"mqtt\.password: there is no value to keep"):
        restore_secrets(f'[mqtt]\npassword = "{KEPT}"\n', '[mqtt]\nhost = "x"\n')


def test_masking_keeps_everything_but_the_secret_values() -> None:
    text = '[mqtt]\nusername = "t"\npassword = "a\\"b"  # note\n[web]\npin = "123456"\n'
    masked = mask_secrets(text)
    assert masked == f'[mqtt]\nusername = "t"\npassword = "{KEPT}"  # note\n[web]\npin = "{KEPT}"\n'
    assert restore_secrets(masked, text) == text
