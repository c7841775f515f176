"""The setup page (``/setup``), behind the table PIN: what used to need SSH and a TOML editor.

- **Readers**: the configured ones (protocol, port, seat) with their live status, and the
  serial ports found on the machine with their stable ``/dev/serial/by-id``/``by-path`` names.
- **Tags**: tap to enrol (the last tags the readers saw that are not enrolled, each with a
  form to bind it to a component), the registry (list, export, import, remove with a reason —
  the reason stays in the input log). Every change goes through the engine as a command, as
  from the table page, so the same checks apply and the input log keeps it.
- **Config**: the config file shown and edited; a change is checked exactly as at start-up
  (``parse_settings``) and refused, naming the option, without touching the file; a good one is
  written (the old one kept as ``.bak``) and takes effect at the next restart.
- **Log**: the last lines of ``$TRACKSIDE_LOG_FILE``.
- **Backup**: the whole table to download (database, config, camera calibration:
  companion/service/backup.py), and a restore: the upload is checked completely (the database's
  identity, integrity and schema, the config as start-up checks it and its port, the
  calibration) before anything is staged, and put in place at the next start.
- **Version** and how to upgrade.

Every form carries the CSRF token; uploads are bounded before they are read.
"""

from __future__ import annotations

import io
import json
import os
import re
import tempfile
import time
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    get_flashed_messages,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)
from werkzeug.wrappers import Response as BaseResponse

from companion.core.errors import TracksideError
from web.games import find_game, game_names
from web.guard import guard, require_csrf
from web.i18n import _
from web.server import MAX_RESTORE_BYTES

blueprint = Blueprint("setup", __name__)

MAX_UPLOAD_BYTES = MAX_RESTORE_BYTES  # a whole table's backup; tags files are tiny
MAX_TAGS_FILE_BYTES = 1024 * 1024
MAX_CONFIG_BYTES = 256 * 1024
LOG_LINES = 200
LOG_TAIL_BYTES = 64 * 1024
UPGRADE = "sudo /opt/trackside/deploy/upgrade.sh"


@runtime_checkable
class SetupService(Protocol):
    """What this page needs from the service (``companion.service.runtime.Trackside``)."""

    settings: Any
    store: Any

    def latest(self) -> tuple[int, dict[str, Any]]: ...

    def serial_ports(self) -> list[dict[str, Any]]: ...

    def check_config(self, data: Mapping[str, Any], file: str) -> object: ...

    def tags_document(self) -> dict[str, Any]: ...

    def parse_tags_document(self, data: Any) -> list[Any]: ...

    def make_backup(self) -> bytes: ...

    def stage_restore(self, data: bytes) -> object: ...

    def cancel_restore(self) -> bool: ...

    def restore_pending(self) -> tuple[str, ...]: ...


def _service() -> SetupService:
    service = guard().service
    assert isinstance(service, SetupService)
    return service


@blueprint.before_request
def _bounded() -> None:
    """Refuse an oversized body before anything parses it (the multipart parser would spool
    it to disk first)."""
    if request.method == "POST" and (request.content_length or 0) > MAX_UPLOAD_BYTES + 65536:
        abort(413, f"the upload is over {MAX_UPLOAD_BYTES // 2**20} MB")


def _gate() -> str | BaseResponse | None:
    if guard().service.pin is None:
        return render_template(
            "login.html",
            disabled=True,
            messages=[("error", _("Changes from the page are off: set [web] pin in the config."))],
        )
    if not guard().signed_in():
        flash(_("Enter the table PIN first."), "error")
        return redirect(url_for("table"), 303)
    return None


def _post_gate() -> BaseResponse | None:
    gate = _gate()
    if gate is not None:
        return gate if isinstance(gate, BaseResponse) else redirect(url_for("setup.page"), 303)
    require_csrf()
    return None


def _back(anchor: str) -> BaseResponse:
    return redirect(url_for("setup.page") + "#" + anchor, 303)


# -- what the page shows ---------------------------------------------------------------------
def config_path(service: SetupService) -> Path | None:
    source = getattr(service.settings, "source", "")
    return Path(source) if source else None


def log_tail(path: str | None, lines: int = LOG_LINES) -> list[str] | None:
    if not path:
        return None
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - LOG_TAIL_BYTES))
            text = f.read().decode("utf-8", "replace")
    except OSError as exc:
        return [f"(cannot read {path}: {exc.strerror})"]
    return text.splitlines()[-lines:]


