"""Erase receipts: checked against the relayer's receipt key (``health().receipt_key``)."""

from __future__ import annotations

from typing import Any, Mapping

from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey


def receipt_message(receipt: Mapping[str, Any]) -> str:
    """The text a receipt's signature covers."""
    fields = [receipt[name] for name in ("memory_id", "owner", "blob_id", "erased_at")]
    return "svc-erase-receipt:v1\n" + "\n".join(fields)


def verify_receipt(receipt: Mapping[str, Any], receipt_key: str) -> bool:
    """Whether ``receipt`` is signed by the relayer whose receipt key is ``receipt_key``.

    Anything malformed is ``False``, never an exception.
    """
    try:
        fields = [receipt[name] for name in ("memory_id", "owner", "blob_id", "erased_at")]
        if not all(isinstance(f, str) and "\n" not in f for f in fields):
            return False
        VerifyKey(bytes.fromhex(receipt_key)).verify(
            receipt_message(receipt).encode(), bytes.fromhex(receipt["signature"])
        )
        return True
    except (KeyError, TypeError, ValueError, BadSignatureError):
        return False
