"""The draw (抽签) and the brackets: knockout, round-robin groups and ranking tables.

Pure rules, no Django: plain values in, frozen dataclasses (or lists) out. Entries are opaque
hashable ids (the app passes ``Entry`` primary keys); nothing here reads a database or settings.

Terms used below:

- 抽签 (draw): deciding who meets whom, by lot at the team leaders' meeting or by the system
  with a recorded random seed. 签号 (lot): the number an entry draws; lot k takes slot k.
- 轮空 (bye): an empty slot in the first round; the entry facing it goes through without
  playing. Byes sit opposite the top seeds and never face each other.
- 种子 (seed): an entry placed by rank instead of by lot, so that strong entries meet late:
  seeds 1 and 2 only in the final, seeds 1–4 not before the semi-finals.
- 淘汰赛 (knockout): lose once and you are out. Rounds are named from the end, as people say
  them: 决赛 (final, also 冠军争夺战 on a draw sheet), 半决赛, 1/4决赛, 1/8决赛, 1/16决赛 …
- 季军争夺战 (third-place match): the two losing semi-finalists play for third place.
- 决出八强 (down to the last eight): a preliminary knockout that stops when K entries remain.
- 小组循环赛 (round-robin groups): every entry of a group (A组, B组 …) meets every other once.
- 积分编排 (Swiss): pairing by score round after round; see ``tournaments.draw.rules.swiss``. Its
  ranking table is :func:`standings` here, with a bye given as ``MatchResult(entry, None, entry)``.
- 场分 (match points): points per match, 2 for a win, 1 for a draw, 0 for a loss (S3; 3/1/0
  is the other common scheme, so it is a parameter).
- 级分 (level points): points from the level difference (级差) of a match, by the
  “26分制级差分” table (:data:`LEVEL_POINTS_26`), or the raw 级差; the app computes them.
- 对手分 (opponents' points): the sum of the match points of the entries one has played.

User-fixable input raises :class:`DrawError` (a code for programs, a Chinese message for
people); a ``ValueError`` from a structural helper means a bug in the caller.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

FINAL_NAME = "决赛"
CHAMPIONSHIP_NAME = "冠军争夺战"  # the Nantong draw sheet's name for the final
SEMI_FINAL_NAME = "半决赛"
THIRD_PLACE_NAME = "季军争夺战"


class DrawError(Exception):
    """Input the organiser can fix: ``code`` for programs and tests, ``message`` for people."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


# --- sizes, seeding and names ------------------------------------------------------------


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
        raise DrawError("too_few_entries", f"至少需要2个参赛队才能抽签，现在只有{n}个。")
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


# --- input checks ------------------------------------------------------------------------


def _entry_list(entries: Sequence, minimum: int = 2) -> list:
    entries = list(entries)
    if any(entry is None for entry in entries):
        raise DrawError("missing_entry", "参赛队不能为空。")
    counts = Counter(entries)
    repeated = [entry for entry, count in counts.items() if count > 1]
    if repeated:
        raise DrawError("duplicate_entry", f"参赛队{repeated[0]!r}出现了不止一次。")
    if len(entries) < minimum:
        raise DrawError("too_few_entries", f"至少需要{minimum}个参赛队，现在只有{len(entries)}个。")
    return entries


def _checked_seeds(seeds: Mapping | None, entries: list) -> dict:
    """Seeds as entry → 1..k, every number once: a gap is almost always a typing mistake."""
    if not seeds:
        return {}
    known = set(entries)
    for entry, number in seeds.items():
        if entry not in known:
            raise DrawError("unknown_entry", f"种子{entry!r}不在参赛名单中。")
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise DrawError("invalid_seed", f"种子序号必须是正整数，{entry!r}的是{number!r}。")
    numbers = sorted(seeds.values())
    if len(set(numbers)) != len(numbers):
        repeated = next(n for n, c in Counter(numbers).items() if c > 1)
        raise DrawError("duplicate_seed", f"种子序号{repeated}用了不止一次。")
    if numbers != list(range(1, len(numbers) + 1)):
        raise DrawError("seed_gap", f"种子序号必须从1起连续编号，现在是{numbers}。")
    return dict(seeds)


