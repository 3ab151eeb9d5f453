"""The rules of the draw (抽签) and the brackets: knockout, round-robin groups, Swiss pairing and ranking tables.

The draw's pure rules (``common``, ``knockout``, ``groups``, ``standings``, ``swiss``), no
Django: plain values in, frozen dataclasses (or lists) out. Entries are opaque
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
  ranking table is :func:`standings.standings`, with a bye given as ``MatchResult(entry, None, entry)``.
- 场分 (match points): points per match, 2 for a win, 1 for a draw, 0 for a loss (S3; 3/1/0
  is the other common scheme, so it is a parameter).
- 级分 (level points): points from the level difference (级差) of a match; the app
  passes them in with each result.
- 对手分 (opponents' points): the sum of the match points of the entries one has played.

User-fixable input raises :class:`DrawError` (a code for programs, a Chinese message for
people); a ``ValueError`` from a structural helper means a bug in the caller.
"""
