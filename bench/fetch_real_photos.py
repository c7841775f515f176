"""Rebuild bench/real_photos/ from the sources lists bench/real_photos.json and real_markers.json.

The photos belong to the public repositories named there; they are never committed here. Each is
read from a local bare mirror of its repository at the listed commit: ``--mirrors DIR`` (default
/work/.mirror, where a mirror is ``DIR/owner+name/repo[/.git]``). A repository without a mirror is
skipped with a message naming it, so the evaluation runs on what is there.

    python bench/fetch_real_photos.py [--mirrors DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Card photos (bench_vision_real.py) and marker photos (bench_markers_real.py) share the folder.
SOURCES = (HERE / "real_photos.json", HERE / "real_markers.json")
OUT = HERE / "real_photos"


def git_dir(mirrors: Path, repo: str) -> Path | None:
    base = mirrors / repo.replace("/", "+") / "repo"
    for candidate in (base / ".git", base):
        if (candidate / "objects").is_dir():
            return candidate
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", default="/work/.mirror")
    args = parser.parse_args()
    photos = [p for source in SOURCES for p in json.loads(source.read_text())["photos"]]
    OUT.mkdir(exist_ok=True)
    written = skipped = 0
    missing: set[str] = set()
    for photo in photos:
        target = OUT / photo["file"]
        if target.exists():
            continue
        gd = git_dir(Path(args.mirrors), photo["repo"])
        if gd is None:
            missing.add(photo["repo"])
            skipped += 1
            continue
        blob = subprocess.run(
            ["git", "--git-dir", str(gd), "show", f"{photo['commit']}:{photo['path']}"],
            capture_output=True,
            check=False,
        )
        if blob.returncode != 0:
            print(
                f"cannot read {photo['repo']}:{photo['path']} at {photo['commit'][:10]}",
                file=sys.stderr,
            )
            skipped += 1
            continue
        target.write_bytes(blob.stdout)
        written += 1
    for repo in sorted(missing):
        print(f"no mirror of {repo} under {args.mirrors}: its photos are skipped", file=sys.stderr)
    print(f"{written} written, {skipped} skipped, {len(photos)} listed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
