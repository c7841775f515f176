"""An experiment, not part of Trackside: can a small learned network find cards on real tables?

The card finder in ``vision/cards.py`` cannot find cards in 15 ms at p95 on this machine kind
(``bench/bench_finder_bound.py``: its OpenCV calls alone take 13.3 ms). This script measures the
other road: a small fully convolutional network that marks each card's centre and regresses its
four corners from there (in the manner of CenterNet), trained only on scenes pasted together
here, and scored on the real photos exactly as ``bench/bench_vision_real.py`` scores the finder.

    # the cards to paste: photographed crops of Set cards from tomwhite/set-game (Apache 2.0),
    # read from its local mirror (fetch github:tomwhite/set-game first)
    PYTHONPATH=. .venv/bin/python bench/learned_finder.py crops --out /tmp/lf/crops
    PYTHONPATH=. .venv/bin/python bench/learned_finder.py scenes --crops /tmp/lf/crops \\
        --count 2000 --seed 1 --out /tmp/lf/scenes_1.npz          # (seeds 1, 2, 3: 6,000)
    # training needs PyTorch and onnx, kept out of Trackside's own environment:
    #   python3 -m venv /tmp/lf/venv && /tmp/lf/venv/bin/pip install torch==2.13.0 onnx \\
    #       'numpy<2' opencv-python-headless==4.11.0.86
    PYTHONPATH=. /tmp/lf/venv/bin/python bench/learned_finder.py train \\
        --scenes /tmp/lf/scenes_*.npz --epochs 10 --out /tmp/lf/net.onnx
    PYTHONPATH=. .venv/bin/python bench/learned_finder.py eval --model /tmp/lf/net.onnx

The scenes: one of six procedural tables (plain of any colour, wood grain, speckle, fine cloth
noise, blotched leather, printed shapes), up to 15 cards of one size per scene (a short side
of 12-90 px in 320 × 180), 60 % of them Set crops and 40 % drawn (a coloured field in a white
margin, or a white card with a few symbols), turned by up to 30° with a little perspective,
under a light gradient, a colour cast, sometimes a glare spot, noise, blur and JPEG. The
network runs on the picture fitted into 320 × 180 and gives, every 4 px, the chance that a
card's centre lies there and that card's four corners. ``eval`` takes each local peak at or
over a threshold as a card, with and without the finder's own refinement (each side snapped
onto the card's edge, and the white-margin check), and reports found / false per surface,
false cards on the marker photos, and the time per 1280 × 720 camera frame (OpenCV's ``dnn``
module, one thread). The real photos never train it: they are only measured.
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import math
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from bench_vision_real import (  # its sibling: run as a script
    HERE,
    labelled_boxes,
    matches,
    median_p95,
    table_photos,
    to_camera_frame,
    to_frame,
    touches_edge,
)
from fetch_real_photos import git_dir

from vision import cards

IN_W, IN_H = 320, 180  # the network's input: the picture fitted in, the rest mid-grey
STRIDE = 4  # one output cell per 4 × 4 input pixels: 80 × 45
OUT_W, OUT_H = IN_W // STRIDE, IN_H // STRIDE
CORNER_UNIT = 32.0  # corners are regressed as (corner - cell centre) / this, in input pixels
SET_GAME = "tomwhite/set-game"
SET_GAME_COMMIT = "bd047ece2f07e483f39fa41ba1170d9afd9a768c"
Image = npt.NDArray[np.uint8]
Floats = npt.NDArray[np.float32]


# -- the cards to paste ---------------------------------------------------------------------


def extract_crops(mirrors: Path, out: Path, every: int) -> int:
    """Every ``every``-th photographed Set card crop of tomwhite/set-game's labelled training
    set, written to ``out``; how many."""
    gd = git_dir(mirrors, SET_GAME)
    if gd is None:
        raise SystemExit(f"no mirror of {SET_GAME} under {mirrors}: fetch it first")
    listing = subprocess.run(
        ["git", f"--git-dir={gd}", "ls-tree", "-r", SET_GAME_COMMIT, "data/train-v2/labelled/"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    blobs = [line.split()[2] for line in listing if line.lower().endswith((".jpg", ".png"))]
    out.mkdir(parents=True, exist_ok=True)
    chosen = blobs[every - 1 :: every]
    for i, blob in enumerate(chosen):
        data = subprocess.run(
            ["git", f"--git-dir={gd}", "cat-file", "blob", blob], check=True, capture_output=True
        ).stdout
        (out / f"{i:05d}.jpg").write_bytes(data)
    return len(chosen)


# -- scenes -----------------------------------------------------------------------------------


def _noise(rng: np.random.Generator, scale: int) -> Floats:
    small = rng.normal(0, 1, (max(2, IN_H // scale), max(2, IN_W // scale))).astype(np.float32)
    return np.asarray(cv2.resize(small, (IN_W, IN_H), interpolation=cv2.INTER_CUBIC), np.float32)


def _colour(rng: np.random.Generator) -> tuple[float, float, float]:
    r, g, b = (float(x) for x in rng.uniform(0, 255, 3))
    return r, g, b


def table(rng: np.random.Generator) -> Floats:
    """One of six procedural tables, BGR floats 0-255."""
    kind = int(rng.integers(0, 6))
    base = rng.uniform(0, 255, 3).astype(np.float32)
    if kind == 0:  # plain, any colour (white and light ones too)
        img = base + _noise(rng, 40)[..., None] * rng.uniform(2, 12)
    elif kind == 1:  # wood grain
        yy, xx = np.mgrid[0:IN_H, 0:IN_W].astype(np.float32)
        turn = rng.uniform(0, math.pi)
        u = xx * math.cos(turn) + yy * math.sin(turn)
        v = -xx * math.sin(turn) + yy * math.cos(turn)
        grain = np.sin(u / rng.uniform(1.5, 4) + 3 * np.sin(v / 30)) * 0.5 + 0.5
        wood = np.asarray([rng.uniform(40, 200), rng.uniform(70, 220), rng.uniform(110, 250)])
        img = wood * (0.75 + 0.2 * grain[..., None] + 0.05 * _noise(rng, 8)[..., None])
    elif kind == 2:  # speckle, terrazzo
        img = np.tile(base, (IN_H, IN_W, 1))
        for _ in range(int(rng.integers(200, 3000))):
            centre = (int(rng.integers(0, IN_W)), int(rng.integers(0, IN_H)))
            cv2.circle(img, centre, int(rng.integers(1, 4)), _colour(rng), -1)
    elif kind == 3:  # felt, cloth, fleece: fine noise
        fine = rng.normal(0, rng.uniform(4, 20), (IN_H, IN_W, 1))
        img = base + fine + _noise(rng, 4)[..., None] * 8
    elif kind == 4:  # leather, rug: blotches
        img = base * (0.8 + 0.15 * _noise(rng, 12)[..., None] + 0.05 * _noise(rng, 2)[..., None])
    else:  # a printed cloth or board: shapes and lines
        img = np.tile(base, (IN_H, IN_W, 1))
        for _ in range(int(rng.integers(5, 40))):
            a, b = (tuple(int(v) for v in p) for p in rng.integers(0, [IN_W, IN_H], (2, 2)))
            if rng.random() < 0.5:
                cv2.line(img, a, b, _colour(rng), int(rng.integers(1, 4)))
            else:
                cv2.rectangle(img, a, b, _colour(rng), -1 if rng.random() < 0.3 else 1)
    return np.asarray(np.clip(img, 0, 255), np.float32)


def drawn_card(rng: np.random.Generator) -> Floats:
    """A coloured field in a white margin (UNO, Ticket to Ride) or a white card with a few
    symbols (playing cards), 171 × 267 like the crops."""
    h, w = 267, 171
    if rng.random() < 0.5:
        card = np.full((h, w, 3), 240, np.float32)
        m = int(rng.integers(6, 18))
        card[m : h - m, m : w - m] = rng.uniform(0, 255, 3)
        axes = (int(w * 0.35), int(h * 0.3))
        cv2.ellipse(
            card, (w // 2, h // 2), axes, float(rng.uniform(0, 90)), 0, 360, _colour(rng), -1
        )
    else:
        card = np.full((h, w, 3), float(rng.uniform(200, 250)), np.float32)
        ink = (30.0, 30.0, 30.0) if rng.random() < 0.5 else (40.0, 40.0, 190.0)
        for _ in range(int(rng.integers(1, 12))):
            centre = (int(rng.integers(20, w - 20)), int(rng.integers(20, h - 20)))
            cv2.circle(card, centre, int(rng.integers(5, 18)), ink, -1)
    return card


def canonical(quad: Floats) -> Floats:
    """Clockwise (image coordinates) from the corner nearest the top left."""
    centre = quad.mean(axis=0)
    order = np.argsort(np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0]))
    ordered = quad[order]
    return np.asarray(np.roll(ordered, -int(np.argmin(ordered.sum(axis=1))), axis=0), np.float32)


def scene(
    rng: np.random.Generator, crops: list[Image]
) -> tuple[Image, Floats, Floats, Floats, Floats]:
    """A picture, its centre heat map, where to ignore (cards cut by the edge), the corners
    regressed at each card's centre cells, and where they are."""
    img = table(rng)
    heat = np.zeros((OUT_H, OUT_W), np.float32)
    ignore = np.zeros_like(heat)
    corners = np.zeros((8, OUT_H, OUT_W), np.float32)
    has_corners = np.zeros_like(heat)
    taken = np.zeros((IN_H, IN_W), np.uint8)
    size = float(np.exp(rng.uniform(math.log(12), math.log(90))))  # a card's short side
    yy, xx = np.mgrid[0:OUT_H, 0:OUT_W].astype(np.float32)
    for _ in range(int(rng.integers(0, 16))):
        use_crop = rng.random() < 0.6
        card = (
            crops[int(rng.integers(len(crops)))].astype(np.float32) if use_crop else drawn_card(rng)
        )
        ch, cw = card.shape[:2]
        short = size * rng.uniform(0.85, 1.15)
        w, h = (short * 1.5, short) if rng.random() < 0.4 else (short, short * 1.5)
        cx, cy = rng.uniform(0, IN_W), rng.uniform(0, IN_H)
        turn = math.radians(rng.uniform(-30, 30))
        c, s = math.cos(turn), math.sin(turn)
        dst = np.asarray(
            [
                (cx + dx * c - dy * s, cy + dx * s + dy * c)
                for dx, dy in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))
            ],
            np.float32,
        ) + rng.normal(0, short * 0.04, (4, 2)).astype(np.float32)
        src = np.asarray([(0, 0), (cw - 1, 0), (cw - 1, ch - 1), (0, ch - 1)], np.float32)
        if (w > h) != (cw > ch):
            src = np.roll(src, 1, axis=0)
        mask = np.zeros((IN_H, IN_W), np.uint8)
        cv2.fillConvexPoly(mask, dst.astype(np.int32), 255)
        if int((mask & taken).sum()) > 0.15 * int(mask.sum()):
            continue  # cards may touch, not lie on each other
        taken |= mask
        matrix = cv2.getPerspectiveTransform(src, dst)
        warped = cv2.warpPerspective(card, matrix, (IN_W, IN_H), flags=cv2.INTER_AREA)
        soft = cv2.GaussianBlur(mask.astype(np.float32) / 255, (3, 3), 0)[..., None]
        shadow = np.roll(np.roll(mask, 2, 0), 2, 1).astype(np.float32) / 255
        img = img * (1 - 0.3 * rng.uniform(0, 1) * cv2.GaussianBlur(shadow, (5, 5), 0)[..., None])
        img = img * (1 - soft) + warped * soft
        centre = dst.mean(axis=0) / STRIDE
        whole = bool(
            (
                (dst[:, 0] > 2) & (dst[:, 0] < IN_W - 3) & (dst[:, 1] > 2) & (dst[:, 1] < IN_H - 3)
            ).all()
        )
        if not whole:  # a card cut by the picture's edge: neither a card nor table
            x0, y0 = int(max(0, centre[0] - 3)), int(max(0, centre[1] - 3))
            ignore[y0 : int(centre[1] + 4), x0 : int(centre[0] + 4)] = 1
            continue
        sigma = max(0.8, short / STRIDE * 0.15)
        spot = np.exp(-((xx - centre[0] + 0.5) ** 2 + (yy - centre[1] + 0.5) ** 2) / (2 * sigma**2))
        heat = np.maximum(heat, spot)
        quad = canonical(dst)
        col, row = int(centre[0]), int(centre[1])
        for r in range(max(0, row - 1), min(OUT_H, row + 2)):
            for k in range(max(0, col - 1), min(OUT_W, col + 2)):
                cell = np.asarray([(k + 0.5) * STRIDE, (r + 0.5) * STRIDE], np.float32)
                corners[:, r, k] = ((quad - cell) / CORNER_UNIT).reshape(-1)
                has_corners[r, k] = 1
    # The light: a gradient, a colour cast and exposure, sometimes glare; then the camera.
    yy_in, xx_in = np.mgrid[0:IN_H, 0:IN_W].astype(np.float32)
    gradient = (
        1
        + rng.uniform(-0.35, 0.35) * (xx_in / IN_W - 0.5)
        + rng.uniform(-0.35, 0.35) * (yy_in / IN_H - 0.5)
    )
    img = img * gradient[..., None] * rng.uniform(0.75, 1.25, 3) * rng.uniform(0.5, 1.3)
    if rng.random() < 0.3:
        gx, gy, r = rng.uniform(0, IN_W), rng.uniform(0, IN_H), rng.uniform(10, 60)
        img = img + 120 * np.exp(-((xx_in - gx) ** 2 + (yy_in - gy) ** 2) / (2 * r * r))[..., None]
    img = img + rng.normal(0, rng.uniform(0, 5), img.shape)
    picture = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        picture = cv2.GaussianBlur(picture, (0, 0), rng.uniform(0.3, 1.0))
    _, jpeg = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(50, 95))])
    picture = np.asarray(cv2.imdecode(jpeg, cv2.IMREAD_COLOR), np.uint8)
    return picture, heat, ignore, corners, has_corners


