"""This computer's addresses, for the web renderer: the one to print when the server listens on every address
(a phone on the network can use it, where 127.0.0.1 would be the phone itself), and the ``Host`` names a request
may carry (any other is refused: a page of another site whose name was pointed at this computer -- DNS
rebinding -- must not reach the game)."""
from __future__ import annotations

import fcntl
import ipaddress
import socket
import struct
from pathlib import Path

#: Linux's ioctl for an interface's IPv4 address.
_SIOCGIFADDR = 0x8915
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
EVERY_ADDRESS = ("0.0.0.0", "::", "")


def _interface_addresses() -> list[str]:
    """Every address of this computer's network interfaces (IPv4 first); empty where they cannot be read."""
    found: list[str] = []
    try:
        interfaces = [name for _, name in socket.if_nameindex()]
    except OSError:
        interfaces = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for name in interfaces:
            try:
                answer = fcntl.ioctl(probe.fileno(), _SIOCGIFADDR, struct.pack("256s", name.encode()[:15]))
            except OSError:              # no IPv4 address on it
                continue
            found.append(socket.inet_ntoa(answer[20:24]))
    try:                                 # IPv6: /proc/net/if_inet6, one address a line, 32 hex digits first
        for line in Path("/proc/net/if_inet6").read_text().splitlines():
            digits = line.split()[0]
            found.append(str(ipaddress.IPv6Address(bytes.fromhex(digits))))
    except (OSError, ValueError, IndexError):
        pass
    if not found:
        try:
            found = [info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None)]
        except OSError:
            pass
    return list(dict.fromkeys(found))


def reachable_addresses() -> list[str]:
    """The addresses another device on the network may reach this computer at: IPv4 before IPv6, private
    (home and office networks) before public, no loopback and no link-local."""
    usable = []
    for text in _interface_addresses():
        address = ipaddress.ip_address(text.split("%")[0])
        if address.is_loopback or address.is_link_local or address.is_unspecified:
            continue
        usable.append((address.version, not address.is_private, text))
    return [text for *_, text in sorted(usable)]


def _with_port(name: str, port: int) -> list[str]:
    name = name.lower()
    if ":" in name and not name.startswith("["):
        name = f"[{name}]"
    return [f"{name}:{port}"] + ([name] if port == 80 else [])


def host_names(host: str, port: int) -> set[str]:
    """The ``Host`` header values a server listening on ``host``:``port`` answers to: the names and addresses it
    can be reached by, each with the port."""
    names: list[str] = []
    if host in EVERY_ADDRESS:
        names += [*LOOPBACK_NAMES, *_interface_addresses()]
    else:
        names.append(host)
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            address = None
        if address is not None and address.is_loopback or host == "localhost":
            names += LOOPBACK_NAMES
    return {value for name in names for value in _with_port(name, port)}


__all__ = ["reachable_addresses", "host_names"]
