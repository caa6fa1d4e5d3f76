"""Signed requests, as the relayer verifies them (the same rules as the TypeScript SDK).

Version 2 (the default) signs ``svc-v2.{audience}.{timestamp}.{METHOD}.{path}.{sha256(body)}.{nonce}``,
version 1 ``{timestamp}.{METHOD}.{path}.{sha256(body)}`` with ``.{nonce}`` when one is sent.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Dict, Optional
from urllib.parse import urlsplit

from nacl.signing import SigningKey


def audience_of(url: str) -> str:
    """The origin of a relayer's URL: scheme, lower-case host and port unless the default."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    default = {"http": 80, "https": 443}.get(parts.scheme)
    port = f":{parts.port}" if parts.port and parts.port != default else ""
    return f"{parts.scheme}://{host}{port}"


def signing_message(
    timestamp: int,
    method: str,
    path: str,
    body_sha256: str,
    nonce: Optional[str] = None,
    audience: Optional[str] = None,
    account_id: Optional[str] = None,
) -> str:
    """The text a request's signature covers."""
    request = f"{timestamp}.{method.upper()}.{path}.{body_sha256}"
    if audience is not None:
        if nonce is None:
            raise ValueError("Cannot build a version 2 message: it needs a nonce")
        return f"svc-v2.{audience}.{request}.{nonce}"
    if nonce is None:
        return request
    return f"{request}.{nonce}" if account_id is None else f"{request}.{nonce}.{account_id}"


def public_key_of(seed_hex: str) -> str:
    """The public key (hex) of a delegate private key (the 32-byte seed, hex)."""
    return SigningKey(bytes.fromhex(seed_hex)).verify_key.encode().hex()


def sign_request(
    seed_hex: str,
    method: str,
    path: str,
    body: bytes = b"",
    *,
    timestamp: Optional[int] = None,
    nonce: Optional[str] = None,
    audience: Optional[str] = None,
    version: int = 2,
) -> Dict[str, str]:
    """The headers that sign a request.

    Version 2 needs ``audience`` (the relayer's origin) and takes a fresh nonce unless given;
    version 1 sends ``nonce`` only when given.
    """
    key = SigningKey(bytes.fromhex(seed_hex))
    timestamp = int(time.time()) if timestamp is None else timestamp
    if version == 2:
        if audience is None:
            raise ValueError("Signature version 2 needs the relayer's audience")
        nonce = nonce or secrets.token_urlsafe(24)
    elif version != 1:
        raise ValueError("version must be 1 or 2")
    else:
        audience = None
    digest = hashlib.sha256(body).hexdigest()
    message = signing_message(timestamp, method, path, digest, nonce, audience)
    headers = {
        "x-public-key": key.verify_key.encode().hex(),
        "x-signature": key.sign(message.encode()).signature.hex(),
        "x-timestamp": str(timestamp),
    }
    if nonce is not None:
        headers["x-nonce"] = nonce
    if audience is not None:
        headers["x-signature-version"] = "2"
        headers["x-audience"] = audience
    return headers