def _unit_key(entry, index: int, units: Mapping | None):
    """An entry's unit, or a key of its own when it has none (it then clashes with nobody)."""
    unit = units.get(entry) if units else None
    return ("unit", unit) if unit is not None else ("alone", index)


# --- the knockout draw -------------------------------------------------------------------


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
    entries = _entry_list(entries)
    n = len(entries)
    size = bracket_size(n)
    seed_of = _checked_seeds(seeds, entries)
    order = seed_order(size)
    slot_of_seed = {seed: slot for slot, seed in enumerate(order)}
    unit_of = {entry: _unit_key(entry, i, units) for i, entry in enumerate(entries)}

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
        raise DrawError("too_few_entries", f"至少需要2个参赛队才能抽签，现在只有{len(lots)}个。")
    if size is None:
        size = bracket_size(len(lots))
    elif not _is_power_of_two(size) or size < 2:
        raise DrawError("invalid_size", f"签位数必须是2、4、8、16……，不能是{size}。")
    elif size < len(lots):
        raise DrawError("size_too_small", f"{len(lots)}个参赛队放不进{size}个签位。")
    slots: list = [None] * size
    for entry, raw in lots.items():
        lot = _whole_number(raw)
        if lot is None:
            raise DrawError("invalid_lot", f"{entry!r}的签号“{raw}”不是整数。")
        if not 1 <= lot <= size:
            raise DrawError("lot_out_of_range", f"{entry!r}的签号{lot}不在1到{size}之间。")
        if slots[lot - 1] is not None:
            raise DrawError("duplicate_lot", f"{lot}号签被{slots[lot - 1]!r}和{entry!r}重复使用。")
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


