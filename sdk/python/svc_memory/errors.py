"""What a refused call raises."""

from __future__ import annotations

from typing import Any, Dict, Optional


class SvcError(Exception):
    """A relayer's refusal (or an unreachable relayer), with its stable ``code``.

    ``reason`` (on 401 and 403), ``retry_after`` (seconds, on 429 and 503) and ``request_id``
    are set when the relayer gave them; ``details`` holds every other field of its answer.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int = 0,
        code: str = "unavailable",
        reason: Optional[str] = None,
        request_id: Optional[str] = None,
        retry_after: Optional[float] = None,
        details: Optional[Dict[str, Any]] = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.reason = reason
        self.request_id = request_id
        self.retry_after = retry_after
        self.details = details or {}
