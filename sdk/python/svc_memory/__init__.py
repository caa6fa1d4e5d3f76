"""svc-memory: the Python client of svc, private user-owned memory for AI agents.

    from svc_memory import Client
    c = Client("http://127.0.0.1:8000", delegate_key=SEED_HEX, account_id=ACCOUNT)
    c.remember("I bike to work", namespace="me", wait=True)
    hits = c.recall("How do I get to the office?", namespace="me", limit=3)
"""

from .client import AsyncClient, Client
from .errors import SvcError
from .receipts import receipt_message, verify_receipt
from .signing import audience_of, public_key_of, sign_request, signing_message

__all__ = [
    "AsyncClient",
    "Client",
    "SvcError",
    "audience_of",
    "public_key_of",
    "receipt_message",
    "sign_request",
    "signing_message",
    "verify_receipt",
]
