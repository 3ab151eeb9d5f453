"""Knockout brackets (淘汰赛): sizes, seeding, the draw with byes and unit separation, the lots of a physical draw, and the plan of every match with its feeders and the 季军争夺战.

Pure rules, no Django: plain values in, frozen dataclasses (or lists) out."""

from __future__ import annotations

import heapq
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from guandan_cup.errors import N_
from tournaments.draw.rules.common import (
    FINAL_NAME,
    SEMI_FINAL_NAME,
    THIRD_PLACE_NAME,
    DrawError,
    checked_seeds,
    entry_list,
    unit_key,
    whole_number_or_none,
)


def _is_power_of_two(value) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and value >= 1
        and not (value & (value - 1))
    )


def bracket_size(n: int) -> int:
    """The smallest power of two ≥ n: the number of first-round slots for n entries."""
    if n < 2:
        raise DrawError("too_few_entries", N_("至少需要2个参赛队才能抽签，现在只有%(n)s个。"), n=n)
    return 1 << (n - 1).bit_length()


def seed_order(size: int) -> list[int]:
    """The seed number that belongs in each slot of a seeded bracket of ``size`` slots.

    Built by doubling: from the order for ``m`` slots, each seed ``s`` becomes the pair
    ``(s, 2m + 1 - s)`` — the best seed meets the worst — with the pair written the other way
    round at every second position. Size 8 gives [1, 8, 5, 4, 3, 6, 7, 2]. Consequences the
    draw relies on: seeds 1 and 2 are in opposite halves, seeds 1–4 in different quarters, and
    in general any block of seed numbers ``j·q + 1 … (j + 1)·q`` has exactly one member in each
    of the ``q`` sections of the bracket — so the byes (the highest seed numbers) are spread
    evenly too.
    """
    if not _is_power_of_two(size):
        raise ValueError(f"bracket size must be a power of two, not {size!r}")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        doubled: list[int] = []
        for i, seed in enumerate(order):
            doubled += [seed, total - seed] if i % 2 == 0 else [total - seed, seed]
        order = doubled
    return order


def ranked_order(size: int) -> list[int]:
    """The rank that belongs in each slot when a knockout is seeded by a ranking (the Swiss
    top K): each rank ``s`` meets ``2m + 1 - s``, the better one first, the halves built
    the same way. Size 8 gives [1, 8, 4, 5, 2, 7, 3, 6]: 1–8 and 4–5 in the top half, 2–7
    and 3–6 in the bottom, so 1 and 2 meet only in the final and 1–4 not before the
    semi-finals — the same pairs as :func:`seed_order`, written as a draw sheet lists them."""
    if not _is_power_of_two(size):
        raise ValueError(f"bracket size must be a power of two, not {size!r}")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [rank for seed in order for rank in (seed, total - seed)]
    return order


def slots_by_rank(ranking: Sequence) -> list:
    """The first-round slots of a knockout of the entries of ``ranking`` (best first),
    placed by :func:`ranked_order`; ``None`` (a bye) faces the best ranks when the field is
    not a power of two."""
    ranking = entry_list(ranking)
    size = bracket_size(len(ranking))
    return [ranking[rank - 1] if rank <= len(ranking) else None for rank in ranked_order(size)]


def knockout_rounds(size: int) -> int:
    """Rounds of a knockout over ``size`` slots (log2 size)."""
    if not _is_power_of_two(size) or size < 2:
        raise ValueError(f"bracket size must be a power of two ≥ 2, not {size!r}")
    return size.bit_length() - 1


def round_name(round_number: int, total_rounds: int) -> str:
    """决赛, 半决赛, 1/4决赛, 1/8决赛 … counted back from the last round."""
    if not 1 <= round_number <= total_rounds:
        raise ValueError(f"round {round_number} outside 1..{total_rounds}")
    still_to_play = total_rounds - round_number
    if still_to_play == 0:
        return FINAL_NAME
    if still_to_play == 1:
        return SEMI_FINAL_NAME
    return f"1/{2**still_to_play}决赛"


def next_match(round_number: int, index: int) -> tuple[int, int, str]:
    """Where the winner of round r, match i (0-based) plays next, and on which side."""
    if round_number < 1 or index < 0:
        raise ValueError(f"no match {index} in round {round_number}")
    return round_number + 1, index // 2, "home" if index % 2 == 0 else "away"


