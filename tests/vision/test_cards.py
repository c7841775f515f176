"""Finding train cards and reading their colours on synthetic table scenes.

Validated on synthetic scenes only (vision.synthetic's model of a card): see docs/vision.md."""

from __future__ import annotations

import math
import os
import select
import signal
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from vision.cards import (
    ASPECT_MAX,
    ASPECT_MIN,
    CARD_H,
    CARD_W,
    TrainCard,
    card_features,
    card_ink,
    classify_card,
    find_card_quads,
    find_cards_explained,
    measure_view,
    read_train_cards,
    warp_card,
)
from vision.palette import CARD_CLASSES, DEFAULT_PALETTE, UNSURE
from vision.synthetic import (
    BACKGROUNDS,
    HARD_BACKGROUNDS,
    CardTruth,
    Scene,
    SceneSpec,
    render_scene,
    seen_at_a_slant,
)


def _matches(scene: Scene, frame_cards: list[TrainCard]) -> list[tuple[str, TrainCard | None]]:
    """(true colour, the card read at the same place or None) for every card drawn."""
    out = []
    for truth in scene.cards:
        centre = np.mean(truth.corners, axis=0)
        near = [c for c in frame_cards if np.linalg.norm(np.mean(c.corners, axis=0) - centre) < 15]
        out.append((truth.colour, near[0] if near else None))
    return out


TUNNEL_REVEALS = [
    ("red", "white", "locomotive"),
    ("black", "yellow", "purple"),
    ("green", "orange", "blue"),
]


@pytest.mark.parametrize("background", BACKGROUNDS)
@pytest.mark.parametrize("light", ["neutral", "warm", "dim"])
def test_the_three_tunnel_cards_are_found_and_read_on_every_table_and_light(
    background: str, light: str
) -> None:
    for seed, reveal in enumerate(TUNNEL_REVEALS):
        scene = render_scene(
            SceneSpec(
                background=background,
                light=light,
                cards=reveal,
                blur_sigma=0.7,
                tilt=0.1,
                seed=seed,
            )
        )
        cards = read_train_cards(scene.image)
        assert len(cards) == 3, f"{background}/{light} seed {seed}: {cards}"
        for colour, card in _matches(scene, cards):
            assert card is not None, f"{colour} not found on {background}/{light}"
            assert card.colour == colour, f"{colour} read as {card} on {background}/{light}"


def test_cards_come_left_to_right_with_a_box_around_each() -> None:
    scene = render_scene(SceneSpec(cards=("blue", "red", "green"), seed=7))
    cards = read_train_cards(scene.image)
    xs = [c.box[0] + c.box[2] / 2 for c in cards]
    assert xs == sorted(xs)
    for truth, card in _matches(scene, cards):
        assert card is not None
        _x, _y, w, h = card.box
        assert w > 20 and h > 20
        assert card.confidence > 0.9, truth


def test_a_strongly_tilted_and_blurred_view_still_finds_the_cards() -> None:
    for seed in range(3):
        scene = render_scene(
            SceneSpec(
                background="wood",
                cards=("orange", "black", "white"),
                tilt=0.25,
                blur_sigma=1.5,
                seed=seed,
            )
        )
        assert len(find_card_quads(scene.image)) == 3


def test_large_cards_in_a_1280x720_frame_are_read() -> None:
    scene = render_scene(
        SceneSpec(width=1280, height=720, background="light", cards=("purple", "yellow", "red"))
    )
    assert [c.colour for c in read_train_cards(scene.image)] == [
        c.colour for c in sorted(scene.cards, key=lambda t: np.mean(t.corners, axis=0)[0])
    ]


def test_an_empty_table_and_marker_stickers_are_not_cards() -> None:
    for background in BACKGROUNDS:
        scene = render_scene(
            SceneSpec(background=background, markers=((1, 40.0), (2, 60.0)), seed=2)
        )
        assert read_train_cards(scene.image) == []


def test_under_glare_a_card_is_missed_or_read_never_silently_misread() -> None:
    wrong_and_sure = []
    for seed in range(6):
        scene = render_scene(
            SceneSpec(light="glare", cards=TUNNEL_REVEALS[seed % 3], blur_sigma=0.7, seed=seed)
        )
        for colour, card in _matches(scene, read_train_cards(scene.image)):
            if card is not None and card.colour not in (colour, UNSURE):
                wrong_and_sure.append((seed, colour, card))
    assert wrong_and_sure == []


def _hand_made_card(bgr: tuple[int, int, int], *, shape: bool = False) -> TrainCard:
    """The one card read from a hand-made picture: a white card on a dark table, its field of
    one colour (BGR), or, with ``shape``, one oval of that colour in its middle, as a Set
    card's."""
    frame = np.full((480, 640, 3), (40, 46, 34), np.uint8)
    cv2.rectangle(frame, (280, 170), (359, 293), (240, 245, 246), -1)
    if shape:
        cv2.ellipse(frame, (319, 231), (16, 30), 0, 0, 360, bgr, -1)
    else:
        cv2.rectangle(frame, (287, 177), (352, 286), bgr, -1)
    (card,) = read_train_cards(frame)
    return card


def test_a_card_between_two_colours_is_unsure_and_keeps_its_guess() -> None:
    # A field halfway between red and orange.
    card = _hand_made_card((35, 88, 222))
    assert card.colour == UNSURE
    assert card.guess in ("red", "orange")
    assert card.confidence < 0.75


def test_a_dark_violet_card_is_unsure_not_black() -> None:
    # A field of a dark, greyish violet (0.12 at -59° after white balance): too little colour
    # for its pixels to count as coloured, too much of a colour no light makes for black (a Set
    # violet in shade on a real photo read black at full confidence).
    card = _hand_made_card((100, 70, 85))
    assert card.colour == UNSURE
    assert card.guess == "black"


@pytest.mark.parametrize(
    ("shape_bgr", "colour"),
    [
        # Set's dark violet, nearest black in all four features and nearer blue's hue than our
        # purple's (-75°, -79°): a violet no light makes, so purple (unsure before).
        ((80, 40, 50), "purple"),
        ((90, 35, 45), "purple"),
        # Nearer the line a light moves hues along (-90°): black or navy ink in a cool light
        # could make it. Still unsure.
        ((75, 45, 45), UNSURE),
        # A navy-blue shape (-111°) stays blue, a black one black.
        ((110, 50, 20), "blue"),
        ((40, 40, 40), "black"),
        ((50, 45, 40), "black"),
    ],
)
def test_a_dark_violet_shape_is_purple_where_no_light_makes_its_hue(
    shape_bgr: tuple[int, int, int], colour: str
) -> None:
    assert _hand_made_card(shape_bgr, shape=True).colour == colour


