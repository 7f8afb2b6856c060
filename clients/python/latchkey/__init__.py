"""Python client for Latchkey, the JSON-RPC 2.0 authenticator process.

    from latchkey import Latchkey, LatchkeyError, errors

    with Latchkey.spawn(args=["--in-memory", "--seed", "1", "--clock", "manual"]) as lk:
        lk.ping(echo="hi")                      # {'echo': 'hi'}
        lk.call("clock/advance", {"seconds": 60})
"""

from ._generated import ERROR_CODES, ERROR_REASONS, METHODS, SCHEMA_VERSION, UNSET, errors
from .client import (Latchkey, LatchkeyError, LatchkeyProcessError, LatchkeyTimeout,
                     Notification)

__all__ = [
    "ERROR_CODES", "ERROR_REASONS", "METHODS", "SCHEMA_VERSION", "UNSET", "errors",
    "Latchkey", "LatchkeyError", "LatchkeyProcessError", "LatchkeyTimeout", "Notification",
]
__version__ = "0.1.0"