def _whole_number(value) -> int | None:
    """A lot as typed: 3, 3.0, "3" or "３" (full-width, from a Chinese keyboard)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str):
        try:
            return int(value.strip())  # int() accepts full-width digits
        except ValueError:
            return None
    return None


# --- the knockout plan -------------------------------------------------------------------


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
        raise DrawError("invalid_size", f"签位数必须是2、4、8、16……，不能是{size}。")
    _entry_list([entry for entry in slots if entry is not None])
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


# --- groups (小组循环赛) -------------------------------------------------------------------


def group_label(index: int) -> str:
    """0 → "A组", 1 → "B组" … 25 → "Z组", 26 → "AA组" (spreadsheet letters)."""
    if index < 0:
        raise ValueError(f"no group {index}")
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return f"{letters}组"


def split_into_groups(
    entries: Sequence,
    group_count: int,
    *,
    seeds: Mapping | None = None,
    units: Mapping | None = None,
    rng: random.Random,
) -> list[list]:
    """Entries into ``group_count`` groups whose sizes differ by at most one (larger first).

    Seeds are dealt in a snake (蛇形): 1 → A, 2 → B … the last group, then back from the last
    group, so every group gets one seed of each band; a group already full is skipped. The rest
    go in random order, the largest unit first, each to a group with the fewest of its unit,
    then the most free places, then at random. Guaranteed without seeds: a unit with c entries
    has ⌊c/g⌋ or ⌈c/g⌉ of them in every group (so no two in one group while c ≤ g); with seeds,
    the seeded entries count towards their unit and the rest is spread the same way.
    """
    entries = _entry_list(entries)
    n = len(entries)
    if not isinstance(group_count, int) or group_count < 1:
        raise DrawError("invalid_group_count", f"小组数必须是正整数，不能是{group_count!r}。")
    if n < 2 * group_count:
        raise DrawError(
            "too_many_groups", f"{n}个参赛队分不成{group_count}个组：每组至少要有2个队。"
        )
    seed_of = _checked_seeds(seeds, entries)
    base, extra = divmod(n, group_count)
    capacity = [base + (1 if g < extra else 0) for g in range(group_count)]
    groups: list[list] = [[] for _ in range(group_count)]

    snake: list[int] = []
    row = 0
    while len(snake) < n:
        columns = range(group_count) if row % 2 == 0 else range(group_count - 1, -1, -1)
        snake += [g for g in columns if capacity[g] > row]
        row += 1
    by_number = sorted(seed_of, key=seed_of.get)
    for entry, g in zip(by_number, snake, strict=False):
        groups[g].append(entry)

    unit_of = {entry: _unit_key(entry, i, units) for i, entry in enumerate(entries)}
    per_group = [Counter(unit_of[entry] for entry in group) for group in groups]
    members: dict = {}
    for entry in entries:
        if entry not in seed_of:
            members.setdefault(unit_of[entry], []).append(entry)
    # Largest units first, while every group still has room to take one of theirs; equal
    # sizes in random order. Shuffling inside a unit keeps the input order from deciding.
    units_order = [(len(group), rng.random(), key) for key, group in members.items()]
    units_order.sort(key=lambda item: (-item[0], item[1]))
    for _, _, key in units_order:
        group_members = members[key]
        rng.shuffle(group_members)
        for entry in group_members:
            open_groups = [g for g in range(group_count) if len(groups[g]) < capacity[g]]
            best = min((per_group[g][key], len(groups[g]) - capacity[g]) for g in open_groups)
            choices = [
                g for g in open_groups if (per_group[g][key], len(groups[g]) - capacity[g]) == best
            ]
            g = rng.choice(choices)
            groups[g].append(entry)
            per_group[g][key] += 1
    return groups


def round_robin(entries: Sequence) -> list[list[tuple]]:
    """The circle method (Berger tables): every pair once, one match per entry per round.

    One entry stays fixed while the others turn round it. With an odd number of entries a
    ``None`` joins, and whoever meets it has the bye that round, written ``(entry, None)``.
    Home and away alternate so that each entry's home and away counts differ by at most one.
    """
    players = _entry_list(entries)
    if len(players) % 2:
        players.append(None)
    m = len(players)
    fixed, circle = players[-1], players[:-1]
    rounds: list[list[tuple]] = []
    for r in range(m - 1):
        first = circle[r]
        pairs = [(first, fixed) if r % 2 == 0 else (fixed, first)]
        for k in range(1, m // 2):
            a, b = circle[(r + k) % (m - 1)], circle[(r - k) % (m - 1)]
            pairs.append((a, b) if k % 2 else (b, a))
        rounds.append([(b, None) if a is None else (a, b) for a, b in pairs])
    return rounds


# --- standings and tie-breaks ------------------------------------------------------------


@dataclass(frozen=True)
class MatchResult:
    """One finished match. ``winner`` None = a draw; ``away`` None = a bye (a win)."""

    home: Hashable
    away: Hashable | None
    winner: Hashable | None
    home_level_points: float = 0
    away_level_points: float = 0


@dataclass(frozen=True)
class StandingRow:
    rank: int
    entry: Hashable
    played: int
    won: int
    drawn: int
    lost: int
    match_points: float
    level_points: float
    opponents_points: float
    decided_by: str | None  # the tie-break that put this row below the one above


# Section 10 of the rules: total 场分 → total 级分 (or raw 级差) → head-to-head → 对手分 → lot.
TIEBREAKS = ("match_points", "level_points", "head_to_head", "opponents_points", "lot")
_TIEBREAK_NAMES = {
    "match_points": "场分",
    "level_points": "级分",
    "head_to_head": "相互间胜负",
    "opponents_points": "对手分",
    "lot": "抽签",
}


def standings(
    entries: Sequence,
    results: Sequence[MatchResult],
    *,
    points: tuple[float, float, float] = (2, 1, 0),
    tiebreaks: Sequence[str] = TIEBREAKS,
    lots: Mapping | None = None,
) -> list[StandingRow]:
    """The ranking table of a group or a Swiss stage.

    ``points`` = (win, draw, loss) 场分. Tie-breaks apply in the given order; ``lot`` is
    always last, even when not listed, so no two rows share a rank. ``head_to_head`` compares
    the match points of the games among exactly the entries still tied (a mini-table); when it
    separates some of them it is applied again among those still tied, as UEFA does, before
    the next tie-break. ``lot`` orders by ``lots`` (entry → lot number, lower first; entries
    without one after those with one) and then by the order of ``entries``. A bye
    (``away=None``) counts as a win played, against nobody: it adds no 对手分 and no
    head-to-head game.
    """
    entries = _entry_list(entries, minimum=1)
    order_of = {entry: i for i, entry in enumerate(entries)}
    criteria = list(dict.fromkeys(tiebreaks))
    unknown = [name for name in criteria if name not in _TIEBREAK_NAMES]
    if unknown:
        raise DrawError("unknown_tiebreak", f"未知的排名规则：{unknown[0]!r}。")
    if "lot" not in criteria:
        criteria.append("lot")
    win, draw, loss = points

    played = Counter()
    won = Counter()
    drawn = Counter()
    lost = Counter()
    match_points: dict = dict.fromkeys(entries, 0)
    level_points: dict = dict.fromkeys(entries, 0)
    games: dict = {entry: [] for entry in entries}  # entry → [(opponent, match points)]
    for result in results:
        for side in (result.home, result.away):
            if side is not None and side not in order_of:
                raise DrawError("unknown_entry", f"成绩中的{side!r}不在本组名单中。")
        if result.home == result.away or result.home is None:
            raise DrawError("invalid_result", f"成绩{result!r}的双方不对。")
        if result.winner not in (result.home, result.away, None) or (
            result.away is None and result.winner != result.home
        ):
            raise DrawError("invalid_result", f"成绩{result!r}的胜方不是参赛双方之一。")
        sides = [(result.home, result.away, result.home_level_points)]
        if result.away is not None:
            sides.append((result.away, result.home, result.away_level_points))
        for entry, opponent, levels in sides:
            if result.winner is None:
                gained, tally = draw, drawn
            elif result.winner == entry:
                gained, tally = win, won
            else:
                gained, tally = loss, lost
            played[entry] += 1
            tally[entry] += 1
            match_points[entry] += gained
            level_points[entry] += levels
            if opponent is not None:
                games[entry].append((opponent, gained))
    opponents_points = {
        entry: sum(match_points[opponent] for opponent, _ in games[entry]) for entry in entries
    }

    def keys(name: str, block: list) -> dict:
        """Sort keys, higher is better. Sums of floats are rounded so 0.1 + 0.2 ties 0.3."""
        if name == "match_points":
            return {e: round(match_points[e], 9) for e in block}
        if name == "level_points":
            return {e: round(level_points[e], 9) for e in block}
        if name == "opponents_points":
            return {e: round(opponents_points[e], 9) for e in block}
        if name == "head_to_head":
            tied = set(block)
            return {e: round(sum(p for o, p in games[e] if o in tied), 9) for e in block}
        lot_of = lots or {}
        return {
            e: (1, -lot_of[e], -order_of[e]) if e in lot_of else (0, 0, -order_of[e]) for e in block
        }

    decided_by: dict = {}

    def rank(block: list, at: int) -> list:
        if len(block) == 1:
            return block
        name = criteria[at]
        key = keys(name, block)
        ordered = sorted(block, key=key.__getitem__, reverse=True)
        tied_groups: list[list] = []
        for entry in ordered:
            if tied_groups and key[tied_groups[-1][0]] == key[entry]:
                tied_groups[-1].append(entry)
            else:
                tied_groups.append([entry])
        if len(tied_groups) == 1:
            return rank(block, at + 1)  # the lot, last, always separates: at stays in range
        ranked: list = []
        for group in tied_groups:
            again = name == "head_to_head" and len(group) > 1
            part = rank(group, at if again else at + 1)
            if ranked:
                decided_by[part[0]] = name
            ranked += part
        return ranked

    table = rank(list(entries), 0)
    return [
        StandingRow(
            rank=i + 1,
            entry=entry,
            played=played[entry],
            won=won[entry],
            drawn=drawn[entry],
            lost=lost[entry],
            match_points=match_points[entry],
            level_points=level_points[entry],
            opponents_points=opponents_points[entry],
            decided_by=decided_by.get(entry),
        )
        for i, entry in enumerate(table)
    ]


def tiebreak_label(name: str) -> str:
    """The Chinese name of a tie-break, for the "decided by" column."""
    return _TIEBREAK_NAMES[name]


# --- from groups to the knockout ---------------------------------------------------------


def seed_from_groups(group_rankings: Sequence[Sequence], advance: int) -> list:
    """The qualifiers in seed order, for ``draw_knockout(seeds={q: i + 1 …})``.

    All group winners first, in group order, so they take seeds 1..g: with the standard seed
    positions no two winners meet before only g entries (rounded up to a power of two) are
    left. Then each further band (runners-up, then thirds …) gets seeds g+1..2g …, assigned
    group by group to the free seed number whose slot meets this group's earlier qualifiers
    as late as possible (lowest number on a tie). Guaranteed: a group's winner and runner-up
    are always in opposite halves — each half holds exactly g of seeds 1..2g, so there are
    always enough places — and so can only meet in the final. Later bands are spread as far
    as the places left allow.
    """
    if not isinstance(advance, int) or advance < 1:
        raise DrawError("invalid_advance", f"每组出线队数必须是正整数，不能是{advance!r}。")
    groups = [list(group) for group in group_rankings]
    if not groups:
        raise DrawError("no_groups", "没有小组，无法确定出线队。")
    for i, group in enumerate(groups):
        if len(group) < advance:
            raise DrawError(
                "group_too_small",
                f"{group_label(i)}只有{len(group)}个队，不够{advance}个出线名额。",
            )
    g = len(groups)
    _entry_list([entry for group in groups for entry in group[:advance]])
    size = bracket_size(g * advance)
    slot_of_seed = {seed: slot for slot, seed in enumerate(seed_order(size))}

    by_seed: dict[int, object] = {}
    slots_of_group: list[list[int]] = [[] for _ in range(g)]
    for band in range(advance):
        free = list(range(band * g + 1, band * g + g + 1))
        for i, group in enumerate(groups):
            if band == 0:
                seed = free[i]
            else:
                seed = max(
                    free,
                    key=lambda s, i=i: (
                        min(_meeting_round(slot_of_seed[s], q) for q in slots_of_group[i]),
                        -s,
                    ),
                )
                free.remove(seed)
            by_seed[seed] = group[band]
            slots_of_group[i].append(slot_of_seed[seed])
    return [by_seed[seed] for seed in sorted(by_seed)]


# --- 级分: the “26分制级差分” ------------------------------------------------------------------

# The real conversion table was not found (rules section 10). Default: linear, the winner
# gets 13 + d and the loser 13 - d for a level difference d (levels 2..14, 过A = 15, so
# d ≤ 13): always 26 in all, monotonic, 13–13 when the levels are equal (the win itself is
# rewarded in 场分). Organisers with the official table pass their own.
LEVEL_POINTS_26: tuple[tuple[int, int], ...] = tuple((13 + d, 13 - d) for d in range(14))


def check_level_table(table: Sequence[tuple[float, float]]) -> None:
    """A custom 26-point table: 14 rows (d = 0..13), each summing to 26, winner ≥ loser,
    and the winner's points never falling as the difference grows."""
    if len(table) != 14:
        raise DrawError(
            "invalid_level_table", f"级差分表要有14行（级差0至13），现在有{len(table)}行。"
        )
    for d, (winner, loser) in enumerate(table):
        if not math.isclose(winner + loser, 26) or winner < loser:
            raise DrawError("invalid_level_table", f"级差{d}一行应为胜方≥负方且合计26分。")
        if d and winner < table[d - 1][0]:
            raise DrawError("invalid_level_table", f"级差{d}的胜方得分比级差{d - 1}的少。")


def level_points(diff: int, table: Sequence[tuple[float, float]] = LEVEL_POINTS_26):
    """(winner's, loser's) 级分 for a level difference ``diff``."""
    if not isinstance(diff, int) or isinstance(diff, bool) or not 0 <= diff < len(table):
        raise DrawError(
            "invalid_level_diff", f"级差必须是0到{len(table) - 1}的整数，不能是{diff!r}。"
        )
    return table[diff]