def test_the_warp_is_a_portrait_card_whatever_way_the_card_lies() -> None:
    scene = render_scene(SceneSpec(cards=("green",) * 6, rotation_deg=90.0, seed=5))
    quads = find_card_quads(scene.image)
    assert len(quads) == 6
    for quad in quads:
        card = warp_card(scene.image, quad)
        assert card.shape == (CARD_H, CARD_W, 3)
        # The white margin runs down both long sides.
        assert card[CARD_H // 2, 2].min() > 150 and card[CARD_H // 2, CARD_W - 3].min() > 150


def test_white_balance_from_the_margin_cancels_a_warm_light() -> None:
    neutral = render_scene(SceneSpec(cards=("white",), seed=9))
    warm = render_scene(SceneSpec(cards=("white",), light="warm", seed=9))
    f_neutral = card_features(warp_card(neutral.image, find_card_quads(neutral.image)[0]))
    f_warm = card_features(warp_card(warm.image, find_card_quads(warm.image)[0]))
    assert abs(f_neutral[1] - f_warm[1]) < 0.05  # red − green
    assert abs(f_neutral[2] - f_warm[2]) < 0.05  # yellow − blue


def test_every_class_has_a_default_and_reads_as_itself_from_its_own_centre() -> None:
    names = [c.name for c in DEFAULT_PALETTE.classes]
    assert names == list(CARD_CLASSES)
    for cls in DEFAULT_PALETTE.classes:
        assert DEFAULT_PALETTE.classify(cls.centre)[0] == cls.name


# Harder scenes, as real photos showed them (bench/bench_vision_real.py): light wood and leather
# tables, cards touching, a close-up, art with a large white element.
FIVE = ("red", "purple", "white", "green", "blue")
FOUR = ("orange", "black", "yellow", "locomotive")


@pytest.mark.parametrize("background", HARD_BACKGROUNDS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cards_on_light_wood_and_leather_are_found_and_read(background: str, seed: int) -> None:
    for cards in (FIVE, FOUR):
        scene = render_scene(
            SceneSpec(width=1280, height=720, background=background, cards=cards, seed=seed)  # type: ignore[arg-type]
        )
        matched = _matches(scene, read_train_cards(scene.image))
        assert [(truth, read.colour if read else None) for truth, read in matched] == [
            (truth, truth) for truth, _ in matched
        ]


# A card's cut edge as it shows on real card stock: the seam between two white cards touching
# in a row measured 21 grey levels deep at the median (9 at the 10th percentile) in a real photo
# of nine Set cards side by side (pclewis/set-solver); a rim darkened by a fifth gives 20 here.
REAL_CARD_EDGE = 0.2


def _row_read(
    background: str, cards: tuple[str, ...], gap: float, width: float = 130, edge: float = 0.0
) -> list[str]:
    """The colours read, left to right, in a row of ``cards`` ``gap`` px apart on a 1280 × 720
    table (``edge``: their cut edges' darkening, as SceneSpec.card_edge)."""
    scene = render_scene(
        SceneSpec(
            width=1280,
            height=720,
            background=background,  # type: ignore[arg-type]
            cards=cards,
            layout="row",
            row_gap_px=gap,
            card_width_px=width,
            card_edge=edge,
        )
    )
    return [c.colour for c in read_train_cards(scene.image)]


@pytest.mark.parametrize("background", ["dark", "light_wood", "leather"])
@pytest.mark.parametrize("gap", [0.0, 2.0])
def test_cards_touching_in_a_row_are_each_found(background: str, gap: float) -> None:
    cards = ("red", "blue", "black", "green", "yellow")
    assert _row_read(background, cards, gap, 150) == list(cards)


@pytest.mark.parametrize("background", ["dark", "wood", "light_wood", "light", "cloth", "leather"])
@pytest.mark.parametrize(
    "cards",
    [("red", "white", "blue", "green", "yellow"), ("white", "red", "white", "white", "black")],
)
def test_white_cards_touching_in_a_row_are_cut_at_the_seams_between_them(
    background: str, cards: tuple[str, ...]
) -> None:
    # A white card's field is as light as its margin, so the pieces of the row's outline cannot
    # show their own margins: the row is cut where a straight dark line (the seam) crosses it.
    # Before, none of the five was found on any of these tables but the dark one.
    assert _row_read(background, cards, 0.0, edge=REAL_CARD_EDGE) == list(cards)


@pytest.mark.parametrize("background", ["dark", "wood", "light", "cloth"])
@pytest.mark.parametrize(
    "cards", [("red", "white", "blue"), ("white", "green", "white"), ("white", "white", "white")]
)
def test_a_tunnel_reveal_of_three_touching_cards_with_a_white_one_is_three_cards(
    background: str, cards: tuple[str, ...]
) -> None:
    # Three portrait cards side by side are as long as one card lying sideways (1.94): with a
    # white card among them the row was taken for one card, read "red", "green" or even
    # "orange" where three cards lay. Its seams now cut it.
    assert _row_read(background, cards, 0.0, edge=REAL_CARD_EDGE) == list(cards)


@pytest.mark.parametrize("background", ["dark", "wood", "cloth"])
@pytest.mark.parametrize("cards", [("red", "blue"), ("yellow", "black"), ("green", "white")])
@pytest.mark.parametrize("gap", [0.0, 2.0])
def test_two_cards_side_by_side_are_two_cards_not_one_lying_sideways(
    background: str, cards: tuple[str, ...], gap: float
) -> None:
    # Two portrait cards side by side (1.29 long for wide, 1.31 a little apart) pass for one
    # card lying sideways (1.55, within 15 %): on wood a red and a blue card 1-3 px apart were
    # one "locomotive", a yellow and a black one "yellow" (and this changes a tunnel's count).
    assert _row_read(background, cards, gap, edge=REAL_CARD_EDGE) == list(cards)


def _on_felt(seed: int) -> np.ndarray:
    """A 1280 × 720 dark green felt, a little noisy (jaxon411's card table)."""
    rng = np.random.default_rng(seed)
    felt = np.asarray((60, 70, 35), np.float64) + rng.normal(0, 6, (720, 1280, 1))
    return np.clip(felt, 0, 255).astype(np.uint8)


def _poker_card(img: np.ndarray, x: int, y: int, w: int = 100, h: int = 140) -> np.ndarray:
    """A white poker card (63 × 88 mm) with three red pips and an index: its box."""
    cv2.rectangle(img, (x, y), (x + w - 1, y + h - 1), (228, 230, 232), -1)
    for dy in (-h // 4, 0, h // 4):
        cv2.circle(img, (x + w // 2, y + h // 2 + dy), max(4, w // 9), (40, 40, 190), -1)
    cv2.putText(img, "7", (x + 4, y + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (40, 40, 190), 2)
    return _box(x + w / 2, y + h / 2, w, h)


@pytest.mark.parametrize("gap", [1, 2, 3])
@pytest.mark.parametrize("seed", [0, 1])
def test_two_poker_cards_side_by_side_are_two_cards_by_their_size_and_seam(
    gap: int, seed: int
) -> None:
    # Two poker cards side by side (2 × 63 / 88 ≈ 1.43 long for wide) have a card's proportions
    # lying sideways: on jaxon411's felt three such pairs were one card each. Twice the area of
    # the other cards, each half of their shape, and a seam between the halves: two cards.
    # Before, four were found here, the pair as one.
    img = _on_felt(seed)
    boxes = [
        _poker_card(img, 400, 120),
        _poker_card(img, 500 + gap, 120),
        _poker_card(img, 700, 120),
        _poker_card(img, 400, 420),
    ]
    quads = find_card_quads(cv2.GaussianBlur(img, (3, 3), 0))
    assert _found_and_false(quads, boxes) == (4, 0)


def test_a_near_card_twice_as_large_as_the_far_ones_is_not_cut_without_a_seam() -> None:
    # A camera at a slant makes the near row twice the far row's area, and a near card's halves
    # have the far cards' shape (a real photo of Set cards on a dark table: six false cards
    # when size alone cut them). Without a seam between its halves it stays one card.
    img = _on_felt(2)
    boxes = [
        _poker_card(img, 300, 60),
        _poker_card(img, 500, 60),
        _poker_card(img, 300, 330, 141, 198),
        _poker_card(img, 600, 330, 141, 198),
    ]
    quads = find_card_quads(cv2.GaussianBlur(img, (3, 3), 0))
    assert _found_and_false(quads, boxes) == (4, 0)


def test_an_outline_round_several_cards_is_no_card() -> None:
    # On notanumber11's grid of twelve poker cards on wood, the edges round two rows of four
    # made one outline of a card's proportions, taken with the eight cards in it.
    from vision.cards import _Fine, _FineMap, _Taken, _without_groups_and_pairs

    blank = np.full((360, 640), 50, np.uint8)

    def kept(quads: list[np.ndarray], rejected: list[tuple[str, np.ndarray]]) -> list[list]:
        taken = _Taken()
        for quad in quads:
            taken.add(quad)
        look = _FineMap(_Fine(blank), (1.0, 1.0), (0.0, 0.0))
        out = _without_groups_and_pairs(blank, look, taken, rejected, pairs_of_white=True)
        return [q.tolist() for q in out.quads]

    cards = [_box(100 + 110 * i, 110 + 160 * j, 100, 150) for i in range(4) for j in range(2)]
    rejected: list[tuple[str, np.ndarray]] = []
    assert kept([*cards, _box(265, 190, 450, 320)], rejected) == [q.tolist() for q in cards]
    assert [reason for reason, _ in rejected] == ["not_card_shaped"]
    # A card holding one smaller outline (a glare-broken card's piece) keeps both.
    pair = [cards[0], _box(100, 110, 40, 60)]
    assert kept(pair, []) == [q.tolist() for q in pair]


def test_nine_white_cards_side_by_side_are_nine_cards() -> None:
    # As the real photo's nine Set cards (one outline was one card, then none: a row was split
    # into eight parts at most).
    assert _row_read("dark", ("white",) * 9, 0.0, 120, REAL_CARD_EDGE) == ["white"] * 9


def test_a_long_white_box_with_printed_shapes_is_not_cut_into_cards() -> None:
    # Nine shapes in a row on one white strip, spaced as nine cards' would be, but no seam
    # between them: no card (the strip is explained, not silently dropped).
    image = np.full((720, 1280, 3), 45, np.uint8)
    cv2.rectangle(image, (100, 260), (1180, 460), (222, 224, 226), -1)
    for i in range(9):
        cx = 100 + 60 + 120 * i
        cv2.ellipse(image, (cx, 360), (40, 18), 0, 0, 360, (40, 40, 200), -1)
    quads, rejected = find_cards_explained(image)
    assert quads == []
    assert "not_card_shaped" in {r.reason for r in rejected}


def _box(cx: float, cy: float, w: float, h: float) -> np.ndarray:
    return np.asarray(
        [
            (cx - w / 2, cy - h / 2),
            (cx + w / 2, cy - h / 2),
            (cx + w / 2, cy + h / 2),
            (cx - w / 2, cy + h / 2),
        ],
        np.float32,
    )


def test_a_shape_taken_for_a_card_does_not_hide_the_card_round_it() -> None:
    # On white tables (AviH0/Set-Solver's photos) the upper halves of Set cards' outlined ovals
    # were taken for cards first and hid the cards round them (dropped at the end as too
    # small, with the card lost): four cards on the photos never tuned on.
    from vision.cards import _Taken  # the finder's bookkeeping: no public way to stage it

    taken = _Taken()
    shape = _box(100, 90, 60, 30)  # 0.15 of the card
    taken.add(shape)
    card = _box(100, 110, 100, 150)
    assert not taken.overlaps(card)
    taken.add(card)
    assert taken.overlaps(_box(102, 112, 100, 150))  # the same card again
    assert taken.overlaps(_box(150, 110, 200, 150))  # two cards side by side: one is taken
    rejected: list[tuple[str, np.ndarray]] = []
    kept = taken.without_printed_shapes(rejected)
    assert [q.tolist() for q in kept.quads] == [card.tolist()]
    assert [(reason, q.tolist()) for reason, q in rejected] == [("too_small", shape.tolist())]
    # An outline round half the table, taken for a card, holds no cards: they stay.
    table = _Taken()
    for quad in (
        card,
        _box(300, 110, 100, 150),
        _box(500, 110, 100, 150),
        _box(300, 200, 700, 400),
    ):
        table.add(quad)
    assert len(table.without_printed_shapes([]).quads) == 4


def test_shapes_that_outnumber_their_cards_are_still_shapes() -> None:
    # gone-res_test12 in bench/real_photos.json (GorgeousOne/Set-Card-Detection-js): on a light
    # table four white cards were found and, before the cards' own shapes went, fifteen shapes
    # printed on them and on the cards lost against it; the upper quartile was a shape's, and
    # nine shapes stayed as cards. Two sizes
    # 2.5 times apart or more: the smaller are shapes when the larger are three cards or more.
    from vision.cards import _card_sized, _Taken  # no public way to stage the finder's picks

    def staged(*quads: np.ndarray) -> _Taken:
        taken = _Taken()
        for quad in quads:
            taken.add(quad)
        return taken

    cards = [_box(100 + 120 * i, 100, 100, 150) for i in range(4)]
    ovals = [_box(100 + 60 * i, 400 + 40 * (i % 3), 66, 33) for i in range(15)]  # 0.15 each
    rejected: list[tuple[str, np.ndarray]] = []
    kept = _card_sized(staged(*cards, *ovals), rejected)
    assert [q.tolist() for q in kept.quads] == [c.tolist() for c in cards]
    assert [reason for reason, _ in rejected] == ["too_small"] * 15
    # A far row at a slant (0.55 of the near row's area) is cards too.
    far = [_box(100 + 120 * i, 400, 74, 111) for i in range(4)]
    assert len(_card_sized(staged(*cards, *far), []).quads) == 8
    # Two large outlines are not enough to call nine small ones shapes.
    assert len(_card_sized(staged(*cards[:2], *ovals), []).quads) == 17


def test_the_most_card_like_rejected_outline_is_explained_first() -> None:
    # Calibration names only the first few reasons: a blank card-sized paper beside two cards
    # is the one players look for, not a long printed strip across the table (it came last).
    scene = render_scene(
        SceneSpec(width=1280, height=720, cards=("red", "green"), card_width_px=130, layout="row")
    )
    image = scene.image.copy()
    cv2.rectangle(image, (60, 40), (700, 110), (225, 225, 225), -1)
    cv2.circle(image, (300, 75), 20, (40, 40, 200), -1)
    cv2.rectangle(image, (1000, 480), (1130, 680), (228, 228, 228), -1)
    quads, rejected = find_cards_explained(image)
    assert len(quads) == 2
    assert rejected[0].reason == "blank"
    x, y, w, h = rejected[0].box
    assert abs(x - 1000) <= 4 and abs(y - 480) <= 4 and abs(w - 130) <= 8 and abs(h - 200) <= 8
    assert "not_card_shaped" in {r.reason for r in rejected[1:]}  # the strip is still explained


@pytest.mark.parametrize("gap", [6.0, 12.0])
def test_a_row_of_cards_a_little_apart_on_a_light_table_is_found(gap: float) -> None:
    # On a light table the white masks see one sheet, and the cards' edges and shadows join
    # into one outline round the row: split into five, the pieces lie a pixel or two off the
    # cards until they are snapped, and the yellow card's light field was not clearly darker
    # than its margin there (9 grey levels against 12 asked; 23 once snapped). None of the five
    # was found.
    cards = ("red", "blue", "green", "yellow", "black")
    assert _row_read("light", cards, gap) == list(cards)


def test_a_close_up_card_is_found_and_a_closer_one_is_rejected_with_a_reason() -> None:
    near = render_scene(
        SceneSpec(
            cards=("green",),
            card_width_px=220,
            rotation_deg=0.0,
            width=400,
            height=560,
            layout="row",
        )
    )
    assert [c.colour for c in read_train_cards(near.image)] == ["green"]
    too_near = render_scene(
        SceneSpec(
            cards=("green",),
            card_width_px=300,
            rotation_deg=0.0,
            width=400,
            height=560,
            layout="row",
        )
    )
    quads, rejected = find_cards_explained(too_near.image)
    assert quads == []
    assert [r.reason for r in rejected] == ["too_close"]
    assert "move the camera back" in rejected[0].sentence()


@pytest.mark.parametrize("background", ["dark", "wood", "leather"])
def test_a_coloured_card_with_a_large_white_oval_reads_its_colour_not_white(
    background: str,
) -> None:
    cards = ("red", "blue", "green", "yellow", "purple")
    for seed in (0, 1):
        scene = render_scene(
            SceneSpec(
                width=1280, height=720, background=background, cards=cards, art="oval", seed=seed
            )  # type: ignore[arg-type]
        )
        reads = [
            read.colour if read else None
            for _, read in _matches(scene, read_train_cards(scene.image))
        ]
        # Never confidently wrong; at most one unsure of five.
        assert all(r in (truth, UNSURE) for r, truth in zip(reads, cards, strict=True)), reads
        assert reads.count(UNSURE) <= 1, reads


def test_a_black_card_with_a_large_white_oval_is_unsure_not_white() -> None:
    scene = render_scene(
        SceneSpec(width=1280, height=720, cards=("black",), art="oval", layout="row")
    )
    (card,) = read_train_cards(scene.image)
    assert card.colour == UNSURE


def test_a_lilac_purple_printing_is_not_read_as_white() -> None:
    lilac = (("purple", (200, 160, 215)),)
    scene = render_scene(
        SceneSpec(width=1280, height=720, cards=("purple", "white"), inks=lilac, layout="row")
    )
    purple, white = read_train_cards(scene.image)
    assert purple.colour in ("purple", UNSURE)
    assert white.colour == "white"


_EIGHT = ("red", "blue", "green", "yellow", "purple", "orange", "black", "white")


@pytest.mark.parametrize("background", ["dark", "wood", "light", "cloth"])
def test_a_black_bordered_printing_is_never_read_confidently_wrong(background: str) -> None:
    # The older printing has no white margin: the outline found is the field inside the black
    # border, and its pale sky band was taken for the white to balance against (orange read
    # yellow at 0.95). A card without a white margin all round is unsure.
    wrong = unsure = 0
    for seed in range(3):
        spec = SceneSpec(
            width=1280,
            height=720,
            background=background,
            cards=_EIGHT,
            card_width_px=100,
            margin=(25, 25, 28),
            seed=seed,
        )
        scene = render_scene(spec)
        for truth, read in _matches(scene, read_train_cards(scene.image)):
            if read is None:
                continue
            unsure += read.colour == UNSURE
            wrong += read.colour not in (truth, UNSURE)
    assert wrong == 0
    assert unsure >= 18  # the coloured cards of the 24 (white and black fields read as such)


def test_the_current_printing_is_not_made_unsure_by_the_margin_check() -> None:
    spec = SceneSpec(width=1280, height=720, cards=_EIGHT, card_width_px=100, layout="row")
    reads = read_train_cards(render_scene(spec).image)
    assert [c.colour for c in reads] == list(_EIGHT)


@pytest.mark.parametrize("background", ["dark", "wood"])
def test_another_printings_dark_violet_and_pale_red_are_read_by_their_hue(background: str) -> None:
    """Issue 19: a printing far from the palette in lightness or saturation (Set's dark violet,
    a pale red on a real photo) was "unsure"; its hue still tells the colour when one class's
    hue is clearly nearest. Half-way hues stay unsure (the red/orange card above)."""
    inks = (("purple", (88, 38, 118)), ("red", (236, 128, 120)))
    scene = render_scene(
        SceneSpec(
            width=1280,
            height=720,
            background=background,  # type: ignore[arg-type]
            cards=("purple", "red", "green"),
            inks=inks,
            layout="row",
        )
    )
    reads = [
        read.colour if read else None for _, read in _matches(scene, read_train_cards(scene.image))
    ]
    assert reads == ["purple", "red", "green"], reads


def _rose_cloth(seed: int, cloth: tuple[int, int, int]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Six Set-like cards (white, one coloured outline) on a light cloth printed with blue-grey
    flowers whose outlines run into the cards' edges, as on the rose tablecloth of the real
    photos (bench/real_photos.json: AviH0/Set-Solver test images 12, 13, 25)."""
    rng = np.random.default_rng(seed)
    img = np.full((720, 1280, 3), cloth, np.uint8)
    img = np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
    for _ in range(90):
        centre = (int(rng.uniform(0, 1280)), int(rng.uniform(0, 720)))
        axes = (int(rng.uniform(20, 70)), int(rng.uniform(15, 50)))
        cv2.ellipse(img, centre, axes, rng.uniform(0, 180), 0, 360, (185, 160, 140), -1)
        arc = rng.uniform(120, 330)
        cv2.ellipse(img, centre, axes, rng.uniform(0, 180), 0, arc, (140, 110, 90), 3)
    boxes = []
    for cx, cy in [(300, 200), (640, 200), (980, 200), (300, 520), (640, 520), (980, 520)]:
        box = cv2.boxPoints(((cx, cy), (200, 130), rng.uniform(-12, 12))).astype(np.int32)
        cv2.fillConvexPoly(img, box, (238, 240, 241), cv2.LINE_AA)
        cv2.polylines(img, [box], True, (170, 175, 178), 1, cv2.LINE_AA)
        cv2.ellipse(img, (cx, cy), (16, 30), 0, 0, 360, (60, 40, 200), 3, cv2.LINE_AA)
        boxes.append(box)
    return np.asarray(cv2.GaussianBlur(img, (3, 3), 0), np.uint8), boxes


def _found_and_false(quads: list[np.ndarray], boxes: list[np.ndarray]) -> tuple[int, int]:
    """Cards found (a quad centred on a card and of its size: a shape printed in a card's middle
    is centred on it too) and false ones."""

    def on(quad: np.ndarray, box: np.ndarray) -> bool:
        size = cv2.contourArea(quad.astype(np.float32)) / cv2.contourArea(box.astype(np.float32))
        return bool(np.linalg.norm(quad.mean(axis=0) - box.mean(axis=0)) < 20 and 0.7 < size < 1.4)

    hits = [any(on(q, b) for b in boxes) for q in quads]
    return sum(hits), len(hits) - sum(hits)


def test_cards_on_a_cloth_as_light_as_they_are_are_found_inside_their_edges() -> None:
    # The light cloth is nearly the cards' white: the white masks see one sheet, and the
    # flowers' outlines make every card's outer outline ragged; the region inside each card's
    # edge is still clean. Before the enclosed regions were looked at, 5 of the 48 were found.
    assert sum(f for f, _ in _found_and_false_all(LIGHT_CLOTH)) >= 30
    assert [f for f, _ in _found_and_false_all(DARKER_CLOTH)] == [6] * 8


def test_patches_of_patterned_cloth_between_its_flowers_are_rarely_taken_for_cards() -> None:
    # Patches of cloth between the flowers are enclosed by edges and brighter than the flowers
    # round them. Without the straight-edge test on enclosed regions 8 were taken in these 16
    # pictures of 96 cards; with it 3, as many as the finder took before it looked inside edges
    # (the real photos: none).
    false = sum(
        x for _, x in _found_and_false_all(LIGHT_CLOTH) + _found_and_false_all(DARKER_CLOTH)
    )
    assert false <= 3


LIGHT_CLOTH = (226, 229, 231)
DARKER_CLOTH = (214, 218, 221)


def _cloths(cloth: tuple[int, int, int]) -> list[tuple[np.ndarray, list[np.ndarray]]]:
    return [_rose_cloth(seed, cloth) for seed in range(8)]


def _found_and_false_all(cloth: tuple[int, int, int]) -> list[tuple[int, int]]:
    return [_found_and_false(find_card_quads(img), boxes) for img, boxes in _cloths(cloth)]


@pytest.mark.parametrize("background", ["dark", "light_wood"])
def test_cards_seen_at_a_slant_are_found(background: str) -> None:
    # A camera beside the table sees each card as a trapezoid, which fills its bounding
    # rectangle badly; its four corners hold it. Before, 2 of these 40 cards on light wood were
    # rejected as ragged (on the real photos of Magic cards on felt, 2 of 5). On the dark table
    # one black card, sheared into a parallelogram, is outlined only by its bounding rectangle,
    # whose corners lie on the table: since a margin must run along each side (a printed
    # marker's inside is no card), that loose outline is refused and the card missed.
    found = 0
    for seed in range(4):
        scene = render_scene(
            SceneSpec(
                width=1280,
                height=720,
                background=background,  # type: ignore[arg-type]
                cards=("red", "blue", "white", "green", "black"),
                tilt=0.3,
                card_width_px=130,
                seed=seed,
            )
        )
        found += len(find_card_quads(scene.image))
    assert found == (19 if background == "dark" else 20)


def _set_like_card(
    ink_rgb: tuple[int, int, int],
    *,
    stripes: bool,
    card_px: tuple[int, int],
    line_px: int = 3,
) -> tuple[np.ndarray, np.ndarray]:
    """A 1280×720 frame with one Set-like card on a brown table, and the card's corners: two
    diamonds drawn only as outlines (``stripes``: filled with thin vertical stripes too) in
    ``ink_rgb`` on off-white paper. Drawn at 4× and shrunk to ``card_px`` (the size of the cards
    in the photos below), then blurred and noised like a camera, so the thin lines blend with the
    paper as they do there."""
    scale = 4
    w, h = card_px[0] * scale, card_px[1] * scale
    card = np.full((h, w, 3), (230, 234, 236), np.uint8)  # BGR: a slightly warm white
    ink = (int(ink_rgb[2]), int(ink_rgb[1]), int(ink_rgb[0]))
    for cy in (h // 3, 2 * h // 3):
        diamond = np.asarray(
            [
                (w // 2 - w // 3, cy),
                (w // 2, cy - h // 11),
                (w // 2 + w // 3, cy),
                (w // 2, cy + h // 11),
            ],
            np.int32,
        )
        if stripes:
            inside = np.zeros((h, w), np.uint8)
            cv2.fillPoly(inside, [diamond], 255)
            every_other = (np.arange(w) % (2 * scale)) < 2  # 0.5 px lines, 2 px apart
            card[(inside > 0) & every_other[None, :]] = ink
        cv2.polylines(card, [diamond], True, ink, line_px, cv2.LINE_AA)
    small = cv2.resize(card, card_px, interpolation=cv2.INTER_AREA)
    frame = np.full((720, 1280, 3), (70, 110, 150), np.uint8)
    x0, y0 = 500, 300
    frame[y0 : y0 + card_px[1], x0 : x0 + card_px[0]] = small
    frame = cv2.GaussianBlur(frame, (0, 0), 0.7)
    noise = np.random.default_rng(0).normal(0.0, 1.5, frame.shape)
    frame = np.clip(frame + noise, 0, 255).astype(np.uint8)
    x1, y1 = x0 + card_px[0] - 1, y0 + card_px[1] - 1
    return frame, np.asarray([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], np.float32)


# Sizes of the Set cards in the AviH0/Set-Solver photos once scaled to 1280×720 (about 80 × 125
# and 120 × 180 px).
SET_CARD_SIZES = [(84, 130), (120, 186)]


@pytest.mark.parametrize("card_px", SET_CARD_SIZES)
@pytest.mark.parametrize("ink", [(110, 92, 128), (100, 90, 112)])
def test_a_white_card_with_thin_dull_purple_outlines_is_never_read_white(
    ink: tuple[int, int, int], card_px: tuple[int, int]
) -> None:
    """Set cards whose shapes are only thin outlines in Set's dull grey-violet read confidently
    "white" on real photos (AviH0/Set-Solver app/src/test/res/test_image_18.jpg and
    test_image_23.jpg; their darkest ink about RGB (87–101, 88–103, 100–118) on paper of
    about (194–200, 195–204, 206–211)): the outline is too thin and grey for the coloured
    pixels. Its ink is tinted against the card's own paper, at a hue between purple and blue
    that no light gives grey ink: purple (faint ink is never read blue)."""
    frame, quad = _set_like_card(ink, stripes=False, card_px=card_px)
    card = classify_card(frame, quad)
    assert card.colour == "purple", card


def test_the_ink_s_hue_is_known_from_many_pixels_that_agree() -> None:
    """A thin violet outline's hundreds of ink pixels know their hue within a few degrees; a few
    pixels of noise in the dark do not."""
    frame, quad = _set_like_card((110, 92, 128), stripes=False, card_px=SET_CARD_SIZES[1])
    outline = card_ink(warp_card(frame, quad))
    assert outline.share > 0.04 and outline.hue_error < 2.0, outline
    rng = np.random.default_rng(1)
    card = np.full((CARD_H, CARD_W, 3), 70.0)
    card[80:86, 40:48] = 40.0  # a speck of grey ink on dim paper, in noise of 4 levels
    noisy = np.clip(card + rng.normal(0.0, 4.0, card.shape), 0, 255).astype(np.uint8)
    assert card_ink(noisy).hue_error > 5.0


def test_a_white_card_s_grey_drawing_taken_alone_in_dim_light_is_not_read_purple() -> None:
    """bench/bench_vision.py's white card in dim light on a light table (blurred, seed 3): the
    finder took its grey wagon alone for a card, and the wagon's few dark pixels, noisy, gave a
    tint of 0.27 at -64°, a violet's hue. That hue is not known well enough to read purple."""
    scene = render_scene(
        SceneSpec(
            background="light",
            light="dim",
            cards=("green", "purple", "white"),
            blur_sigma=1.5,
            tilt=0.1,
            seed=3,
        )
    )
    white = scene.cards[2]
    xs, ys = zip(*white.corners, strict=True)
    for card in read_train_cards(scene.image):
        cx, cy = (sum(v) / 4 for v in zip(*card.corners, strict=True))
        if min(xs) <= cx <= max(xs) and min(ys) <= cy <= max(ys):
            assert card.colour in ("white", UNSURE), card


@pytest.mark.parametrize("card_px", SET_CARD_SIZES)
@pytest.mark.parametrize("ink", [(95, 100, 120), (90, 95, 130)])
def test_a_white_card_with_faint_navy_outlines_is_unsure_not_purple(
    ink: tuple[int, int, int], card_px: tuple[int, int]
) -> None:
    """Navy ink (hue -96° to -104°, near the line a cool light moves grey ink along) on a white
    card: not purple, as violet is, and not surely white either."""
    frame, quad = _set_like_card(ink, stripes=False, card_px=card_px)
    assert classify_card(frame, quad).colour == UNSURE


@pytest.mark.parametrize("card_px", SET_CARD_SIZES)
@pytest.mark.parametrize(
    ("truth", "ink"),
    [("purple", (110, 92, 128)), ("purple", (150, 130, 180)), ("green", (110, 150, 120))],
)
def test_a_white_card_with_faint_stripes_is_its_colour_or_unsure_never_white(
    truth: str, ink: tuple[int, int, int], card_px: tuple[int, int]
) -> None:
    """Set's striped shapes: thin lines of ink across the shape, seen as a faint tint
    (AviH0/Set-Solver test_image_8.jpg, a lilac; test_image_16.jpg and test_image_20.jpg,
    green; test_image_18.jpg and test_image_23.jpg, the grey-violet) read "white"."""
    frame, quad = _set_like_card(ink, stripes=True, card_px=card_px)
    card = classify_card(frame, quad)
    assert card.colour in (truth, UNSURE), card


@pytest.mark.parametrize("card_px", SET_CARD_SIZES)
@pytest.mark.parametrize("ink", [(105, 101, 108), (100, 101, 106)], ids=["violet", "navy"])
def test_a_white_card_with_a_faintly_tinted_outline_is_unsure_not_white(
    ink: tuple[int, int, int], card_px: tuple[int, int]
) -> None:
    """Ink nearly grey, its little tint (0.053–0.063, under what a white card's grey ink shows in
    dim light) too little to read a colour, too much to say white, whatever its hue: a violet
    outline on a small Set card read "white" at full confidence (AviH0/Set-Solver
    test_image_24.jpg, tint 0.056), and a navy one at 0.96 on a photo never tuned on
    (test_image_4.jpg, tint 0.063; blue is the hue a cool light gives a white card's grey ink
    too)."""
    frame, quad = _set_like_card(ink, stripes=False, card_px=card_px)
    assert classify_card(frame, quad).colour == UNSURE


@pytest.mark.parametrize("card_px", SET_CARD_SIZES)
def test_faint_warm_stripes_between_red_and_orange_are_unsure_not_orange(
    card_px: tuple[int, int],
) -> None:
    """Faint ink's hue is turned by the paper and by glare: pale red stripes on a Set card under
    glare (AviH0/Set-Solver test_image_6.jpg, never tuned on; ink tint 0.21 at 47°) read orange
    at 0.77. Faint ink tells a colour only when its hue is clearly one class's; this brownish
    red read orange at 0.89 on the larger card."""
    frame, quad = _set_like_card((155, 135, 122), stripes=True, card_px=card_px)
    assert classify_card(frame, quad).colour == UNSURE


def test_a_white_card_with_a_very_thin_coloured_outline_is_unsure_not_white() -> None:
    """Under 2 % of the field, thin pale ink is not enough to read a colour, but its tint (0.43) is
    no grey: green outlines on a small, blurred Set card (0.8 % of the field) read "white" at full
    confidence (AviH0/Set-Solver test_image_22.jpg)."""
    frame, quad = _set_like_card((150, 140, 175), stripes=False, card_px=SET_CARD_SIZES[0])
    assert classify_card(frame, quad).colour == UNSURE


@pytest.mark.parametrize("card_px", SET_CARD_SIZES)
def test_a_white_card_with_grey_outlines_still_reads_white(card_px: tuple[int, int]) -> None:
    """Grey or black ink on a white card (a wagon's lines, a playing card's pips) has no tint:
    the card stays white, confidently."""
    for stripes in (False, True):
        frame, quad = _set_like_card((100, 100, 100), stripes=stripes, card_px=card_px)
        assert classify_card(frame, quad).colour == "white"


# Codes of 3 × 5 cells (1 black) whose top row and left column are mostly black, as on the real
# photo where the inside of a printed marker was taken for a card.
_FRAME_CODES = (
    ("11101", "10010", "10101"),
    ("11011", "10100", "11010"),
    ("10111", "11001", "10100"),
    ("11110", "10011", "01101"),
)


def _marker_frame_on_paper(code: tuple[str, ...], inside: tuple[int, int], blur: int) -> np.ndarray:
    """A printed marker of another dictionary: a thick black frame on white paper whose inside,
    card-shaped, is white only where its code is."""
    img = np.full((720, 1280, 3), (236, 238, 240), np.uint8)
    (w, h), (x0, y0) = inside, (600, 340)
    frame = max(8, w // 7)
    cv2.rectangle(img, (x0 - frame, y0 - frame), (x0 + w + frame, y0 + h + frame), (25,) * 3, -1)
    cw, ch = w / 5, h / 3
    for r, row in enumerate(code):
        for c, bit in enumerate(row):
            if bit == "0":
                p0 = (round(x0 + c * cw), round(y0 + r * ch))
                p1 = (round(x0 + (c + 1) * cw) - 1, round(y0 + (r + 1) * ch) - 1)
                cv2.rectangle(img, p0, p1, (236, 238, 240), -1)
    return np.asarray(cv2.GaussianBlur(img, (blur, blur), 0), np.uint8)


def test_the_inside_of_a_printed_markers_frame_is_no_card() -> None:
    # Real photo (GSNCodes' 5 × 5 markers on paper): the inside of one marker's black frame was
    # read as a black card at confidence 1.0. Its sides were brighter than the frame on average,
    # but only where the code is white: a card's white margin runs along each side. Before the
    # margin had to run along each side, 16 of these 24 were taken for cards.
    taken = [
        len(find_card_quads(_marker_frame_on_paper(code, inside, blur)))
        for code in _FRAME_CODES
        for inside in ((60, 36), (80, 50), (100, 62))
        for blur in (3, 5)
    ]
    assert taken == [0] * 24


_SIX = ("red", "blue", "green", "yellow", "black", "orange")


def _proportions(scene: Scene) -> list[float]:
    """Each drawn card's long pair of sides over its short pair, as the picture shows it."""
    out = []
    for truth in scene.cards:
        pts = np.asarray(truth.corners, np.float64)
        sides = np.linalg.norm(pts - np.roll(pts, -1, axis=0), axis=1)
        pairs = (sides[0] + sides[2], sides[1] + sides[3])
        out.append(max(pairs) / min(pairs))
    return out


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_cards_seen_at_a_slant_are_found_when_the_cards_found_say_so(seed: int) -> None:
    """A camera 45° from straight down: portrait cards look nearly square, landscape ones too
    long (real photos: a Set game on a sofa, seen from a player's seat). The two or three cards
    still found have their depth shortened alike; the rest are found with the picture's height
    stretched back by that (before: 2–3 of 6 here)."""
    spec = SceneSpec(
        width=960, height=720, cards=_SIX, card_width_px=100, rotation_deg=8, seed=seed
    )
    scene = seen_at_a_slant(render_scene(spec), 45)
    assert any(not ASPECT_MIN <= a <= ASPECT_MAX for a in _proportions(scene))
    read = read_train_cards(scene.image)
    assert len(read) == len(_SIX)
    assert all(card is not None and card.colour == colour for colour, card in _matches(scene, read))


def _rows_at_a_steep_slant(degrees: float, distance: float) -> Scene:
    """Three rows of four cards on a dark table, seen from ``degrees`` off straight down and
    ``distance`` picture widths away: the far row is a fraction of the near one's size."""
    rows = [
        render_scene(
            SceneSpec(
                width=960,
                height=240,
                cards=colours,
                layout="row",
                card_width_px=100,
                rotation_deg=0.0,
                row_gap_px=50,
                seed=seed,
            )
        )
        for seed, colours in enumerate(
            (
                ("red", "blue", "green", "yellow"),
                ("black", "orange", "white", "purple"),
                ("green", "red", "yellow", "blue"),
            )
        )
    ]
    cards = tuple(
        CardTruth(card.colour, tuple((x, y + 240 * i) for x, y in card.corners))
        for i, row in enumerate(rows)
        for card in row.cards
    )
    table = Scene(rows[0].spec, np.vstack([row.image for row in rows]), cards, ())
    return seen_at_a_slant(table, degrees, distance)


def test_a_far_row_much_smaller_than_the_near_one_is_found() -> None:
    """A camera at a slant close to the table: the far row is 0.31 of the near row's area, under
    the 0.4 of the cards found below which an outline is a shape printed on a card. The size the
    near rows' cards give the far row tells its cards from shapes (before: 8 of 12 found, the far
    row lost)."""
    scene = _rows_at_a_steep_slant(50, 1.0)
    areas = [cv2.contourArea(np.asarray(c.corners, np.float32)) for c in scene.cards]
    assert min(areas) / max(areas) == pytest.approx(0.31, abs=0.01)
    read = read_train_cards(scene.image)
    matched = _matches(scene, read)
    far = [card for (_, card), area in zip(matched, areas, strict=True) if area < 0.4 * max(areas)]
    assert len(far) == 4
    assert sum(card is not None for card in far) >= 2
    assert sum(card is not None for _, card in matched) >= 10
    assert len(read) == sum(card is not None for _, card in matched)  # nothing else taken
    # never confidently wrong
    assert all(card is None or card.colour in (colour, UNSURE) for colour, card in matched)


def test_a_card_s_size_beyond_the_rows_of_the_cards_found_follows_their_rows() -> None:
    """Cards 80 px across at row 100 and 120 px at row 300: a card at row 0 is 60 px across;
    within their rows the cards found say the size; one row of cards says nothing."""
    from vision.cards import _area_beyond_rows  # the finder's size rule: no public way to ask

    def square(x: float, y: float, side: float) -> npt.NDArray[np.float32]:
        h = side / 2
        return np.asarray([(x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)], "f4")

    def beyond(
        quads: list[npt.NDArray[np.float32]], least: float
    ) -> Callable[[float], float] | None:
        return _area_beyond_rows(quads, [cv2.contourArea(q) for q in quads], least)

    far, near = [square(x, 100, 80) for x in (100, 300)], [square(x, 300, 120) for x in (100, 300)]
    area_at = beyond([*far, *near], least=0.0)
    assert area_at is not None
    assert area_at(0.0) == pytest.approx(60.0**2)
    assert area_at(400.0) == pytest.approx(140.0**2)
    assert area_at(200.0) == math.inf
    # a printed shape among them (far smaller) moves nothing when left out by its size
    with_shape = beyond([*far, *near, square(300, 100, 20)], least=1000.0)
    assert with_shape is not None
    assert with_shape(0.0) == pytest.approx(60.0**2)
    assert beyond([square(x, 300, 120) for x in (100, 300, 500)], least=0.0) is None
    assert beyond(far, least=0.0) is None  # two cards: too few to say


def test_the_slant_is_measured_on_the_cards_themselves() -> None:
    straight = render_scene(
        SceneSpec(width=960, height=720, cards=_SIX, card_width_px=100, rotation_deg=8, seed=4)
    )
    corners = [np.asarray(c.corners, np.float32) for c in straight.cards]
    assert measure_view(corners) == 1.0
    slanted = seen_at_a_slant(straight, 45)
    assert measure_view([np.asarray(c.corners, np.float32) for c in slanted.cards]) == (
        pytest.approx(1.4, abs=0.1)
    )


def test_a_card_shaped_white_much_smaller_than_the_cards_is_not_one_and_says_why() -> None:
    """A Set card's squiggle, or a scrap of paper, is card-shaped and white inside: on real photos
    a squiggle (0.13 of a card) was taken as a card of its own."""
    scene = render_scene(
        SceneSpec(cards=("red", "blue", "green"), layout="row", rotation_deg=0.0, card_width_px=110)
    )
    image = scene.image.copy()
    cv2.rectangle(image, (40, 400), (80, 462), (235, 235, 235), thickness=-1)
    quads, rejected = find_cards_explained(image)
    assert len(quads) == 3
    assert [(r.reason, r.box[:2]) for r in rejected] == [("too_small", (39, 399))]
    assert "much smaller than the other cards" in rejected[0].sentence()


def _terrazzo(seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Six Set-like cards on a terrazzo floor, as in AviH0/Set-Solver's photos 14, 15, 19, 22
    and 24 (bench/real_photos.json): a light grey ground set with chips of grey and of white
    marble as bright as the cards, which run into the cards' edges on every side."""
    rng = np.random.default_rng(seed)
    img = np.full((720, 1280, 3), (196, 200, 202), np.uint8)
    img = np.clip(img + rng.normal(0, 4, img.shape), 0, 255).astype(np.uint8)
    for _ in range(2600):
        centre = (int(rng.uniform(0, 1280)), int(rng.uniform(0, 720)))
        axes = (int(rng.uniform(3, 14)), int(rng.uniform(2, 9)))
        grey = int(rng.uniform(110, 170)) if rng.uniform() < 0.6 else int(rng.uniform(220, 245))
        cv2.ellipse(img, centre, axes, rng.uniform(0, 180), 0, 360, (grey, grey + 3, grey + 5), -1)
    boxes = []
    for cx, cy in [(330, 190), (640, 190), (950, 190), (330, 520), (640, 520), (950, 520)]:
        centre = (cx + rng.uniform(-15, 15), cy + rng.uniform(-15, 15))
        box = cv2.boxPoints((centre, (150, 232), rng.uniform(-10, 10))).astype(np.int32)
        cv2.fillConvexPoly(img, box, (232, 234, 235), cv2.LINE_AA)
        cv2.ellipse(img, (cx, cy), (30, 18), 0, 0, 360, (60, 140, 40), 3, cv2.LINE_AA)
        boxes.append(box)
    return np.asarray(cv2.GaussianBlur(img, (0, 0), 1.0), np.uint8), boxes


def test_cards_on_terrazzo_are_found_inside_their_edges_cut_from_the_chips() -> None:
    # The chips' edges run into each card's edge, so its outline is ragged and the region inside
    # its edge leaks out through the gaps into the floor; shrunk by 3 px, the inside is cut
    # from the floor and card-shaped. Before, 37 of these 48 cards were found.
    results = [
        _found_and_false(find_card_quads(img), boxes) for img, boxes in map(_terrazzo, range(8))
    ]
    assert sum(found for found, _ in results) >= 44
    assert sum(false for _, false in results) == 0


def test_blank_card_shaped_paper_is_not_a_card_and_says_why() -> None:
    """A train card always has its picture. A card-shaped piece of blank paper, or a white square
    of a chessboard seen at a slant (on the real marker photos 48 false cards were taken, 22 are
    now), has nothing printed on it."""
    scene = render_scene(
        SceneSpec(cards=("red", "blue", "green"), layout="row", rotation_deg=0.0, card_width_px=110)
    )
    image = scene.image.copy()
    cv2.rectangle(image, (400, 360), (570, 470), (236, 236, 236), thickness=-1)  # 640 × 480
    quads, rejected = find_cards_explained(image)
    assert len(quads) == 3
    assert [(r.reason, r.box[:2]) for r in rejected] == [("blank", (399, 359))]
    assert "nothing printed in its middle" in rejected[0].sentence()
    # The same paper with a small shape printed on it is taken.
    cv2.circle(image, (485, 415), 12, (40, 40, 190), thickness=-1)
    assert len(find_card_quads(image)) == 4


_SIX_PLACES = [(330, 190), (640, 190), (950, 190), (330, 520), (640, 520), (950, 520)]
Paint = Callable[[np.ndarray, np.ndarray, tuple[float, float]], None]


def _six_on_a_light_table(
    seed: int,
    levels: tuple[float, float],
    tint: tuple[float, float, float],
    size: tuple[float, float],
    paint: Paint,
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Six cards of ``size`` on a light table whose grey runs from ``levels[0]`` at the top to
    ``levels[1]`` at the bottom, ``tint`` added per channel (BGR): each card's box (turned up to
    10°) is painted by ``paint(img, box, centre)``."""
    rng = np.random.default_rng(seed)
    rows = np.linspace(levels[0], levels[1], 720)[:, None, None]
    img = np.broadcast_to(rows + np.asarray(tint), (720, 1280, 3))
    img = np.clip(img + rng.normal(0, 2, img.shape), 0, 255).astype(np.uint8)
    boxes = []
    for cx, cy in _SIX_PLACES:
        centre = (cx + rng.uniform(-15, 15), cy + rng.uniform(-15, 15))
        box = cv2.boxPoints((centre, size, rng.uniform(-10, 10))).astype(np.int32)
        paint(img, box, centre)
        boxes.append(box)
    return np.asarray(cv2.GaussianBlur(img, (0, 0), 1.2), np.uint8), boxes


def _white_table(seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Six Set-like cards on a white table, as in AviH0/Set-Solver's photo 21: the table a little
    brighter than the cards (the light falls off towards the far side and over the cards' cut
    edges), each card outlined by the thin grey line of its cut edge and a soft shadow on two
    sides."""

    def paint(img: np.ndarray, box: np.ndarray, centre: tuple[float, float]) -> None:
        cv2.fillConvexPoly(img, box + np.asarray([3, 4], np.int32), (175, 178, 180), cv2.LINE_AA)
        cv2.fillConvexPoly(img, box, (222, 224, 225), cv2.LINE_AA)
        cv2.polylines(img, [box], True, (196, 198, 200), 1, cv2.LINE_AA)
        middle = (round(centre[0]), round(centre[1]))
        cv2.ellipse(img, middle, (30, 18), 0, 0, 360, (60, 140, 40), 3, cv2.LINE_AA)

    return _six_on_a_light_table(seed, (236.0, 222.0), (0.0, 2.0, 3.0), (150, 232), paint)


def test_cards_on_a_white_table_are_found_by_their_edges() -> None:
    # The table is as white as the cards or whiter: no margin is brighter than what it lies on,
    # and the white masks see one sheet. On a table that light, a clean card-shaped outline
    # whose sides are straight edges either way and whose margin is about as light as the table
    # is a card. Before, none of these 48 were found, and the insides of 6 printed ovals were
    # taken for cards.
    results = [_found_and_false(find_card_quads(img), b) for img, b in map(_white_table, range(8))]
    assert sum(found for found, _ in results) >= 40
    assert sum(false for _, false in results) == 0


def _lit_from_the_far_side(seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Six Set-like cards on a light grey table as in AviH0/Set-Solver's photo 21: each card is
    as light as the table, its cut edge a thin grey line and a soft shadow on the near sides,
    and on the side towards the light no line at all (the edges are a U, not a ring)."""

    def paint(img: np.ndarray, box: np.ndarray, centre: tuple[float, float]) -> None:
        cv2.fillConvexPoly(img, box + np.asarray([3, 4], np.int32), (190, 192, 194), cv2.LINE_AA)
        cv2.fillConvexPoly(img, box, (226, 228, 229), cv2.LINE_AA)
        top = int(np.argmin(box[:, 1] + np.roll(box[:, 1], -1)))  # the side from top to top + 1
        u = np.asarray([box[(top + k) % 4] for k in range(1, 5)], np.int32)
        cv2.polylines(img, [u], False, (185, 187, 189), 1, cv2.LINE_AA)
        middle = (round(centre[0]), round(centre[1]))
        cv2.ellipse(img, middle, (30, 18), 0, 0, 360, (60, 140, 40), 3, cv2.LINE_AA)

    return _six_on_a_light_table(seed, (228.0, 228.0), (0.0, 0.0, 0.0), (150, 232), paint)


def test_a_card_whose_edge_shows_on_three_sides_only_is_found() -> None:
    # On a light table the side of a card towards the light has no edge: the edges are a U,
    # whose outline is ragged (its inside runs out through the open side). Its hull is the
    # card when the edges run along three of its sides. Before, none of these 48 was found.
    results = [
        _found_and_false(find_card_quads(i), b) for i, b in map(_lit_from_the_far_side, range(8))
    ]
    assert sum(found for found, _ in results) == 48
    assert sum(false for _, false in results) == 0


def _lit_from_a_corner(seed: int, printed: bool = True) -> tuple[np.ndarray, list[np.ndarray]]:
    """Six Set-like cards on a grey table lit from one corner, as in GorgeousOne/
    Set-Card-Detection-js's test12: each card as light as the table, its two sides away from the
    light a thin shadow, and the two towards it no line at all (the edges are an L). With
    ``printed`` False the cards are blank: two lines meeting at a right angle on the table."""

    def paint(img: np.ndarray, box: np.ndarray, centre: tuple[float, float]) -> None:
        cv2.fillConvexPoly(img, box, (205, 205, 206), cv2.LINE_AA)
        corner = int(np.argmax(box[:, 1] - box[:, 0]))  # the bottom left, away from the light
        arms = [box[(corner - 1) % 4], box[corner], box[(corner + 1) % 4]]
        cv2.polylines(img, [np.asarray(arms, np.int32)], False, (172, 173, 175), 2, cv2.LINE_AA)
        if printed:
            middle = (round(centre[0]), round(centre[1]))
            cv2.ellipse(img, middle, (30, 18), 0, 0, 360, (60, 140, 40), 3, cv2.LINE_AA)

    return _six_on_a_light_table(seed, (206.0, 200.0), (0.0, 0.0, 0.0), (150, 232), paint)


def test_a_card_whose_edge_shows_on_two_sides_only_is_found() -> None:
    # Lit from one corner, a card on a light table shows its edge on the two sides away from
    # the light only: an L, whose hull is a right triangle. The card is the parallelogram of
    # its two arms when the edges run along both; it must then be printed, as light as the
    # table, with straight edges on those two sides. Before, none of these 48 was found
    # (test12: 4 of 15 found, now 9). Two bare lines meeting at a right angle are no card.
    results = [
        _found_and_false(find_card_quads(i), b) for i, b in map(_lit_from_a_corner, range(8))
    ]
    assert sum(found for found, _ in results) == 48
    assert sum(false for _, false in results) == 0
    assert all(
        find_card_quads(_lit_from_a_corner(seed, printed=False)[0]) == [] for seed in range(4)
    )


def _in_soft_light(seed: int, printed: bool = True) -> tuple[np.ndarray, list[np.ndarray]]:
    """Six Set-like cards on an off-white table in soft light, as in GorgeousOne/
    Set-Card-Detection-js's test12: each card as light as the table, its cut edge only a thin
    line a few grey levels darker than the paper either side (at the finding scale 3-4 levels
    on the two sides towards the light, 5 on the two away from it, as measured there: 2-4 and
    5-8), no step anywhere. With ``printed`` False the cards are blank."""

    def paint(img: np.ndarray, box: np.ndarray, centre: tuple[float, float]) -> None:
        corner = int(np.argmax(box[:, 1] - box[:, 0]))  # the bottom left, away from the light
        for k in range(4):
            level = 226.0 - (10.0 if k in ((corner - 1) % 4, corner) else 6.0)
            ends = [tuple(int(v) for v in box[k]), tuple(int(v) for v in box[(k + 1) % 4])]
            cv2.line(img, ends[0], ends[1], (level, level, level), 2, cv2.LINE_AA)
        if printed:
            middle = (round(centre[0]), round(centre[1]))
            cv2.ellipse(img, middle, (30, 18), 0, 0, 360, (60, 140, 40), 3, cv2.LINE_AA)

    return _six_on_a_light_table(seed, (228.0, 224.0), (0.0, 1.0, 2.0), (150, 232), paint)


def test_cards_whose_edge_is_only_a_faint_line_are_found() -> None:
    # In soft light a white card on an off-white table has no edge a step can find, nor a margin
    # brighter than the table: only the thin shadow line of its cut edge. A light table's thin
    # dark lines are looked at last: an outline there with a card's shape, as light as the
    # table, printed, with a line or a step along its sides and a line along one side at least,
    # is a card. Before, none of these 48 was found (on test12, 9 of 15; now 11).
    results = [_found_and_false(find_card_quads(i), b) for i, b in map(_in_soft_light, range(8))]
    assert sum(found for found, _ in results) >= 36
    assert sum(false for _, false in results) == 0
    # Blank paper outlined so is no card.
    assert all(find_card_quads(_in_soft_light(seed, printed=False)[0]) == [] for seed in range(4))


def test_on_a_table_covered_in_faint_lines_they_are_not_looked_at() -> None:
    # Terrazzo or grained light wood is covered in thin dark lines (AviH0/Set-Solver's floor:
    # 17-29 % of the picture, where the tables the lines found cards on had 5-14 %): there an
    # outline of lines is the floor's, and looking at them all took 5-13 ms more a frame.
    from vision.cards import _line_mask  # the look's own mask: no public way to see it

    rng = np.random.default_rng(3)
    floor = np.full((360, 640), 200, np.uint8)
    for _ in range(3000):  # chips' rims on 21 % of the picture
        x, y = (int(v) for v in rng.integers(0, (640, 360)))
        cv2.circle(floor, (x, y), int(rng.integers(2, 6)), 185, 1)
    assert _line_mask(floor) is None
    plain = np.full((360, 640), 200, np.uint8)
    cv2.rectangle(plain, (200, 100), (275, 216), 193, 1)
    lines = _line_mask(plain)
    assert lines is not None and lines[100, 240] == 255 and lines[50, 50] == 0


def _black_bordered(seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Six cards of a printing with a black border on a light table, as tmikonen/
    magic_card_detector's photo of Magic cards on pale wood: no white margin, a dark picture
    running up to the border, a light text box with a red die on it."""

    def paint(img: np.ndarray, box: np.ndarray, centre: tuple[float, float]) -> None:
        rng = np.random.default_rng(round(centre[0] * 7 + centre[1]))
        cv2.fillConvexPoly(img, box + np.asarray([3, 4], np.int32), (150, 160, 170), cv2.LINE_AA)
        cv2.fillConvexPoly(img, box, (28, 26, 26), cv2.LINE_AA)  # the black border
        c = np.asarray(centre)
        inner = np.rint(c + (box - c) * 0.93).astype(np.int32)
        picture = np.full_like(img, (45, 50, 60))
        for _ in range(120):  # blotches of a dark picture
            at = (round(c[0] + rng.uniform(-62, 62)), round(c[1] + rng.uniform(-92, 92)))
            g = rng.uniform(40, 200)
            cv2.circle(picture, at, round(rng.uniform(4, 14)), (g * 0.6, g * 0.7, g), -1)
        inside = np.zeros(img.shape[:2], np.uint8)
        cv2.fillConvexPoly(inside, inner, (255,), cv2.LINE_AA)
        img[inside > 0] = picture[inside > 0]
        x, y = round(c[0]), round(c[1])
        cv2.rectangle(img, (x - 55, y + 35), (x + 55, y + 85), (170, 200, 215), -1)
        cv2.circle(img, (x + 10, y + 50), 22, (40, 40, 190), -1)

    return _six_on_a_light_table(seed, (205.0, 195.0), (-25.0, 0.0, 20.0), (150, 210), paint)


def test_cards_of_a_black_bordered_printing_on_a_light_table_are_found_and_unsure() -> None:
    # A card with a black border has no white margin to find it by: when the deck's printing
    # is black-bordered, on a light table it is also looked for where the picture is dark,
    # with a thin dark band along its edge and a lighter inside. Before, 3 of these 48 were
    # found. For a white-margined printing they are not looked for (a phone's dark bezel round
    # its lit screen would pass for such a card): only pictures inside borders are taken then.
    # With no white to balance against, none has a colour.
    black = replace(DEFAULT_PALETTE, margin="black")
    results, colours, whole_as_white = [], set(), 0
    for image, boxes in map(_black_bordered, range(8)):
        results.append(_found_and_false(find_card_quads(image, dark_borders=True), boxes))
        colours |= {card.colour for card in read_train_cards(image, black)}
        area = cv2.contourArea(boxes[0].astype(np.float32))
        whole_as_white += sum(cv2.contourArea(q) > 0.93 * area for q in find_card_quads(image))
    assert sum(found for found, _ in results) >= 44
    assert sum(false for _, false in results) == 0
    assert colours == {UNSURE}
    assert whole_as_white == 0


def test_a_card_shaped_region_from_one_edge_of_the_picture_to_the_other_is_no_card() -> None:
    # A portrait picture of a light floor whose top part, cut off by a dark seam between tiles,
    # has a card's proportions and something on it: it runs from the picture's left edge to its
    # right, so it is no whole card (a close-up card covers at most half of the picture), and
    # that is the reason given. On a real photo of cards on terrazzo (AviH0/Set-Solver's photo
    # 22) such a region was taken as a card across the top row; this scene does not reproduce
    # that (here it had no white margin), only the rule and its reason.
    rng = np.random.default_rng(1)
    img = np.clip(np.full((720, 432, 3), 214.0) + rng.normal(0, 2, (720, 432, 3)), 0, 255)
    img = img.astype(np.uint8)
    cv2.line(img, (0, 290), (431, 290), (120, 122, 124), 3)
    cv2.line(img, (0, 20), (431, 20), (120, 122, 124), 3)  # the floor between two seams
    for x, y in [(100, 120), (300, 200), (200, 60)]:
        cv2.circle(img, (x, y), 8, (110, 112, 114), thickness=-1)  # chips
    box = cv2.boxPoints(((216, 520), (100, 155), 0.0)).astype(np.int32)
    cv2.fillConvexPoly(img, box, (236, 237, 238))
    cv2.circle(img, (216, 520), 15, (40, 150, 40), thickness=-1)
    quads, rejected = find_cards_explained(cv2.GaussianBlur(img, (0, 0), 1.0))
    assert [_found_and_false(quads, [box])] == [(1, 0)]
    assert [(r.reason, r.box[:2]) for r in rejected] == [("not_card_shaped", (0, 24))]
    # Meeting three of the picture's edges, the region is the table itself: nothing to say.
    cv2.line(img, (0, 20), (431, 20), (214, 214, 214), 3)
    quads, rejected = find_cards_explained(cv2.GaussianBlur(img, (0, 0), 1.0))
    assert [_found_and_false(quads, [box])] == [(1, 0)]
    assert all(r.box[:2] != (0, 0) for r in rejected), rejected


def _cream_table(seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Six Set-like cards on a cream table, as in AviH0/Set-Solver's photo 17: the cards' paper
    neutral white and as light as the table (a level or two darker), a soft shadow only on the
    far side, so that the near sides have no edge at all in the grey picture."""

    def paint(img: np.ndarray, box: np.ndarray, centre: tuple[float, float]) -> None:
        level = float(img[round(centre[1]), round(centre[0])].max()) - 3.0
        cv2.fillConvexPoly(img, box - 3, (level - 25.0,) * 3, cv2.LINE_AA)  # the far side's shadow
        cv2.fillConvexPoly(img, box, (level, level + 1.0, level + 1.0), cv2.LINE_AA)
        middle = (round(centre[0]), round(centre[1]))
        cv2.ellipse(img, middle, (34, 20), 0, 0, 360, (60, 140, 40), -1, cv2.LINE_AA)

    return _six_on_a_light_table(seed, (214.0, 226.0), (-13.0, 0.0, 3.0), (232, 150), paint)


def test_cards_on_a_cream_table_are_found_by_being_less_saturated_than_it() -> None:
    # The edges see three sides of each card and the white masks one sheet; the card is neutral
    # on a tinted table. Before, 29 of these 48 were found.
    results = [_found_and_false(find_card_quads(img), b) for img, b in map(_cream_table, range(8))]
    assert sum(found for found, _ in results) >= 46
    assert sum(false for _, false in results) == 0
    # The same cards with the table as neutral as they are (no tint to go by) are not taken for
    # something else either.
    for seed in range(2):
        img, boxes = _cream_table(seed)
        grey = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        assert _found_and_false(find_card_quads(grey), boxes)[1] == 0


def test_on_a_light_table_what_was_not_taken_is_said_card_by_card() -> None:
    # The light table is one region of the white masks, larger than half the picture: it was
    # reported as an outline "too close" (move the camera back), and, covering everything, it
    # hid every other reason. A blank piece of paper among the cards is said to be blank.
    img, boxes = _cream_table(0)
    img = img.copy()
    cv2.rectangle(img, (545, 296), (735, 418), (224, 226, 226), thickness=-1)
    quads, rejected = find_cards_explained(cv2.GaussianBlur(img, (0, 0), 1.0))
    assert _found_and_false(quads, boxes) == (6, 0)
    assert "too_close" not in [r.reason for r in rejected]
    assert [(r.reason, r.box[:2]) for r in rejected] == [("blank", (546, 298))]


def test_a_coloured_field_whose_margin_dim_light_hides_is_not_a_card_on_a_white_table() -> None:
    # In dim light, under blur, an orange card's white margin is lost against the light table;
    # its field's own edge is a clean, straight outline as light as the table within a few grey
    # levels. Taken as a card, its margin ring was the field and it read yellow at 0.96 (the
    # benchmark's scene: light table, dim light, blur 1.5, seed 6). Its ring is saturated.
    rng = np.random.default_rng(6)
    colours = tuple(str(c) for c in rng.choice(CARD_CLASSES, 3))
    scene = render_scene(
        SceneSpec(background="light", light="dim", cards=colours, blur_sigma=1.5, tilt=0.1, seed=6)
    )
    for card in read_train_cards(scene.image):
        truth = min(
            scene.cards,
            key=lambda t: float(
                np.linalg.norm(np.mean(t.corners, axis=0) - np.mean(card.corners, axis=0))
            ),
        )
        assert card.colour in (truth.colour, UNSURE), (truth.colour, card)


@pytest.mark.parametrize("background", ["dark", "wood", "light", "cloth"])
@pytest.mark.parametrize("light", ["neutral", "warm"])
def test_a_pale_card_is_not_read_as_a_colour_a_light_makes(background: str, light: str) -> None:
    """Issue 19, photos never tuned on: a pale card whose hue lies on the line a light's colour
    moves hues along (a red outline under tungsten read orange, Set's green outlines yellow,
    Set's violet blue) is unsure; the deck's own yellow and blue, strongly coloured, are read
    as before. This pale ink (chroma about 0.2 after white balance) read orange before."""
    scene = render_scene(
        SceneSpec(
            width=1280,
            height=720,
            background=background,  # type: ignore[arg-type]
            light=light,  # type: ignore[arg-type]
            cards=("orange", "blue", "yellow"),
            inks=(("orange", (214, 170, 140)),),
            layout="row",
        )
    )
    reads = [read for _, read in _matches(scene, read_train_cards(scene.image))]
    assert all(read is not None for read in reads), reads
    pale, blue, yellow = reads
    assert pale is not None and pale.colour == UNSURE, pale
    assert blue is not None and blue.colour == "blue", blue
    assert yellow is not None and yellow.colour == "yellow", yellow


# The finder makes its edges' and a light table's masks on a helper thread beside its own
# (vision.cards._Helper): one helper for every finder in the process.


def _finding_cases() -> list[tuple[npt.NDArray[np.uint8], float, bool]]:
    """Frames that take each of the finder's ways: a dark table, a light one (its extra masks),
    a grainy one (busy edges), a slanted view (the second look at far rows), black borders."""
    dark = render_scene(SceneSpec(background="dark", cards=("red", "blue", "white"), seed=1))
    light = render_scene(SceneSpec(background="light", cards=("green", "white", "black"), seed=2))
    grainy = render_scene(SceneSpec(background="leather", cards=("yellow", "orange"), seed=3))
    noise = np.random.default_rng(3).normal(0.0, 12.0, grainy.image.shape)
    grain = np.clip(grainy.image + noise, 0, 255).astype(np.uint8)
    slanted = seen_at_a_slant(
        render_scene(
            SceneSpec(width=960, height=720, cards=_SIX, card_width_px=100, rotation_deg=8, seed=3)
        ),
        45,
    )
    black = render_scene(
        SceneSpec(background="light", cards=("blue", "red"), margin=(25, 25, 28), seed=5)
    )
    return [
        (dark.image, 1.0, False),
        (light.image, 1.0, False),
        (grain, 1.0, False),
        (slanted.image, 1.0, False),
        (black.image, 1.0, True),
    ]


def _found(
    case: tuple[npt.NDArray[np.uint8], float, bool],
) -> tuple[list[list[float]], list[object]]:
    quads, reasons = find_cards_explained(*case)
    return [q.ravel().tolist() for q in quads], [(r.reason, r.box) for r in reasons]


def test_finders_on_several_threads_at_once_find_what_each_finds_alone() -> None:
    cases = _finding_cases()
    alone = [_found(case) for case in cases]
    assert all(quads for quads, _ in alone)
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(_found, cases * 4))
    assert together == alone * 4


def test_a_forked_process_finds_cards_with_a_helper_of_its_own() -> None:
    # A forked child has no helper thread (only the thread that forked is copied): without a
    # helper of its own, its finder would wait for ever.
    image, view, dark = _finding_cases()[0]
    expected = len(find_card_quads(image, view, dark))  # the helper runs here now
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        try:
            os.write(write_end, str(len(find_card_quads(image, view, dark))).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    try:
        ready, _, _ = select.select([read_end], [], [], 60.0)
        answer = os.read(read_end, 16) if ready else b""
    finally:
        os.close(read_end)
        if not answer:
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    assert answer == str(expected).encode()
