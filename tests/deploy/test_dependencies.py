"""Trackside installs on both Raspberry Pi OS releases it supports, 64-bit: every dependency
resolves, for the release's own Python on aarch64, to a wheel (nothing is compiled on the Pi), or
to the release's apt package where apt owns it (numpy and Pillow: Picamera2 is built against
them, and the installer pins pip to apt's versions with a constraints file).

The resolution is pip's own (``pip download --only-binary=:all: --platform … --python-version …``
from PyPI, as the Pi's pip would). pip evaluates requirement markers against the interpreter it
runs in, not the target, so the markers of pyproject.toml are evaluated here for the target with
``packaging`` first. The ``[hid]`` extra (evdev) is left out: it has no wheels and is built on
the Pi with the gcc and python3-dev the installer puts there (docs/deploy.md).

Needs PyPI: without it the test fails and says so (it does not skip).

The installer's release check (``check_release`` in hardware/deploy/common.sh) is tested here too:
bookworm and trixie pass; an unknown release, another distribution and a 32-bit system stop it
with a message saying what to do."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.tags import compatible_tags, cpython_tags
from packaging.utils import parse_wheel_filename

ROOT = Path(__file__).resolve().parents[2]
COMMON = ROOT / "hardware" / "deploy" / "common.sh"
INSTALL = ROOT / "hardware" / "deploy" / "install.sh"


@dataclass(frozen=True)
class Release:
    codename: str
    python: str  # the release's python3
    apt: dict[str, str]  # what apt installs for Picamera2, as pip spells the versions


# the versions in each release's archive (packages.debian.org: python3-numpy, python3-pil)
RELEASES = (
    Release("bookworm", "3.11", {"numpy": "1.24.2", "pillow": "9.4.0"}),
    Release("trixie", "3.13", {"numpy": "2.2.4", "pillow": "11.1.0"}),
)
APT_ONLY = {"pyicu": {"bookworm": "2.10.2", "trixie": "2.14"}}
"""Dependencies PyPI has no wheels of, which the installer takes from apt only (python3-icu:
bookworm's 2.10.2, trixie's 2.14 as packages.debian.org lists its files): never downloaded."""


def target_requirements(python: str) -> list[str]:
    """pyproject's dependencies whose markers hold on a Pi with this Python, markers removed."""
    env = default_environment()
    env.update(
        python_version=python,
        python_full_version=f"{python}.0",
        platform_machine="aarch64",
        sys_platform="linux",
        platform_system="Linux",
        os_name="posix",
        implementation_name="cpython",
        platform_python_implementation="CPython",
    )
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    kept = []
    for line in project["dependencies"]:
        requirement = Requirement(line)
        if requirement.name.lower() in APT_ONLY:
            continue
        if requirement.marker is None or requirement.marker.evaluate(env):
            requirement.marker = None
            kept.append(str(requirement))
    return kept


@pytest.mark.parametrize("python", ["3.11", "3.13"])
def test_numpy_markers_pick_one_range_per_python(python: str) -> None:
    numpys = [r for r in target_requirements(python) if r.startswith("numpy")]
    assert len(numpys) == 1, numpys
    spec = Requirement(numpys[0]).specifier
    apt = next(r for r in RELEASES if r.python == python).apt["numpy"]
    assert spec.contains(apt), (numpys, apt)  # apt's numpy satisfies the project as it is


@pytest.mark.parametrize("release", RELEASES, ids=lambda r: r.codename)
def test_what_apt_alone_provides_satisfies_the_project(release: Release) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = {Requirement(line).name.lower(): Requirement(line) for line in project["dependencies"]}
    install = INSTALL.read_text(encoding="utf-8")
    for name, versions in APT_ONLY.items():
        assert wanted[name].specifier.contains(versions[release.codename]), (name, release)
        assert "python3-icu" in install  # the installer takes it from apt


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("release", RELEASES, ids=lambda r: r.codename)
def test_the_dependencies_resolve_to_aarch64_wheels_and_apts_numpy_and_pillow(
    release: Release, tmp_path: Path
) -> None:
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("\n".join(target_requirements(release.python)) + "\n")
    constraints = tmp_path / "apt-constraints.txt"  # what hardware/deploy/install.sh writes
    constraints.write_text("".join(f"{n}=={v}\n" for n, v in release.apt.items()))
    wheels = tmp_path / "wheels"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--disable-pip-version-check",
            "--no-cache-dir",
            "--quiet",
            "--dest",
            str(wheels),
            "--only-binary=:all:",
            "--platform",
            "manylinux2014_aarch64",
            "--python-version",
            release.python,
            "--implementation",
            "cp",
            "--requirement",
            str(requirements),
            "--constraint",
            str(constraints),
        ],
        capture_output=True,
        text=True,
        timeout=540,
        check=False,
    )
    assert result.returncode == 0, (
        f"pip could not resolve Trackside's dependencies for {release.codename} (Python "
        f"{release.python}, aarch64) to wheels; this test needs PyPI:\n{result.stderr[-3000:]}"
    )
    # what the Pi's pip accepts: CPython of the release's version on glibc 2.17+ aarch64
    version = tuple(int(n) for n in release.python.split("."))
    platforms = ["manylinux2014_aarch64", "manylinux_2_17_aarch64"]
    interpreter = "cp" + release.python.replace(".", "")
    accepted = {
        *cpython_tags(version, platforms=platforms),
        *compatible_tags(version, interpreter=interpreter, platforms=platforms),
    }
    got = {}
    for wheel in wheels.iterdir():
        assert wheel.suffix == ".whl", wheel.name  # nothing to build on the Pi
        name, wheel_version, _, tags = parse_wheel_filename(wheel.name)
        got[str(name)] = str(wheel_version)
        assert tags & accepted, wheel.name
    for name in ("flask", "paho-mqtt", "opencv-python-headless", "zeroconf", "reportlab"):
        assert name in got, (name, sorted(got))
    # apt's numpy and Pillow satisfy everything that needs them (OpenCV, ReportLab, the project)
    assert {n: got[n] for n in release.apt} == release.apt


