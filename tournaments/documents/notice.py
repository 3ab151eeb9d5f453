"""Split a notice's plain text into the blocks of a paper notice (pure, no Django).

Chinese official notices number their sections with 一、二、… (headings), （一）（二）…
(sub-headings) and 1．2． (numbered paragraphs). Organisers type or paste the text; we keep
it as plain text and only recognise those markers when laying it out.
"""

import re
from dataclasses import dataclass

_HEADING = re.compile(r"^[一二三四五六七八九十]+\s*、")
_SUBHEADING = re.compile(r"^[（(][一二三四五六七八九十]+[)）]")


@dataclass(frozen=True)
class Block:
    kind: str  # "heading" | "subheading" | "paragraph"
    text: str


def notice_blocks(text: str) -> list[Block]:
    blocks = []
    for raw in (text or "").splitlines():
        line = raw.strip()
        if not line:
            continue
        if _HEADING.match(line):
            kind = "heading"
        elif _SUBHEADING.match(line) and len(line) <= 40 and not line.endswith(("。", "；", ";")):
            kind = "subheading"
        else:
            kind = "paragraph"
        blocks.append(Block(kind, line))
    return blocks
