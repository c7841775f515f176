"""The camera's calibration step (``/table/camera``): the camera's status, a still of what it
sees with the reveal area outlined, the instructions, **Take shot** (the nine cards are
collected over one or more shots of the reveal area), the cards collected so far and what the
next shot should show, **Start over**, the result (each colour's card, the warnings, where the
file went) and "back to the default palette".

Everything here needs the table PIN (the pictures too: they show the table) and every form
its CSRF token. The service does the work (``Trackside.take_camera_shot`` and its
``camera_calibration``, backed by ``vision.table_calibration``); this module only asks and
shows. A refusal is a message, and nothing changes: the shots, the palette in use and the file
stay as they were.
"""

from __future__ import annotations

import logging
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
    url_for,
)
from werkzeug.wrappers import Response as BaseResponse

from companion.core.errors import TracksideError
from companion.core.messages import plural
from web import forms, i18n
from web.guard import guard, require_csrf
from web.i18n import _

log = logging.getLogger(__name__)
blueprint = Blueprint("calibration", __name__)


class CalibrationDesk(Protocol):
    """One running camera's calibration step (``vision.table_calibration.LiveCalibration``)."""

    def overview(self) -> Any: ...

    def still_jpeg(self) -> bytes | None: ...

    def sample_jpeg(self, index: int) -> bytes | None: ...

    def collected_jpeg(self, index: int) -> bytes | None: ...

    def start_over(self) -> int: ...

    def reset(self) -> str: ...


@runtime_checkable
class CameraService(Protocol):
    """What this page needs from the service, beyond the PIN (``web.guard``)."""

    @property
    def camera_calibration(self) -> CalibrationDesk | None: ...

    def take_camera_shot(self, frames: int = ..., expect_collected: int | None = ...) -> Any: ...

    def camera_calibration_path(self) -> str: ...


def _service() -> CameraService | None:
    service = guard().service
    return service if isinstance(service, CameraService) else None


def _desk() -> CalibrationDesk | None:
    service = _service()
    return None if service is None else service.camera_calibration


@blueprint.app_context_processor
def camera_helpers() -> dict[str, Any]:
    def camera_summary() -> Any:
        """The camera's overview for the table page's link (None: no camera)."""
        desk = _desk()
        return None if desk is None else desk.overview()

    return {"camera_summary": camera_summary}


def _refused_unless_signed_in() -> BaseResponse | None:
    if not guard().signed_in():
        flash(_("Enter the table PIN first."), "error")
        return redirect(url_for("table"), 303)
    return None


def _jpeg(picture: bytes | None, missing: str) -> Response:
    if not guard().signed_in():
        abort(403, _("enter the table PIN first"))
    if picture is None:
        abort(404, missing)
    return Response(
        picture, mimetype="image/jpeg", headers={"Cache-Control": "no-store, max-age=0"}
    )


@blueprint.get("/table/camera")
def page() -> str | BaseResponse:
    if guard().service.pin is None:
        return render_template(
            "login.html",
            disabled=True,
            messages=[("error", "Changes from the page are off: set [web] pin in the config.")],
        )
    refused = _refused_unless_signed_in()
    if refused is not None:
        return refused
    service = _service()
    desk = None if service is None else service.camera_calibration
    return render_template(
        "camera.html",
        overview=None if desk is None else desk.overview(),
        path=None if service is None else service.camera_calibration_path(),
        messages=get_flashed_messages(with_categories=True),
    )


@blueprint.get("/table/camera/still.jpg")
def still() -> Response:
    desk = _desk()
    picture = None if desk is None or not guard().signed_in() else desk.still_jpeg()
    return _jpeg(picture, "no picture from the camera yet")


@blueprint.get("/table/camera/sample/<int:index>.jpg")
def sample(index: int) -> Response:
    desk = _desk()
    picture = None if desk is None or not guard().signed_in() else desk.sample_jpeg(index)
    return _jpeg(picture, f"no card {index} in the last calibration")


@blueprint.get("/table/camera/collected/<int:index>.jpg")
def collected(index: int) -> Response:
    desk = _desk()
    picture = None if desk is None or not guard().signed_in() else desk.collected_jpeg(index)
    return _jpeg(picture, f"no card {index} collected")


def _places(colours: Any, first: int) -> str:
    names = forms.COLOUR_NAMES
    return ", ".join(
        f"{first + i} {i18n.t(names[c]) if c in names else c}" for i, c in enumerate(colours)
    )