def make_scenes(crops_dir: Path, count: int, seed: int, out: Path) -> None:
    crops = [
        np.asarray(cv2.imread(f), np.uint8) for f in sorted(glob.glob(str(crops_dir / "*.jpg")))
    ]
    if not crops:
        raise SystemExit(f"no card crops in {crops_dir}: run the crops step first")
    rng = np.random.default_rng(seed)
    pictures = np.zeros((count, IN_H, IN_W, 3), np.uint8)
    heat = np.zeros((count, OUT_H, OUT_W), np.float32)
    ignore = np.zeros_like(heat)
    corners = np.zeros((count, 8, OUT_H, OUT_W), np.float16)
    has_corners = np.zeros_like(heat)
    for i in range(count):
        pictures[i], heat[i], ignore[i], corners[i], has_corners[i] = scene(rng, crops)
    np.savez(out, X=pictures, Y=heat, I=ignore, C=corners, M=has_corners)


# -- training (PyTorch, outside Trackside's environment) --------------------------------------


def train(scene_files: list[str], epochs: int, out: Path) -> None:
    # (PyTorch is not one of Trackside's dependencies: imported here, for this step only)
    import torch
    from torch import nn
    from torch.nn import functional

    torch.manual_seed(0)
    parts = [np.load(f) for f in scene_files]
    data = {k: np.concatenate([p[k] for p in parts]) for k in ("X", "Y", "I", "C", "M")}

    def block(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> list[Any]:
        conv = nn.Conv2d(cin, cout, 3, stride, dilation, dilation=dilation, bias=False)
        return [conv, nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    net = nn.Sequential(
        *block(3, 16, 2),
        *block(16, 32, 2),
        *block(32, 32),
        *block(32, 32, 1, 2),
        *block(32, 32, 1, 4),
        *block(32, 32, 1, 8),
        nn.Conv2d(32, 9, 1),  # the centre's logit, then four corners (x, y)
    )
    with torch.no_grad():
        net[-1].bias[0] = -2.2
    batch = 32
    steps = epochs * (len(data["X"]) // batch)
    optimiser = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, 3e-3, total_steps=steps)

    def centre_loss(logit: Any, target: Any, ignore: Any) -> Any:
        # CenterNet's focal loss: each card's peak cell is a positive, the cells round it
        # count less as negatives the nearer they are
        p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
        peak = (target == functional.max_pool2d(target, 3, 1, 1)) & (target > 0.3)
        positive = -((1 - p) ** 2 * torch.log(p))[peak].sum()
        negative = -(((1 - target) ** 4) * p**2 * torch.log(1 - p) * (1 - ignore))[~peak].sum()
        return (positive + negative) / peak.sum().clamp(min=1)

    start = time.time()
    for epoch in range(epochs):
        order = np.random.default_rng(epoch).permutation(len(data["X"]))
        total = 0.0
        net.train()
        for b in range(len(order) // batch):
            idx = order[b * batch : (b + 1) * batch]
            x = torch.from_numpy(data["X"][idx]).permute(0, 3, 1, 2).float() / 255
            target = torch.from_numpy(data["Y"][idx])[:, None]
            ignore = torch.from_numpy(data["I"][idx])[:, None]
            corners = torch.from_numpy(data["C"][idx].astype(np.float32))
            where = torch.from_numpy(data["M"][idx])[:, None]
            predicted = net(x)
            corner_error = torch.abs(predicted[:, 1:] - corners) * where
            corner_loss = corner_error.sum() / where.sum().clamp(min=1)
            loss = centre_loss(predicted[:, :1], target, ignore) + corner_loss / 4
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.item())
        print(
            f"epoch {epoch}: loss {total / (len(order) // batch):.3f}, {time.time() - start:.0f} s"
        )
    net.eval()
    torch.onnx.export(net, torch.zeros(1, 3, IN_H, IN_W), str(out), opset_version=13, dynamo=False)


# -- evaluation on the real photos ----------------------------------------------------------


class LearnedFinder:
    """Cards found by the network: each local peak of the centre map at ``threshold`` or over,
    its corners from the regression; optionally refined by the finder's own steps."""

    def __init__(self, model: Path, threshold: float, refine: bool) -> None:
        self.net = cv2.dnn.readNetFromONNX(str(model))
        self.threshold = threshold
        self.refine = refine

    def find(self, frame: Image) -> list[Floats]:
        h, w = frame.shape[:2]
        scale = min(IN_W / w, IN_H / h)
        small = cv2.resize(
            frame, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA
        )
        canvas = np.full((IN_H, IN_W, 3), 128, np.uint8)
        canvas[: small.shape[0], : small.shape[1]] = small
        self.net.setInput(cv2.dnn.blobFromImage(canvas, 1 / 255.0))
        out = self.net.forward()[0]
        chance = 1 / (1 + np.exp(-out[0]))
        peaks = (chance == cv2.dilate(chance, np.ones((3, 3), np.uint8))) & (
            chance >= self.threshold
        )
        rows, cols = np.nonzero(peaks)
        order = np.argsort(-chance[rows, cols])
        rows, cols = rows[order], cols[order]
        cells = np.stack([(cols + 0.5) * STRIDE, (rows + 0.5) * STRIDE], axis=1)[:, None, :]
        quads = (cells + out[1:, rows, cols].T.reshape(-1, 4, 2) * CORNER_UNIT) / scale
        kept: list[Floats] = []
        for quad in quads.astype(np.float32):  # a centre inside a stronger card is that card
            cx, cy = (float(v) for v in quad.mean(axis=0))
            if not any(
                cv2.pointPolygonTest(k.reshape(-1, 1, 2), (cx, cy), False) >= 0 for k in kept
            ):
                kept.append(quad)
        if not kept or not self.refine:
            return kept
        to_small = min(1.0, cards.FIND_MAX_SIDE / max(h, w))
        finding = (
            frame
            if to_small == 1.0
            else cv2.resize(
                frame, (round(w * to_small), round(h * to_small)), interpolation=cv2.INTER_AREA
            )
        )
        grey = cards._finding_grey(np.asarray(finding, np.uint8))
        snapped = cards._snap_many(grey, np.asarray(kept, np.float32) * to_small)
        return [q / to_small for q in snapped[cards._bright_margins(grey, snapped)]]


def evaluate(model: Path, thresholds: list[float]) -> None:
    cv2.setNumThreads(1)  # as the camera's thread runs (vision/camera.py)
    marker_photos = json.loads((HERE / "real_markers.json").read_text())["photos"]
    folder = HERE / "real_photos"
    tables = [
        (photo, to_frame(picture), to_camera_frame(picture)) for photo, picture in table_photos()[0]
    ]
    without_cards = [
        to_frame(np.asarray(image, np.uint8))
        for image in (cv2.imread(str(folder / p["file"]), cv2.IMREAD_COLOR) for p in marker_photos)
        if image is not None
    ]
    print(f"{len(tables)} table photos, {len(without_cards)} marker photos")
    for threshold in thresholds:
        for refine in (False, True):
            finder = LearnedFinder(model, threshold, refine)
            by: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
            for photo, frame, _ in tables:
                quads = [q for q in finder.find(frame) if not touches_edge(q, frame.shape)]
                found = matches(labelled_boxes(photo, frame.shape), quads)
                for counts in (by[photo["surface"]], by["all"]):
                    counts["cards"] += photo["cards"]
                    counts["found"] += len(found)
                    counts["false"] += len(quads) - len(found)
            false_on_markers = sum(
                sum(1 for q in finder.find(f) if not touches_edge(q, f.shape))
                for f in without_cards
            )
            every = by["all"]
            surfaces = ", ".join(
                f"{name}: {100 * c['found'] / c['cards']:.0f} % / {c['false']}"
                for name, c in sorted(by.items())
                if name != "all"
            )
            print(
                f"threshold {threshold}, {'snapped and margin-checked' if refine else 'as regressed'}: "
                f"found {every['found']} of {every['cards']} ({100 * every['found'] / every['cards']:.1f} %), "
                f"false {every['false']}, on the marker photos {false_on_markers}; {surfaces}"
            )
    finder = LearnedFinder(model, thresholds[0], True)
    times: list[float] = []
    for _, _, camera in tables:
        start = time.perf_counter()
        finder.find(camera)
        times.append((time.perf_counter() - start) * 1000)
    print(f"time per 1280×720 camera frame, refined (ms): {median_p95(times)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    steps = parser.add_subparsers(dest="step", required=True)
    crops = steps.add_parser("crops", help="Set card crops from tomwhite/set-game's mirror")
    crops.add_argument("--mirrors", default="/work/.mirror")
    crops.add_argument("--every", type=int, default=5, help="take every n-th crop")
    crops.add_argument("--out", required=True)
    scenes = steps.add_parser("scenes", help="pasted scenes, for training")
    scenes.add_argument("--crops", required=True)
    scenes.add_argument("--count", type=int, default=2000)
    scenes.add_argument("--seed", type=int, default=1)
    scenes.add_argument("--out", required=True)
    training = steps.add_parser("train", help="train and export to ONNX (needs PyTorch)")
    training.add_argument("--scenes", nargs="+", required=True)
    training.add_argument("--epochs", type=int, default=10)
    training.add_argument("--out", required=True)
    scoring = steps.add_parser("eval", help="score on the real photos")
    scoring.add_argument("--model", required=True)
    scoring.add_argument("--thresholds", default="0.2,0.3,0.4,0.5")
    args = parser.parse_args()
    if args.step == "crops":
        print(f"{extract_crops(Path(args.mirrors), Path(args.out), args.every)} crops written")
    elif args.step == "scenes":
        make_scenes(Path(args.crops), args.count, args.seed, Path(args.out))
    elif args.step == "train":
        train(args.scenes, args.epochs, Path(args.out))
    else:
        evaluate(Path(args.model), [float(t) for t in args.thresholds.split(",")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