def unknown_tags(service: SetupService, limit: int = 300) -> list[dict[str, Any]]:
    """Tags the readers saw lately that are not enrolled, newest first, one row per uid."""
    seen: dict[str, dict[str, Any]] = {}
    for item in service.store.inputs(limit):
        payload = item.get("payload")
        if item.get("kind") != "tag_present" or not isinstance(payload, Mapping):
            continue
        uid = payload.get("uid")
        if not isinstance(uid, str) or uid in seen or uid.startswith("TS:"):
            continue
        if service.store.tag(uid) is None:
            seen[uid] = {"uid": uid, "reader": item.get("source"), "seat": item.get("seat")}
    return list(seen.values())[:12]


def removed_tags(service: SetupService, limit: int = 500) -> list[dict[str, Any]]:
    out = []
    for item in service.store.inputs(limit):
        payload = item.get("payload")
        unenrol = isinstance(payload, Mapping) and payload.get("command") == "unenrol"
        if unenrol and item.get("outcome") == "unenrolled":
            out.append({"message": item.get("message"), "by": item.get("source")})
    return out[:20]


def components() -> list[dict[str, str]]:
    out = []
    for name in game_names():
        game = find_game(name)
        if getattr(game, "hidden", False):
            continue
        for c in game.components:
            out.append({"game": name, "title": game.title, "id": c.id, "name": c.name})
    return out


def _render(status: int = 200, **overrides: Any) -> tuple[str, int]:
    service = _service()
    _version, snapshot = service.latest()
    status_json = snapshot.get("status")
    devices = status_json.get("devices", {}) if isinstance(status_json, Mapping) else {}
    path = config_path(service)
    config_text: str | None = None
    if path is not None:
        try:
            config_text = mask_secrets(path.read_text(encoding="utf-8"))
        except OSError as exc:
            flash(
                _(
                    "Cannot read the config file {path}: {why}",
                    path=str(path),
                    why=str(exc.strerror),
                ),
                "error",
            )
    log_file = os.environ.get("TRACKSIDE_LOG_FILE")
    context: dict[str, Any] = {
        "readers": service.settings.readers,
        "devices": devices,
        "ports": service.serial_ports(),
        "tags": service.store.tags(),
        "unknown": unknown_tags(service),
        "removed": removed_tags(service),
        "components": components(),
        "config_path": path,
        "config_text": config_text,
        "config_error": None,
        "log_path": log_file,
        "log_lines": log_tail(log_file),
        "database": service.settings.database.path,
        "restore_pending": service.restore_pending(),
        "version": getattr(service, "version", "unknown"),
        "upgrade": UPGRADE,
    }
    context.update(overrides)
    context["messages"] = get_flashed_messages(with_categories=True)
    return render_template("setup.html", **context), status


@blueprint.get("/setup")
def page() -> str | tuple[str, int] | BaseResponse:
    gate = _gate()
    if gate is not None:
        return gate
    return _render()


# -- tags ------------------------------------------------------------------------------------
@blueprint.post("/setup/tags/enrol")
def enrol() -> BaseResponse:
    refused = _post_gate()
    if refused is not None:
        return refused
    uid = request.form.get("uid", "").strip()
    game, _bar, component = request.form.get("component", "").partition("|")
    guard().send("command", {"command": "enrol", "uid": uid, "game": game, "component": component})
    return _back("tags")


@blueprint.post("/setup/tags/remove")
def remove() -> BaseResponse:
    refused = _post_gate()
    if refused is not None:
        return refused
    payload = {
        "command": "unenrol",
        "uid": request.form.get("uid", ""),
        "reason": request.form.get("reason", ""),
    }
    guard().send("command", payload)
    return _back("tags")


@blueprint.get("/setup/tags.json")
def export_tags() -> Response | str | BaseResponse:
    gate = _gate()
    if gate is not None:
        return gate
    body = json.dumps(_service().tags_document(), indent=1, ensure_ascii=False)
    return Response(
        body + "\n",
        mimetype="application/json",
        headers={"Content-Disposition": 'attachment; filename="trackside-tags.json"'},
    )