def _expected_collected() -> int | None:
    """The form's ``collected`` (the cards the page showed as collected); None: refused."""
    raw = request.form.get("collected", "")
    if not (raw.isascii() and raw.isdigit()) or int(raw) > 9:  # "³".isdigit() is true
        flash(
            _(
                "Shot not taken — collected: expected the number of cards the page showed as "
                "collected (0–9), got {value}. Reload the page and try again.",
                value=repr(raw),
            ),
            "error",
        )
        return None
    return int(raw)


@blueprint.post("/table/camera/shot")
def shot() -> BaseResponse:
    require_csrf()
    refused = _refused_unless_signed_in()
    if refused is not None:
        return refused
    back = redirect(url_for("calibration.page", _anchor="calibrate"), 303)
    service = _service()
    if service is None or service.camera_calibration is None:
        flash(_("Shot not taken — no camera is configured."), "error")
        return back
    expected = _expected_collected()
    if expected is None:
        return back
    try:
        outcome = service.take_camera_shot(expect_collected=expected)
    except TracksideError as exc:
        flash(_("Shot not taken — {why}. Nothing changed.", why=str(exc)), "error")
        return back
    except OSError as exc:
        flash(
            _(
                "Not calibrated — cannot write {path}: {why}. The last shot was not kept; the "
                "palette in use is unchanged.",
                path=service.camera_calibration_path(),
                why=str(exc.strerror or exc),
            ),
            "error",
        )
        return back
    result = outcome.result
    if result is None:
        log.info("camera shot %d taken by %s", outcome.number, guard().who())
        flash(
            _(
                "Shot {n} kept: {kept}. Next: {next} — lay them (or the first few) left to right "
                "in place of these and take the next shot.",
                n=outcome.number,
                kept=_places(outcome.colours, outcome.first_place),
                next=_places(outcome.missing, outcome.first_place + len(outcome.colours)),
            ),
            "ok",
        )
        return back
    log.info("camera calibrated by %s, saved to %s", guard().who(), result.path)
    colours, path = len(result.samples), str(result.path)
    flash(
        _(
            "Calibrated: {colours} colours measured, saved to {path}; the camera reads cards "
            "with them now.",
            colours=colours,
            path=path,
        )
        if outcome.number == 1
        else _(
            "Calibrated from {n} shots: {colours} colours measured, saved to {path}; the camera "
            "reads cards with them now.",
            n=outcome.number,
            colours=colours,
            path=path,
        ),
        "ok",
    )
    if result.palette.view > 1.0:
        flash(
            _(
                "The camera looks at the table at a slant: Trackside allows for it when it finds "
                "cards (the table's depth ×{stretch}).",
                stretch=i18n.num(result.palette.view, 2),
            ),
            "info",
        )
    return redirect(url_for("calibration.page", _anchor="result"), 303)


def _signed_in_desk() -> tuple[CalibrationDesk | None, BaseResponse | None]:
    """For a form post: (the camera's calibration step, None), or (None, the redirect that
    says why not: no PIN yet, or no camera)."""
    require_csrf()
    refused = _refused_unless_signed_in()
    if refused is not None:
        return None, refused
    desk = _desk()
    if desk is None:
        flash(_("No camera is configured."), "error")
        return None, redirect(url_for("calibration.page"), 303)
    return desk, None


@blueprint.post("/table/camera/start-over")
def start_over() -> BaseResponse:
    desk, refused = _signed_in_desk()
    if desk is None:
        assert refused is not None
        return refused
    cards = desk.start_over()
    log.info("camera shots dropped by %s (%d cards)", guard().who(), cards)
    flash(
        i18n.t(
            plural(
                "Started over: the {n} card collected was dropped. "
                "The next shot starts with 1 purple.",
                "Started over: the {n} cards collected were dropped. "
                "The next shot starts with 1 purple.",
                "n",
                n=cards,
            )
        ),
        "ok",
    )
    return redirect(url_for("calibration.page", _anchor="calibrate"), 303)


@blueprint.post("/table/camera/default")
def back_to_default() -> BaseResponse:
    desk, refused = _signed_in_desk()
    if desk is None:
        assert refused is not None
        return refused
    try:
        path = desk.reset()
    except OSError as exc:
        flash(
            _(
                "Not changed — cannot write the calibration file: {why}.",
                why=str(exc.strerror or exc),
            ),
            "error",
        )
        return redirect(url_for("calibration.page"), 303)
    log.info("camera back to the default palette by %s (%s)", guard().who(), path)
    flash(_("The camera uses the default palette again (written to {path}).", path=str(path)), "ok")
    return redirect(url_for("calibration.page"), 303)
