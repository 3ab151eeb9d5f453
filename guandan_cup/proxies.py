"""Which peers are the proxies in front of the app (settings.TRUSTED_PROXIES): the only ones
whose forwarded headers (X-Forwarded-For, -Proto …) are believed. Used by the middleware
that drops those headers from anyone else and by login throttling."""

from __future__ import annotations

import ipaddress
import logging
from functools import lru_cache

from django.conf import settings

logger = logging.getLogger("guandan_cup.accounts")


def address_of(text: str):
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


@lru_cache(maxsize=8)
def _networks(entries: tuple[str, ...]) -> tuple:
    networks = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            logger.error("TRUSTED_PROXIES: %r is not an address or a network; ignored.", entry)
    return tuple(networks)


def is_trusted_proxy(address) -> bool:
    """Whether ``address`` (text or an ip_address) is one of settings.TRUSTED_PROXIES."""
    if isinstance(address, str):
        address = address_of(address)
    if address is None:
        return False
    address = getattr(address, "ipv4_mapped", None) or address
    return any(address in network for network in _networks(tuple(settings.TRUSTED_PROXIES)))


_warned_untrusted: set[str] = set()


def warn_untrusted(remote: str) -> None:
    """Log, once per address (and for a few addresses at most), that forwarded headers came
    from a peer TRUSTED_PROXIES does not name: a misconfigured proxy shows up in the log."""
    if remote in _warned_untrusted or len(_warned_untrusted) >= 16:
        return
    _warned_untrusted.add(remote)
    logger.warning(
        "X-Forwarded-For/-Proto from %s, which TRUSTED_PROXIES does not name, are ignored: "
        "its requests are counted under %s and taken as plain HTTP. If it is your proxy, "
        "add it to TRUSTED_PROXIES.",
        remote,
        remote,
    )
