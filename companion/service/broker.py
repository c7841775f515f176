"""The table broker's ACL, written from the config (``hardware/deploy/install.sh``).

The shipped ``hardware/deploy/mosquitto-trackside.acl`` gives each name its own topics. What it
cannot know is the table's WLED group topic (``[mqtt] wled_group``): WLED subscribes to
``<group>/api`` with the strip's own login, so the ACL must let every strip read the group, and
the service write it (a group outside ``wled/`` is not under the service's ``wled/#``). The
line ``# @WLED_GROUP@`` of the template is replaced by those rules; without a group it stays a
comment, and the file is valid as shipped.

``python -m companion.service.broker acl CONFIG TEMPLATE`` prints the ACL for the installer.
"""

from __future__ import annotations

import sys
from pathlib import Path

from companion.core.errors import ConfigError
from companion.service.config import Settings, load_settings

PLACEHOLDER = "# @WLED_GROUP@"


def wled_group_rules(group: str) -> list[str]:
    """The ACL lines for a WLED group topic (checked by the WLED driver: one line, no
    wildcards, at most 32 characters)."""
    return [
        f"# the table's WLED group topic ({group}, [mqtt] wled_group): the service sends the",
        "# frames there, every strip reads them",
        "user trackside",
        f"topic readwrite {group}",
        f"topic readwrite {group}/#",
        f"pattern read {group}",
        f"pattern read {group}/#",
    ]


def render_acl(settings: Settings, template: str) -> str:
    """The template with the group rules in place of its placeholder line."""
    lines = template.splitlines()
    if PLACEHOLDER not in lines:
        raise ConfigError("(acl)", f"the ACL template has no line {PLACEHOLDER!r}")
    group = settings.mqtt.wled_group if settings.mqtt is not None else None
    rules = wled_group_rules(group) if group else [PLACEHOLDER]
    index = lines.index(PLACEHOLDER)
    return "\n".join([*lines[:index], *rules, *lines[index + 1 :]]) + "\n"


INSTALLED_ACL = Path("/etc/mosquitto/trackside.acl")


def acl_problem(settings: Settings, acl: Path = INSTALLED_ACL) -> str | None:
    """At start-up: why the table's broker, as installed here, would keep the WLED group's
    frames from the strips (the group changed in the config since the installer wrote the ACL);
    None when it would not, or when this machine has no such broker (another broker's ACL is
    its owner's)."""
    group = settings.mqtt.wled_group if settings.mqtt is not None else None
    if not group:
        return None
    try:
        lines = acl.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    if all(rule in lines for rule in wled_group_rules(group) if not rule.startswith("#")):
        return None
    return (
        f"the broker's ACL {acl} does not let the strips read the WLED group topic {group!r} "
        "([mqtt] wled_group changed since the install?): the strips stay dark; run "
        "sudo hardware/deploy/install.sh again to write it"
    )


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3 or args[0] != "acl":
        print("usage: python -m companion.service.broker acl CONFIG TEMPLATE", file=sys.stderr)
        return 2
    try:
        settings = load_settings(Path(args[1]))
        sys.stdout.write(render_acl(settings, Path(args[2]).read_text(encoding="utf-8")))
    except (ConfigError, OSError) as exc:
        print(f"trackside: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
