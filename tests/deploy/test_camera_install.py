"""The Pi-camera install: Raspberry Pi OS Bookworm's Picamera2 comes from apt, built against
apt's numpy 1.24, and the service's venv sees it through ``--system-site-packages``. If pip
puts a numpy 2 in the venv (an unpinned opencv pulls one), it shadows apt's and every apt
module built against numpy 1 fails to import ("numpy.dtype size changed") — Picamera2 with it.

This test does what the installer does on this Debian 12 (Bookworm) machine: apt's
``python3-numpy`` in the system site, a ``--system-site-packages`` venv from Debian's own
``/usr/bin/python3``, ``pip install`` of this checkout; then imports numpy, OpenCV and an apt C
extension compiled against apt's numpy (``python3-numexpr``; Picamera2 itself is only in the
Raspberry Pi archive, and its compiled dependencies fail the same way). scripts/test.sh
installs the apt packages. Needs PyPI (or pip's cache) for the other dependencies.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.locks import one_build_at_a_time

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = "/usr/bin/python3"
APT_SITE = "/usr/lib/python3/dist-packages"

CHECK = f"""
import numpy, cv2, numexpr
assert numpy.__file__.startswith({APT_SITE!r}), numpy.__file__
assert int(numpy.__version__.split(".")[0]) < 2, numpy.__version__
a = numpy.arange(6, dtype=numpy.float64)
assert numexpr.evaluate("a * 2").tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
img = numpy.zeros((4, 4, 3), numpy.uint8)
assert cv2.cvtColor(img, cv2.COLOR_BGR2HSV).shape == (4, 4, 3)
print(numpy.__version__, cv2.__version__, numexpr.__version__)
"""


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_apt_numpy_stays_in_charge_in_the_system_site_packages_venv(tmp_path: Path) -> None:
    apt_numpy = subprocess.run(
        [SYSTEM_PYTHON, "-c", "import numpy, numexpr; print(numpy.__version__, numpy.__file__)"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert apt_numpy.returncode == 0, (
        "apt's python3-numpy and python3-numexpr are needed (scripts/test.sh installs them): "
        + apt_numpy.stderr
    )
    assert apt_numpy.stdout.startswith("1.") and APT_SITE in apt_numpy.stdout, apt_numpy.stdout
    venv = tmp_path / "venv"
    subprocess.run(
        [SYSTEM_PYTHON, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120
    )
    python = str(venv / "bin" / "python")
    # the installer's pins: numpy (and Pillow, when apt has it) at apt's versions
    pins = subprocess.run(
        ["bash", "-c", 'source "$0" && apt_pins', str(ROOT / "hardware/deploy/common.sh")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert f"numpy=={apt_numpy.stdout.split()[0]}" in pins.splitlines(), pins
    constraints = tmp_path / "apt-constraints.txt"
    constraints.write_text(pins)
    with one_build_at_a_time():
        install = subprocess.run(
            [
                python,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--constraint",
                str(constraints),
                str(ROOT),
            ],
            capture_output=True,
            text=True,
            timeout=480,
            check=False,
        )
    assert install.returncode == 0, install.stderr[-3000:]
    result = subprocess.run(
        [python, "-c", CHECK], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    numpy_version, cv2_version, _ = result.stdout.split()
    assert numpy_version == apt_numpy.stdout.split()[0]  # pip did not replace apt's numpy
    assert tuple(int(x) for x in cv2_version.split(".")[:2]) < (4, 12)
