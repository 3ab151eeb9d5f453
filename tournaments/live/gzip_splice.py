"""Gzip streams joined from pieces compressed apart: an anonymous page's cached copy, with
its per-request CSRF token and CSP nonce spliced in without compressing the page again."""

from __future__ import annotations

import struct
import zlib

# Where a cached anonymous page takes its per-request CSRF token and CSP nonce.
CSRF_MARK = "\x00csrf\x00"
NONCE_MARK = "\x00nonce\x00"

# A gzip stream (RFC 1952) is a header, one deflate stream and the CRC-32 and length of the
# uncompressed text. Deflate blocks ended with a sync flush are byte-aligned and the next
# compressor starts afresh, so pieces compressed apart join into one valid stream; the
# CRC of the whole is combined from the pieces' CRCs (zlib's crc32_combine, in GF(2)).
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"


def _gf2_times(matrix: list[int], vector: int) -> int:
    total, i = 0, 0
    while vector:
        if vector & 1:
            total ^= matrix[i]
        vector >>= 1
        i += 1
    return total


def _gf2_square(matrix: list[int]) -> list[int]:
    return [_gf2_times(matrix, matrix[n]) for n in range(32)]


def _crc_shift(length: int) -> list[int]:
    """The operator that turns crc32(A) into the CRC register after A plus ``length`` zero
    bytes: crc32(A + B) = shift(len(B)) · crc32(A) ^ crc32(B)."""
    odd = [0xEDB88320] + [1 << n for n in range(31)]  # one zero bit
    even = _gf2_square(odd)  # two zero bits
    odd = _gf2_square(even)  # four zero bits
    result = [1 << n for n in range(32)]  # identity
    while True:
        even = _gf2_square(odd)  # one zero byte, then 4, 16, …
        if length & 1:
            result = [_gf2_times(even, column) for column in result]
        length >>= 1
        if not length:
            return result
        odd = _gf2_square(even)
        if length & 1:
            result = [_gf2_times(odd, column) for column in result]
        length >>= 1
        if not length:
            return result


def _deflate(data: bytes, *, last: bool) -> bytes:
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush(
        zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH
    )


class SplicedGzip:
    """A page compressed once, with gaps (marks) for the values each request puts in."""

    def __init__(self, parts: list[str]):
        self.pieces = []
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            if part in (CSRF_MARK, NONCE_MARK):
                self.pieces.append(part)
                continue
            data = part.encode()
            self.pieces.append(
                (_deflate(data, last=last), zlib.crc32(data), len(data), _crc_shift(len(data)))
            )
        if self.pieces and isinstance(self.pieces[-1], str):
            self.pieces.append((_deflate(b"", last=True), 0, 0, _crc_shift(0)))

    def join(self, fill: dict[str, str]) -> bytes:
        out, crc, size = [_GZIP_HEADER], 0, 0
        for piece in self.pieces:
            if isinstance(piece, str):
                data = fill[piece].encode()
                # A few dozen bytes: a stored block, from a compressor with a tiny window.
                compressor = zlib.compressobj(0, zlib.DEFLATED, -9, 1)
                out.append(compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH))
                crc, size = zlib.crc32(data, crc), size + len(data)
            else:
                packed, piece_crc, length, shift = piece
                out.append(packed)
                crc, size = _gf2_times(shift, crc) ^ piece_crc, size + length
        out.append(struct.pack("<II", crc & 0xFFFFFFFF, size & 0xFFFFFFFF))
        return b"".join(out)