@blueprint.post("/setup/tags/import")
def import_tags() -> BaseResponse:
    refused = _post_gate()
    if refused is not None:
        return refused
    upload = request.files.get("file")
    data = upload.stream.read(MAX_TAGS_FILE_BYTES + 1) if upload is not None else b""
    if not data:
        flash(
            _(
                "Import: choose a tags file (exported from this page or {command}).",
                command="trackside tags export",
            ),
            "error",
        )
        return _back("tags")
    if len(data) > MAX_TAGS_FILE_BYTES:
        flash(
            _("Import: the file is over {n} kB; nothing imported.", n=MAX_TAGS_FILE_BYTES // 1024),
            "error",
        )
        return _back("tags")
    try:
        bindings = _service().parse_tags_document(json.loads(data.decode("utf-8")))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        flash(_("Import: not a tags file (JSON): {why}; nothing imported.", why=str(exc)), "error")
        return _back("tags")
    except TracksideError as exc:
        flash(_("Import: {why}; nothing imported.", why=str(exc)), "error")
        return _back("tags")
    store = _service().store
    added = same = 0
    refused_uids: list[str] = []
    for binding in bindings:
        known = store.tag(binding.uid)
        if known is not None and (known.game, known.component) == (binding.game, binding.component):
            same += 1
            continue
        payload = {
            "command": "enrol",
            "uid": binding.uid,
            "game": binding.game,
            "component": binding.component,
        }
        verdict = _quiet_send(payload)
        if verdict == "enrolled":
            added += 1
        else:
            refused_uids.append(f"{binding.uid}: {verdict}")
    flash(_("Import: {added} enrolled, {same} already so.", added=added, same=same), "ok")
    if refused_uids:
        flash(_("Import refused: {tags}", tags="; ".join(refused_uids[:10])), "error")
    return _back("tags")


def _quiet_send(payload: Mapping[str, Any]) -> str:
    """One enrol command through the engine; its outcome word, or the refusal's message."""
    from companion.core.observation import Observation

    observation = Observation.from_json(
        {"source": guard().who(), "kind": "command", "payload": dict(payload)}, "form"
    )
    outcome = guard().service.submit_and_wait(observation, 10.0)
    if outcome.get("outcome") == "enrolled":
        return "enrolled"
    return str(outcome.get("message") or outcome.get("outcome"))


# -- config ----------------------------------------------------------------------------------
SECRET_KEYS = ("password", "pin")
"""Options the page never shows (the broker's and the club's passwords, the table PIN): a
device signed in from a trusted screen, or a shoulder behind the setup page, must not read
them. They read ``KEPT``; saved as ``KEPT``, the file's own value stays. Nothing the page
renders carries them: not the config shown, not a refused config shown again, not an error."""
KEPT = "(kept: type a new value to change it)"
_KEY = "[\"']?(?P<key>" + "|".join(SECRET_KEYS) + ")[\"']?"
_QUOTED = r'"(?:[^"\\\n]|\\.)*"' + "|" + r"'[^'\n]*'"
_SECRET_LINE = re.compile(
    r"^(?P<head>[ \t]*" + _KEY + r"[ \t]*=[ \t]*)(?P<value>" + _QUOTED + ")", re.MULTILINE
)
"""A secret on its own line, its value quoted either way (``"…"`` or ``'…'``): what the page
masks and, saved unchanged, gives back."""
_MULTILINE = '"{3}[\\s\\S]*?"{3}' + "|" + "'{3}[\\s\\S]*?'{3}"
_ANY_SECRET = re.compile(
    r"(?P<head>(?:^|(?<=[\s{,.]))"
    + _KEY
    + r"\s*=\s*)(?P<value>"
    + _MULTILINE
    + "|"
    + _QUOTED
    + r"|[^\s,}#]+)",
    re.MULTILINE,
)
"""Any secret anywhere (a dotted key ``web.pin``, an inline table, a multi-line or bare value):
masked whatever it looks like, even in a config that is not valid TOML."""
_KEPT_VALUE = f'"{KEPT}"'
_SECTION = re.compile(r"^\s*\[+\s*([^\]]+?)\s*\]+", re.MULTILINE)


def _secrets_by_section(text: str) -> dict[tuple[str, str], str]:
    """(section, key) → the quoted value as written (quotes included), for every secret line of
    a config."""
    found: dict[tuple[str, str], str] = {}
    section = ""
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header:
            section = header.group(1)
            continue
        secret = _SECRET_LINE.match(line)
        if secret:
            found[(section, secret.group("key"))] = secret.group("value")
    return found


def mask_secrets(text: str) -> str:
    """The config as the page shows it: every secret's value replaced by :data:`KEPT`."""
    return _ANY_SECRET.sub(lambda m: f"{m.group('head')}{_KEPT_VALUE}", text)


def secret_values(*texts: str) -> set[str]:
    """Every secret value written in ``texts``, as written and without its quotes (what an error
    message might quote)."""
    found: set[str] = set()
    for text in texts:
        for m in _ANY_SECRET.finditer(text):
            raw = m.group("value")
            for value in (raw, raw.strip("\"'").strip()):
                if value and value not in (KEPT, _KEPT_VALUE):
                    found.add(value)
    return found


def redact(message: str, values: set[str]) -> str:
    """``message`` with every secret value in ``values`` replaced by "…"."""
    for value in sorted(values, key=len, reverse=True):
        message = message.replace(value, "…")
    return message


def restore_secrets(posted: str, current: str) -> str:
    """The posted config with each secret still reading :data:`KEPT` given back its value from
    the file (same section and key, quoted as written there). One that is not in the file any
    more is a form error."""
    values = _secrets_by_section(current)
    out = []
    section = ""
    for line in posted.splitlines(keepends=True):
        header = _SECTION.match(line)
        if header:
            section = header.group(1)
        secret = _SECRET_LINE.match(line)
        if secret and secret.group("value") == _KEPT_VALUE:
            kept = values.get((section, secret.group("key")))
            if kept is None:
                raise ValueError(
                    f"{section + '.' if section else ''}{secret.group('key')}: there is no "
                    "value to keep; type one"
                )
            out.append(f"{secret.group('head')}{kept}" + line[secret.end() :])
            continue
        out.append(line)
    return "".join(out)


def _refused_config(posted: str, current: str, why: str) -> tuple[str, int]:
    """The refused config shown again for fixing: masked like the saved one (the file's secrets
    and the ones just typed: whoever sees the page may not be whoever typed them), and the
    reason with any secret value cut out."""
    values = secret_values(posted, current)
    shown = redact(mask_secrets(posted), values)
    return _render(400, config_text=shown, config_error=redact(why, values))


@blueprint.post("/setup/config")
def save_config() -> BaseResponse | tuple[str, int]:
    refused = _post_gate()
    if refused is not None:
        return refused
    service = _service()
    path = config_path(service)
    posted = request.form.get("config", "")
    if path is None:
        flash(
            _("This service runs on built-in defaults: there is no config file to edit."), "error"
        )
        return _back("config")
    current = path.read_text(encoding="utf-8") if path.exists() else ""
    if len(posted.encode("utf-8")) > MAX_CONFIG_BYTES:
        return _refused_config(posted, current, _("the config is over {n} kB", n=256))
    try:
        text = restore_secrets(posted, current)
        data = tomllib.loads(text)
        service.check_config(data, str(path))  # the same checks as at start-up
    except tomllib.TOMLDecodeError as exc:
        return _refused_config(posted, current, _("not valid TOML: {why}", why=str(exc)))
    except (TracksideError, ValueError) as exc:
        return _refused_config(posted, current, str(exc))
    previous = current if path.exists() else None
    with tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=path.parent, prefix=".trackside-", delete=False
    ) as tmp:
        tmp.write(text)
        tmp.flush()
        os.fsync(tmp.fileno())
    if path.exists():
        os.chmod(tmp.name, path.stat().st_mode & 0o777)
    if previous is not None:
        path.with_name(path.name + ".bak").write_text(previous, encoding="utf-8")
    os.replace(tmp.name, path)
    flash(
        _(
            "Config saved (the previous one is kept as .bak). It takes effect when Trackside restarts."
        ),
        "ok",
    )
    return _back("config")


