"""Swiss pairing (积分编排): who meets whom in the next round, from the scores so far.

Pure rules, no Django: :class:`SwissPlayer` values in, a :class:`SwissRound` out.

Terms used below:

- 积分编排 (Swiss system): every entry plays every round, each round against an entry with
  the same or a close score that it has not met yet (S5: “多轮限时下的积分编排制，以3轮比赛
  累计积分决出名次”).
- 积分 / 场分 (score): match points so far, 2/1/0 (or 3/1/0) per match.
- 分数组 (score group): the entries with the same score.
- 下浮 (float): an entry paired with a lower score group because its own group had an odd
  number, or could not be paired without a rematch.
- 轮空 (bye): with an odd field one entry sits out the round and is scored as a win.
- 重复对阵 (rematch): two entries meeting again; avoided whenever any pairing avoids it.

The ranking table after each round is ``tournaments.draw.rules.standings.standings`` (a bye is
``MatchResult(entry, None, entry)``); the scores and tie-break tuples given here come from it.

How a round is paired — four steps, none of them exponential: 1,000 entries pair in about
10–20 ms, and a round that needs the exact matching of step 3 still only searches from the
few entries left over:

1. Rank by score, then ``tiebreak`` (higher first), then id (or, with ``rng``, at random among
   equals). With an odd field the bye goes to the lowest-ranked entry without a bye so far.
2. Score groups top down, the Dutch way: the group (with anyone floated down from above at
   its top) is cut into a top half S1 and a bottom half S2, S1[i] meets S2[i]; a rematch is
   avoided by trying the other members of S2 in order, then members of S1 (a depth-first
   search). An odd group floats its lowest entry that cannot be paired down to the next
   group; a group that cannot be paired so floats two more, and so on. The search has a step
   budget for the whole round (``budget``); past it a group is paired greedily (each entry,
   top down, takes its first possible opponent or floats).
3. Only if entries are still unpaired after the last group: an exact maximum matching
   (Edmonds' blossom algorithm) on the graph of pairs that are not rematches — the bye being
   one more vertex, open to entries without a bye — grown from the pairs of step 2. It finds
   a pairing with no rematch and no second bye whenever one exists; if none exists, the
   entries it leaves over are paired neighbour to neighbour in the ranking, which gives the
   fewest possible repeats (rematches and second byes together). The bye may move up from
   the lowest-ranked entry here, when that is what avoids a rematch.
4. Two pairs are re-paired whenever that lowers the sum of their squared score differences
   without a rematch.

Guarantees: no rematch and no second bye while any pairing avoids both (always so while the
number of rounds is at most ⌈N/2⌉: every entry still has at least half the field open to it,
and by Dirac's theorem a perfect matching exists); otherwise the fewest repeats. A pair
crosses score groups only for the odd member of a group or a group that could not be paired
within itself, and no two pairs are left that could be re-paired with closer scores.
"""

from __future__ import annotations

import contextlib
import math
import random
from collections import Counter, deque
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from guandan_cup.errors import N_
from tournaments.draw.rules.common import DrawError

_FLOAT = -1  # a search choice: this entry floats down instead of being paired here
_EXHAUSTED = "exhausted"


class PairingError(DrawError):
    """The players given cannot be paired as they are (duplicate ids, impossible scores)."""


@dataclass(frozen=True)
class SwissPlayer:
    id: Hashable
    score: float
    opponents: frozenset = frozenset()
    had_bye: bool = False
    tiebreak: tuple = ()  # sorts within a score, higher first (e.g. (级分, 对手分))


@dataclass(frozen=True)
class SwissRound:
    pairs: list[tuple]  # (higher-ranked id, lower-ranked id), in ranking order
    bye: Hashable | None
    floats: list = field(default_factory=list)  # ids paired with a lower score (下浮)
    rematches: list[tuple] = field(default_factory=list)  # pairs that met before (unavoidable)


def swiss_round(
    players: Sequence[SwissPlayer], *, rng: random.Random | None = None, budget: int | None = None
) -> SwissRound:
    """Pair the next round. ``rng`` shuffles entries of equal rank (round 1, say) before
    pairing; without it they are ordered by id. ``budget`` bounds the search of step 2
    (default 20,000 + 20 steps per entry)."""
    ranked = _ranked(players, rng)
    n = len(ranked)
    index_of = {player.id: i for i, player in enumerate(ranked)}
    met: list[set[int]] = [set() for _ in range(n)]
    for i, player in enumerate(ranked):
        for opponent in player.opponents:
            j = index_of.get(opponent)  # withdrawn opponents are simply not in the field
            if j is not None and j != i:
                met[i].add(j)
                met[j].add(i)
    scores = [player.score for player in ranked]

    bye = None
    pool = list(range(n))
    if n % 2:
        without_bye = [i for i in pool if not ranked[i].had_bye]
        bye = without_bye[-1] if without_bye else pool[-1]
        pool.remove(bye)
    steps = [budget if budget is not None else 20_000 + 20 * n]
    pairs, leftover = _pair_score_groups(pool, scores, met, steps)

    if leftover or (bye is not None and ranked[bye].had_bye):
        pairs, bye = _pair_by_matching(ranked, met, pairs, bye)
    pairs = _fewer_floats(pairs, scores, met)

    pairs.sort()
    return SwissRound(
        pairs=[(ranked[i].id, ranked[j].id) for i, j in pairs],
        bye=None if bye is None else ranked[bye].id,
        floats=[ranked[i].id for i, j in pairs if scores[i] != scores[j]],
        rematches=[(ranked[i].id, ranked[j].id) for i, j in pairs if j in met[i]],
    )


