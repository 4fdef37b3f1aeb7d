"""An HTTP transport for the ``openai`` package that sends each of its requests through the
one client exchange, so a model is reached with the same guarantees as every configured
API: the answer read up to the endpoint's cap, the call held to its deadline, a 429 or 5xx
tried again by the endpoint's retry policy (waiting what ``Retry-After`` asks, never past
the deadline). ``openai`` speaks through ``httpx2``: this module is imported only when a
model is called (``citesift.clients.chat``)."""

from __future__ import annotations

import httpx2

from citesift.clients.endpoint import Endpoint
from citesift.clients.exchange import request

SET_BY_THE_EXCHANGE = frozenset({"host", "content-length", "transfer-encoding"})
"""Request headers the exchange's own client sets from the request it sends."""
NO_LONGER_TRUE = frozenset({"content-encoding", "content-length", "transfer-encoding"})
"""Answer headers that no longer hold: the exchange hands the body over decoded."""


class ExchangeTransport(httpx2.AsyncBaseTransport):
    """Sends every request through the exchange under ``endpoint``'s bounds and key (no key:
    no ``Authorization`` header, whatever placeholder the package was given)."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint

    async def handle_async_request(self, sent: httpx2.Request) -> httpx2.Response:
        """The exchange's answer to ``sent``; its failures raise ``ClientError``."""
        dropped = set(SET_BY_THE_EXCHANGE)
        if not self.endpoint.api_key:
            dropped.add("authorization")
        headers = {k: v for k, v in sent.headers.items() if k.lower() not in dropped}
        body = await sent.aread()
        answer = await request(
            self.endpoint, sent.method, str(sent.url), headers=headers, content=body or None
        )
        kept = {k: v for k, v in answer.headers.items() if k not in NO_LONGER_TRUE}
        return httpx2.Response(answer.status, headers=kept, content=answer.body, request=sent)