# -- database --------------------------------------------------------------------------------
@blueprint.get("/setup/backup.zip")
def backup() -> Response | str | BaseResponse:
    """The whole table (companion/service/backup.py): database, config, camera calibration."""
    gate = _gate()
    if gate is not None:
        return gate
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return send_file(
        io.BytesIO(_service().make_backup()),
        mimetype="application/zip",
        as_attachment=True,
        download_name=f"trackside-{stamp}.zip",
    )


@blueprint.post("/setup/restore")
def restore() -> BaseResponse:
    refused = _post_gate()
    if refused is not None:
        return refused
    service = _service()
    upload = request.files.get("file")
    data = upload.stream.read(MAX_UPLOAD_BYTES + 1) if upload is not None else b""
    if not data:
        flash(_("Restore: choose a backup file first."), "error")
        return _back("database")
    if len(data) > MAX_UPLOAD_BYTES:
        flash(
            _("Restore: the file is over {n} MB; nothing changed.", n=MAX_UPLOAD_BYTES // 2**20),
            "error",
        )
        return _back("database")
    try:
        service.stage_restore(data)  # checked completely before anything is staged
    except TracksideError as exc:
        flash(_("Restore refused: {why}. Nothing changed.", why=str(exc)), "error")
        return _back("database")
    flash(
        _(
            "Backup checked and ready: it replaces the database, and the config and camera "
            "calibration it holds, when Trackside restarts (the current files are kept beside "
            "them)."
        ),
        "ok",
    )
    return _back("database")


@blueprint.post("/setup/restore/cancel")
def cancel_restore() -> BaseResponse:
    refused = _post_gate()
    if refused is not None:
        return refused
    if _service().cancel_restore():
        flash(_("The pending restore is cancelled."), "ok")
    return _back("database")