def third_place_feeders(total_rounds: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The two semi-finals (round, index) whose losers meet in the 季军争夺战."""
    if total_rounds < 2:
        raise ValueError("a knockout of one round has no semi-finals")
    return (total_rounds - 1, 0), (total_rounds - 1, 1)


def _meeting_round(slot_a: int, slot_b: int) -> int:
    """The round in which the entries of two first-round slots would meet (1 = first round)."""
    return (slot_a ^ slot_b).bit_length()


def draw_knockout(
    entries: Sequence,
    *,
    seeds: Mapping | None = None,
    units: Mapping | None = None,
    rng: random.Random,
) -> list:
    """A random draw (系统抽签): the first-round slots, ``None`` for a bye.

    Seeded entries take their standard slots (:func:`seed_order`); the byes take the slots
    whose seed number is above the field size, i.e. opposite seeds 1, 2, 3 …, so byes are only
    in round 1 and never face each other; the unseeded entries fill the rest from ``rng``.

    Keeping a unit's entries apart (``units``: entry → unit name): the bracket is filled top
    down, each section's entries divided between its two halves so that as few pairs of
    same-unit entries as possible share a half (a greedy choice that is exact for this sum of
    convex costs; the order among equal choices is random). Guaranteed:

    - without seeds, a unit with c entries has at most ⌈c / 2^d⌉ of them in any 1/2^d of the
      bracket: two are in opposite halves, up to four in different quarters …, and no two
      meet in round 1 while c ≤ half the bracket;
    - with seeds, the same balancing is done around the seeded places, then a last pass swaps
      entries so that two entries of one unit never meet in round 1 unless every draw with
      those seeds has such a match (the swap is taken in the smallest section possible).

    With no units and no seeds every arrangement of the entries is equally likely. The result
    depends only on the input order and the state of ``rng``: the same seed gives the same draw.
    """
    entries = entry_list(entries)
    n = len(entries)
    size = bracket_size(n)
    seed_of = checked_seeds(seeds, entries)
    order = seed_order(size)
    slot_of_seed = {seed: slot for slot, seed in enumerate(order)}
    unit_of = {entry: unit_key(entry, i, units) for i, entry in enumerate(entries)}

    slots: list = [None] * size
    for entry, seed in seed_of.items():
        slots[slot_of_seed[seed]] = entry
    movable = [seed <= n and slots[slot] is None for slot, seed in enumerate(order)]
    fixed_unit = [unit_of[entry] if entry is not None else None for entry in slots]
    free_before = [0]
    for is_free in movable:
        free_before.append(free_before[-1] + is_free)

    def place(lo: int, hi: int, pool: list) -> None:
        if not pool:
            return
        if hi - lo == 1:
            slots[lo] = pool[0]
            return
        mid = (lo + hi) // 2
        left_places = free_before[mid] - free_before[lo]
        if left_places == 0:
            place(mid, hi, pool)
        elif left_places == len(pool):
            place(lo, mid, pool)
        else:
            left = _divide(pool, left_places, unit_of, fixed_unit[lo:mid], fixed_unit[mid:hi], rng)
            place(lo, mid, [entry for entry in pool if entry in left])
            place(mid, hi, [entry for entry in pool if entry not in left])

    place(0, size, [entry for entry in entries if entry not in seed_of])
    if units:
        _separate_first_round(slots, movable, unit_of, rng)
    return slots


def _divide(pool, left_places, unit_of, fixed_left, fixed_right, rng) -> set:
    """Which entries of ``pool`` go to the left half: each unit split as evenly as possible.

    Cost of a half holding k entries of one unit: k(k-1)/2 same-unit pairs. Adding the x-th
    entry of a unit to the left changes the cost by a marginal amount that grows with x, so
    taking the cheapest marginal step ``left_places`` times is optimal (separable convex).
    """
    members: dict = {}
    for entry in pool:
        members.setdefault(unit_of[entry], []).append(entry)
    in_left = Counter(key for key in fixed_left if key is not None)
    in_right = Counter(key for key in fixed_right if key is not None)

    def marginal(key, taken: int) -> int:
        count = len(members[key])
        # (left pairs gained) - (right pairs lost) when one more goes left
        return (in_left[key] + taken) - (in_right[key] + count - taken - 1)

    units = list(members)
    heap = [(marginal(key, 0), rng.random(), i) for i, key in enumerate(units)]
    heapq.heapify(heap)
    taken = [0] * len(units)
    for _ in range(left_places):
        _, tie, i = heapq.heappop(heap)
        taken[i] += 1
        if taken[i] < len(members[units[i]]):
            heapq.heappush(heap, (marginal(units[i], taken[i]), tie, i))
    left: set = set()
    for i, key in enumerate(units):
        group = members[key]
        if taken[i] == len(group):
            left.update(group)
        elif taken[i]:
            left.update(rng.sample(group, taken[i]))
    return left


def _separate_first_round(slots: list, movable: list, unit_of: dict, rng) -> None:
    """Swap away every first-round match between two entries of one unit that can be avoided.

    A swap moves one of the two (an unseeded one) to a slot whose entry is of another unit
    and whose opponent is not of this unit; nothing else changes, so no new clash appears.
    If no such slot exists anywhere, every match with a free place already holds an entry of
    this unit, and the clash cannot be avoided with these seeds.
    """
    size = len(slots)

    def unit(slot: int):
        entry = slots[slot]
        return None if entry is None else unit_of[entry]

    for home in range(0, size, 2):
        if slots[home] is None or slots[home + 1] is None or unit(home) != unit(home + 1):
            continue
        clash = unit(home)
        for victim in (home + 1, home):
            if not movable[victim]:
                continue
            span = 4
            swapped = False
            while span <= size and not swapped:
                start = victim - victim % span
                half = span // 2
                sibling = start + half if victim - start < half else start
                candidates = [
                    slot
                    for slot in range(sibling, sibling + half)
                    if movable[slot] and unit(slot) != clash and unit(slot ^ 1) != clash
                ]
                if candidates:
                    other = rng.choice(candidates)
                    slots[victim], slots[other] = slots[other], slots[victim]
                    swapped = True
                span *= 2
            if swapped:
                break


def physical_draw(lots: Mapping, size: int | None = None) -> list:
    """The result of a draw made at the meeting (现场抽签): entry → lot number, lot k = slot k.

    Empty slots are byes. ``size`` defaults to the smallest bracket for the field.
    """
    if len(lots) < 2:
        raise DrawError(
            "too_few_entries", N_("至少需要2个参赛队才能抽签，现在只有%(lots)s个。"), lots=len(lots)
        )
    if size is None:
        size = bracket_size(len(lots))
    elif not _is_power_of_two(size) or size < 2:
        raise DrawError(
            "invalid_size", N_("签位数必须是2、4、8、16……，不能是%(size)s。"), size=size
        )
    elif size < len(lots):
        raise DrawError(
            "size_too_small",
            N_("%(lots)s个参赛队放不进%(size)s个签位。"),
            lots=len(lots),
            size=size,
        )
    slots: list = [None] * size
    for entry, raw in lots.items():
        lot = whole_number_or_none(raw)
        if lot is None:
            raise DrawError(
                "invalid_lot", N_("%(entry)s的签号“%(raw)s”不是整数。"), entry=repr(entry), raw=raw
            )
        if not 1 <= lot <= size:
            raise DrawError(
                "lot_out_of_range",
                N_("%(entry)s的签号%(lot)s不在1到%(size)s之间。"),
                entry=repr(entry),
                lot=lot,
                size=size,
            )
        if slots[lot - 1] is not None:
            raise DrawError(
                "duplicate_lot",
                N_("%(lot)s号签被%(slots)s和%(entry)s重复使用。"),
                lot=lot,
                slots=repr(slots[lot - 1]),
                entry=repr(entry),
            )
        slots[lot - 1] = entry
    empty_matches = [
        f"{home + 1}号和{home + 2}号"
        for home in range(0, size, 2)
        if slots[home] is None and slots[home + 1] is None
    ]
    if empty_matches:
        raise DrawError(
            "bye_against_bye",
            f"签位{'、'.join(empty_matches)}都是空位（轮空对轮空），请调整签号，"
            "使每场首轮比赛至少有一个参赛队。",
        )
    return slots


@dataclass(frozen=True)
class Feeder:
    """A place filled later: the winner (or loser) of round ``round``, match ``index``."""

    round: int
    index: int
    outcome: Literal["winner", "loser"]


@dataclass(frozen=True)
class PlannedMatch:
    """One match of the plan. ``home``/``away``: an entry, ``None`` (a bye) or a :class:`Feeder`."""

    round: int
    index: int
    name: str
    home: object
    away: object
    bye: bool = False  # a first-round match against a bye: not played, its entry goes through
    third_place: bool = False


@dataclass(frozen=True)
class KnockoutPlan:
    size: int
    slots: tuple
    total_rounds: int  # rounds of the full bracket (round names count back from its final)
    rounds: int  # rounds this plan plays: fewer with stop_at
    matches: tuple[PlannedMatch, ...]
    advancing: tuple = ()  # with stop_at: the K places that go on, in bracket order

    def match(self, round_number: int, index: int) -> PlannedMatch:
        for match in self.matches:
            if match.round == round_number and match.index == index:
                return match
        raise KeyError((round_number, index))

    def round_matches(self, round_number: int) -> list[PlannedMatch]:
        return [match for match in self.matches if match.round == round_number]

    @property
    def placings(self) -> tuple[tuple[int, object], ...]:
        """(place, source) for places 1–4; two 3rds (并列第三) without a third-place match."""
        if self.advancing or self.rounds < self.total_rounds:
            return ()
        final = self.rounds
        places: list[tuple[int, object]] = [
            (1, Feeder(final, 0, "winner")),
            (2, Feeder(final, 0, "loser")),
        ]
        third = [m for m in self.matches if m.third_place]
        if third:
            places += [(3, Feeder(final, 1, "winner")), (4, Feeder(final, 1, "loser"))]
        elif final >= 2:
            for semi in self.round_matches(final - 1):
                if not semi.bye:
                    places.append((3, Feeder(final - 1, semi.index, "loser")))
        return tuple(places)


def plan_knockout(
    slots: Sequence, *, third_place: bool = True, stop_at: int | None = None
) -> KnockoutPlan:
    """Every match of a knockout from its first-round slots.

    A first-round match against a bye is listed with ``bye=True`` and its entry is written
    straight into round 2. With ``stop_at=K`` (a power of two below the bracket size) the plan
    ends when K entries remain — a preliminary knockout 决出八强 — with no final and no
    third-place match. The 季军争夺战 is round ``total_rounds``, index 1 (the final is index 0);
    with three entries there is none, because one semi-final is a bye: the other's loser is 3rd.
    """
    slots = tuple(slots)
    size = len(slots)
    if not _is_power_of_two(size) or size < 2:
        raise DrawError(
            "invalid_size", N_("签位数必须是2、4、8、16……，不能是%(size)s。"), size=size
        )
    entry_list([entry for entry in slots if entry is not None])
    total = knockout_rounds(size)
    rounds = total
    if stop_at is not None:
        if not _is_power_of_two(stop_at) or not 2 <= stop_at < size:
            raise DrawError(
                "invalid_stop_at",
                f"预赛决出的队数必须是2、4、8……且小于签位数{size}，不能是{stop_at}。",
            )
        rounds = total - knockout_rounds(stop_at)

    matches: list[PlannedMatch] = []
    going_on: list = []
    name = round_name(1, total)
    for i in range(size // 2):
        home, away = slots[2 * i], slots[2 * i + 1]
        if home is None and away is None:
            raise DrawError(
                "bye_against_bye", f"签位{2 * i + 1}号和{2 * i + 2}号都是空位（轮空对轮空）。"
            )
        bye = home is None or away is None
        matches.append(PlannedMatch(1, i, name, home, away, bye=bye))
        going_on.append((away if home is None else home) if bye else Feeder(1, i, "winner"))
    for r in range(2, rounds + 1):
        name = round_name(r, total)
        previous, going_on = going_on, []
        for i in range(len(previous) // 2):
            matches.append(PlannedMatch(r, i, name, previous[2 * i], previous[2 * i + 1]))
            going_on.append(Feeder(r, i, "winner"))

    if stop_at is None and third_place and total >= 2:
        semis = [m for m in matches if m.round == total - 1][:2]
        if not any(semi.bye for semi in semis):
            (r0, i0), (r1, i1) = third_place_feeders(total)
            matches.append(
                PlannedMatch(
                    total,
                    1,
                    THIRD_PLACE_NAME,
                    Feeder(r0, i0, "loser"),
                    Feeder(r1, i1, "loser"),
                    third_place=True,
                )
            )
    return KnockoutPlan(
        size=size,
        slots=slots,
        total_rounds=total,
        rounds=rounds,
        matches=tuple(matches),
        advancing=tuple(going_on) if stop_at is not None else (),
    )