def check_release(tmp_path: Path, os_release: str, arch: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "os-release"
    path.write_text(os_release)
    return subprocess.run(
        ["bash", "-c", 'source "$0" && check_release "$1" "$2"', str(COMMON), str(path), arch],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


RASPBERRY_PI_OS_TRIXIE = """PRETTY_NAME="Debian GNU/Linux 13 (trixie)"
NAME="Debian GNU/Linux"
VERSION_ID="13"
VERSION="13 (trixie)"
VERSION_CODENAME=trixie
DEBIAN_VERSION_FULL=13.1
ID=debian
"""
RASPBERRY_PI_OS_BOOKWORM = """PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION="12 (bookworm)"
VERSION_CODENAME=bookworm
ID=debian
"""
RASPBIAN_BOOKWORM_32 = """PRETTY_NAME="Raspbian GNU/Linux 12 (bookworm)"
NAME="Raspbian GNU/Linux"
VERSION_ID="12"
VERSION_CODENAME=bookworm
ID=raspbian
ID_LIKE=debian
"""
BULLSEYE = RASPBERRY_PI_OS_BOOKWORM.replace("12", "11").replace("bookworm", "bullseye")
UBUNTU = """NAME="Ubuntu"
VERSION_ID="24.04"
VERSION_CODENAME=noble
ID=ubuntu
ID_LIKE=debian
"""
FEDORA = """NAME="Fedora Linux"
VERSION_ID=41
ID=fedora
"""


@pytest.mark.parametrize(
    ("os_release", "arch", "codename"),
    [
        (RASPBERRY_PI_OS_BOOKWORM, "arm64", "bookworm"),
        (RASPBERRY_PI_OS_TRIXIE, "arm64", "trixie"),
        (RASPBERRY_PI_OS_TRIXIE, "amd64", "trixie"),
    ],
)
def test_bookworm_and_trixie_64_bit_pass_the_release_check(
    tmp_path: Path, os_release: str, arch: str, codename: str
) -> None:
    result = check_release(tmp_path, os_release, arch)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"trackside: release: {codename} ({arch})\n"


@pytest.mark.parametrize(
    ("os_release", "arch", "says"),
    [
        (BULLSEYE, "arm64", "this is Debian 'bullseye': the installer knows bookworm (Debian 12)"),
        (UBUNTU, "arm64", "this is Debian 'noble'"),
        (FEDORA, "arm64", "this is 'fedora', not Debian or Raspberry Pi OS"),
        (RASPBIAN_BOOKWORM_32, "armhf", "this is a 32-bit system (armhf)"),
        (RASPBERRY_PI_OS_TRIXIE, "armhf", "Write Raspberry Pi OS (64-bit), Bookworm or Trixie"),
        (RASPBERRY_PI_OS_TRIXIE, "riscv64", "unknown architecture 'riscv64'"),
    ],
)
def test_any_other_release_or_a_32_bit_system_is_refused_with_what_to_do(
    tmp_path: Path, os_release: str, arch: str, says: str
) -> None:
    result = check_release(tmp_path, os_release, arch)
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith("trackside: error: ")
    assert says in result.stderr


def test_the_installer_stops_on_an_unknown_release_before_it_changes_anything(
    tmp_path: Path,
) -> None:
    os_release = tmp_path / "os-release"
    os_release.write_text(BULLSEYE)
    stage = tmp_path / "stage"
    result = subprocess.run(
        ["bash", str(INSTALL)],
        env={"PATH": "/usr/bin:/bin", "DESTDIR": str(stage), "OS_RELEASE": str(os_release)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert "this is Debian 'bullseye'" in result.stderr
    assert result.stdout == ""  # not one step printed
    assert not stage.exists()
