"""A stand-in for the two S3 calls the loader makes (ListObjectsV2 and GetObject, path
style), whose listing pages and objects misbehave as a test scripts them.

    s3 = S3StandIn(server, "bucket")
    s3.pages = {None: (["docs/a.md"], "t2"), "t2": (["docs/b.md"], None)}
    s3.objects["docs/a.md"] = text_answer("# A")
"""

from __future__ import annotations

from urllib.parse import quote
from xml.sax.saxutils import escape

from servers import MisbehavingServer, Query, Request, Route

Page = tuple[list[str], str | None]
"""The keys of a listing page and the continuation token of the next (None: the last)."""


class S3StandIn:
    """Serves ``bucket`` on ``server``: ``pages`` by continuation token, ``objects`` by key."""

    def __init__(self, server: MisbehavingServer, bucket: str) -> None:
        self.bucket = bucket
        self.pages: dict[str | None, Page] = {}
        self.objects: dict[str, Route] = {}
        server.route(f"/{bucket}", self._listing)
        self._server = server

    def serve_objects(self) -> None:
        """Route each scripted object by its path (call after filling ``objects``)."""
        for key, route in self.objects.items():
            self._server.route(f"/{self.bucket}/{quote(key)}", route)

    def _listing(self, request: Request, query: Query) -> None:
        keys, token = self.pages[query.get("continuation-token")]
        contents = "".join(
            f"<Contents><Key>{escape(key)}</Key><ETag>&quot;etag-{escape(key)}&quot;</ETag>"
            f"<Size>1</Size></Contents>"
            for key in keys
        )
        more = f"<NextContinuationToken>{token}</NextContinuationToken>" if token else ""
        body = (
            '<?xml version="1.0" encoding="UTF-8"?>'
            '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
            f"<Name>{self.bucket}</Name><KeyCount>{len(keys)}</KeyCount>"
            f"<IsTruncated>{'true' if token else 'false'}</IsTruncated>{more}{contents}"
            "</ListBucketResult>"
        ).encode()
        request.answer(200, body, {"Content-Type": "application/xml"})
