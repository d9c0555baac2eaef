"""Loopback ports for the servers the tests start (the API, PostgreSQL, Ray nodes, a closed port)."""

import socket


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on now (the kernel's choice); nothing listens on it once this returns."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]