def _ranked(players: Sequence[SwissPlayer], rng: random.Random | None) -> list[SwissPlayer]:
    players = list(players)
    if len(players) < 2:
        raise PairingError(
            "too_few_players", f"至少需要2个参赛队才能编排，现在只有{len(players)}个。"
        )
    repeated = [pid for pid, count in Counter(p.id for p in players).items() if count > 1]
    if repeated:
        raise PairingError(
            "duplicate_player", N_("参赛队%(repeated)s出现了不止一次。"), repeated=repr(repeated[0])
        )
    for player in players:
        score = player.score
        if (
            isinstance(score, bool)
            or not isinstance(score, int | float)
            or not math.isfinite(score)
            or score < 0
        ):
            raise PairingError(
                "invalid_score",
                N_("参赛队%(player)s的积分%(score)s不正确。"),
                player=repr(player.id),
                score=repr(score),
            )
    with contextlib.suppress(TypeError):  # ids that do not compare keep the order given
        players.sort(key=lambda p: p.id)
    if rng is not None:
        rng.shuffle(players)
    # A stable sort: equal score and tie-break keep the id (or shuffled) order.
    players.sort(key=lambda p: (p.score, tuple(p.tiebreak)), reverse=True)
    return players


def _pair_score_groups(pool, scores, met, steps) -> tuple[list[tuple[int, int]], list[int]]:
    """Step 2: score groups top down, floats carried into the next group."""
    groups: list[list[int]] = []
    for i in pool:
        if groups and scores[groups[-1][0]] == scores[i]:
            groups[-1].append(i)
        else:
            groups.append([i])
    pairs: list[tuple[int, int]] = []
    carried: list[int] = []
    for group in groups:
        bracket = carried + group
        floats = len(bracket) % 2
        while True:
            result = _pair_bracket(bracket, floats, met, steps)
            if result is _EXHAUSTED:
                result = _pair_greedily(bracket, met)
                break
            if result is not None:
                break
            floats += 2  # no pairing with this few floats: the search proved it
        found, carried = result
        pairs += found
    return pairs, carried


def _candidates(i: int, half: int, m: int):
    """Dutch order for bracket member i: S2 from its top, then lower members of S1, then float.

    Members above i are all placed already (the search always takes the highest free one).
    """
    yield from range(max(half, i + 1), m)
    yield from range(i + 1, half)
    yield _FLOAT


def _pair_bracket(bracket, max_floats, met, steps):
    """Depth-first search for a pairing of ``bracket`` without rematches and with at most
    ``max_floats`` entries left over. None if there is none; _EXHAUSTED if the budget ran out.
    """
    m = len(bracket)
    half = m // 2
    used = [False] * m
    choice: dict[int, int] = {}
    stack: list[tuple[int, object]] = []
    floats = 0
    i = 0
    while True:
        while i < m and used[i]:
            i += 1
        if i == m:
            pairs = [(bracket[a], bracket[b]) for a, b in choice.items() if b != _FLOAT]
            left = [bracket[a] for a, b in choice.items() if b == _FLOAT]
            return pairs, left
        used[i] = True
        stack.append((i, _candidates(i, half, m)))
        while stack:
            a, options = stack[-1]
            previous = choice.pop(a, None)
            if previous == _FLOAT:
                floats -= 1
            elif previous is not None:
                used[previous] = False
            for b in options:
                steps[0] -= 1
                if steps[0] < 0:
                    return _EXHAUSTED
                if b == _FLOAT:
                    if floats < max_floats:
                        floats += 1
                        choice[a] = b
                        break
                elif not used[b] and bracket[b] not in met[bracket[a]]:
                    used[b] = True
                    choice[a] = b
                    break
            else:
                used[a] = False
                stack.pop()
                continue
            break
        if not stack:
            return None
        i = stack[-1][0] + 1


def _pair_greedily(bracket, met) -> tuple[list[tuple[int, int]], list[int]]:
    """No search: each free entry, top down, takes its first possible opponent or floats."""
    m = len(bracket)
    half = m // 2
    used = [False] * m
    pairs, left = [], []
    for a in range(m):
        if used[a]:
            continue
        used[a] = True
        for b in _candidates(a, half, m):
            if b == _FLOAT:
                left.append(bracket[a])
            elif not used[b] and bracket[b] not in met[bracket[a]]:
                used[b] = True
                pairs.append((bracket[a], bracket[b]))
                break
    return pairs, left


