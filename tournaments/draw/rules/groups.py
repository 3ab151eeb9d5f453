"""Round-robin groups (小组循环赛): the groups drawn, their rounds, and the knockout seeded from their rankings.

Pure rules, no Django."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence

from guandan_cup.errors import N_
from tournaments.draw.rules.common import DrawError, checked_seeds, entry_list, unit_key
from tournaments.draw.rules.knockout import _meeting_round, bracket_size, seed_order


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
    entries = entry_list(entries)
    n = len(entries)
    if not isinstance(group_count, int) or group_count < 1:
        raise DrawError(
            "invalid_group_count",
            N_("小组数必须是正整数，不能是%(group_count)s。"),
            group_count=repr(group_count),
        )
    if n < 2 * group_count:
        raise DrawError(
            "too_many_groups", f"{n}个参赛队分不成{group_count}个组：每组至少要有2个队。"
        )
    seed_of = checked_seeds(seeds, entries)
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

    unit_of = {entry: unit_key(entry, i, units) for i, entry in enumerate(entries)}
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
    players = entry_list(entries)
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
        raise DrawError(
            "invalid_advance",
            N_("每组出线队数必须是正整数，不能是%(advance)s。"),
            advance=repr(advance),
        )
    groups = [list(group) for group in group_rankings]
    if not groups:
        raise DrawError("no_groups", N_("没有小组，无法确定出线队。"))
    for i, group in enumerate(groups):
        if len(group) < advance:
            raise DrawError(
                "group_too_small",
                f"{group_label(i)}只有{len(group)}个队，不够{advance}个出线名额。",
            )
    g = len(groups)
    entry_list([entry for group in groups for entry in group[:advance]])
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