def _fewer_floats(pairs, scores, met) -> list[tuple[int, int]]:
    """Step 4: re-pair two pairs, one of them across score groups, whenever that lowers the
    sum of the squared score differences of the two without a rematch.

    Steps 2 and 3 float whoever their order of search leaves over; this undoes floats that
    a better choice elsewhere makes unnecessary. Squares, so that two floats of one group
    each (2–1, 1–0) beat one float over two groups (2–0). Each change strictly improves.
    """
    pairs = list(pairs)

    def cost(a: int, b: int) -> float:
        return (scores[a] - scores[b]) ** 2

    improved = True
    while improved:
        improved = False
        for k, (a, b) in enumerate(pairs):
            if scores[a] == scores[b]:
                continue
            for other, (c, d) in enumerate(pairs):
                now = cost(a, b) + cost(c, d)
                for x, y in (((a, c), (b, d)), ((a, d), (b, c))):
                    if other == k or x[1] in met[x[0]] or y[1] in met[y[0]]:
                        continue
                    if cost(*x) + cost(*y) < now:
                        pairs[k], pairs[other] = tuple(sorted(x)), tuple(sorted(y))
                        improved = True
                        break
                if improved:
                    break
            if improved:
                break
    return pairs


def _pair_by_matching(ranked, met, pairs, bye):
    """Step 3: a maximum matching of the not-yet-met graph, grown from the pairs so far."""
    n = len(ranked)
    dummy = n if n % 2 else None  # the bye as a vertex, ranked last
    size = n + (1 if dummy is not None else 0)

    def open_to(v: int, u: int) -> bool:
        if v == dummy:
            return not ranked[u].had_bye
        if u == dummy:
            return not ranked[v].had_bye
        return u not in met[v]

    near: dict[int, list[int]] = {}

    def neighbours(v: int) -> list[int]:
        # Nearest in the ranking first, so new pairs stay within or near a score group.
        if v not in near:
            others = sorted((u for u in range(size) if u != v), key=lambda u: (abs(u - v), u))
            near[v] = [u for u in others if open_to(v, u)]
        return near[v]

    match = [-1] * size
    for a, b in pairs:
        match[a], match[b] = b, a
    if dummy is not None and bye is not None and open_to(dummy, bye):
        match[dummy], match[bye] = bye, dummy
    for v in range(size):
        if match[v] == -1:
            for u in neighbours(v):
                if match[u] == -1:
                    match[v], match[u] = u, v
                    break
    _maximum_matching(size, neighbours, match)

    free = [v for v in range(size) if match[v] == -1]
    if dummy is not None and dummy in free:
        free.remove(dummy)
        lowest = free.pop()  # a second bye, for the lowest-ranked left over
        match[dummy], match[lowest] = lowest, dummy
    for a, b in zip(free[::2], free[1::2], strict=True):
        match[a], match[b] = b, a  # rematches: unavoidable now
    new_pairs = [(v, match[v]) for v in range(n) if v < match[v] < n]
    return new_pairs, (match[dummy] if dummy is not None else None)


def _maximum_matching(n: int, neighbours, match: list[int]) -> None:
    """Edmonds' blossom algorithm (maximum cardinality matching), improving ``match`` in place.

    Breadth-first search for an augmenting path from each free vertex, shrinking odd cycles
    (blossoms) into their base; a vertex from which no augmenting path exists never gets one
    later, so one search per free vertex suffices.
    """
    for root in range(n):
        if match[root] == -1:
            end, parent = _augmenting_path(n, neighbours, match, root)
            while end != -1:
                previous = parent[end]
                after = match[previous]
                match[end], match[previous] = previous, end
                end = after


def _augmenting_path(n: int, neighbours, match: list[int], root: int) -> tuple[int, list[int]]:
    """The free vertex an augmenting path from ``root`` ends at (-1 if none), and the tree."""
    parent = [-1] * n
    base = list(range(n))
    in_tree = [False] * n
    in_tree[root] = True
    queue = deque([root])

    def common_base(a: int, b: int) -> int:
        seen = [False] * n
        while True:
            a = base[a]
            seen[a] = True
            if match[a] == -1:
                break
            a = parent[match[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[match[b]]

    def mark_path(v: int, b: int, child: int, blossom: list[bool]) -> None:
        while base[v] != b:
            blossom[base[v]] = blossom[base[match[v]]] = True
            parent[v] = child
            child = match[v]
            v = parent[match[v]]

    while queue:
        v = queue.popleft()
        for to in neighbours(v):
            if base[v] == base[to] or match[v] == to:
                continue
            if to == root or (match[to] != -1 and parent[match[to]] != -1):
                b = common_base(v, to)
                blossom = [False] * n
                mark_path(v, b, to, blossom)
                mark_path(to, b, v, blossom)
                for i in range(n):
                    if blossom[base[i]]:
                        base[i] = b
                        if not in_tree[i]:
                            in_tree[i] = True
                            queue.append(i)
            elif parent[to] == -1:
                parent[to] = v
                if match[to] == -1:
                    return to, parent
                in_tree[match[to]] = True
                queue.append(match[to])
    return -1, parent
