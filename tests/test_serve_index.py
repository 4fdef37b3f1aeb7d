"""citesift's own index routes over real HTTP: web pages read and added to the local index
(by ``index_add``: the route's report is the library's for the same pages), then searched,
each hit with its provenance; local files are never read from a request."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.index.rag import create_rag
from citesift.ingest import index_add
from citesift.sources.page_access import PageAccess
from local_site import page, serve_bytes, serve_page
from made_documents import pdf
from postgres_server import PostgresServer
from servers import TEST_IDENTITY, MisbehavingServer
from serving import LOCAL, running

pytestmark = pytest.mark.timeout(60)
TIDES = "The tides of the northern bay rise twice a day, pulled by the moon over the shoals."
LUNAR = "Sea levels rise and fall with the lunar pull."
ORCHARD = "The orchard on the hill grows apples and pears that ripen late in the autumn."


def test_pages_added_to_the_index_are_found_with_their_provenance(
    served: str, server: MisbehavingServer, tmp_path: Path
) -> None:
    serve_page(server, "/tides", page("Tides", [], TIDES))
    serve_page(server, "/orchard", page("Orchard", [], ORCHARD))
    urls = [server.url("/tides"), server.url("/orchard"), server.url("/missing")]
    added = httpx.post(
        f"{served}/citesift/index/documents",
        json={"urls": urls, "retrieval": "bm25"},
        timeout=30,
    )
    assert added.status_code == 200, added.text
    body = added.json()
    assert (body["added"], body["chunks"]) == (2, 2)
    assert [s["name"] for s in body["refused"]] == [server.url("/missing")]
    assert "404" in body["refused"][0]["reason"] and body["refused"][0]["kind"] == "failed"
    pages = PageAccess(TEST_IDENTITY, allow_private=True)
    library = index_add(urls, store=tmp_path / "library.db", retrieval="bm25", pages=pages)
    assert body == {"success": True, **json.loads(json.dumps(asdict(library)))}  # one report

    found = httpx.post(
        f"{served}/citesift/index/search",
        json={"query": "when do apples ripen", "top_k": 1, "retrieval": "bm25"},
    )
    assert found.status_code == 200, found.text
    [hit] = found.json()["hits"]
    assert hit["content"].startswith("The orchard")
    origin = hit["provenance"]
    assert origin["url"] == server.url("/orchard") and origin["snapshot_id"]
    source = page("Orchard", [], ORCHARD).decode()
    assert source[origin["source_start"] : origin["source_end"]].startswith("The orchard")


def test_a_pdf_s_hits_name_their_page_and_link_to_it(
    served: str, server: MisbehavingServer
) -> None:
    serve_bytes(server, "/report", pdf(["Cover of the report", LUNAR]), "application/pdf")
    added = httpx.post(f"{served}/citesift/index/documents", timeout=30,
                       json={"urls": [server.url("/report")], "retrieval": "bm25",
                             "chunk_size": 60, "chunk_overlap": 0})  # fmt: skip
    assert added.status_code == 200 and added.json()["added"] == 1, added.text
    found = httpx.post(f"{served}/citesift/index/search",
                       json={"query": "lunar pull", "top_k": 1, "retrieval": "bm25"})  # fmt: skip
    [hit] = found.json()["hits"]
    origin = hit["provenance"]
    assert origin["place"] == {"page": 2, "slide": None, "sheet": None, "paragraph": 1,
                               "row": None, "column": None}  # fmt: skip
    assert origin["fragment_url"] == server.url("/report") + "#page=2"
    blank = httpx.post(f"{served}/citesift/index/search", json={"query": " \u200b\x00"})
    assert blank.status_code == 400 and "query" in blank.text


def test_a_page_now_without_text_keeps_its_earlier_version(
    served: str, server: MisbehavingServer
) -> None:
    """A page read again that shows only a script (nothing to index) is counted empty and
    leaves the version indexed before as it was: a bad read never deletes."""
    serve_page(server, "/tides", page("Tides", [], TIDES))
    ingest = {"urls": [server.url("/tides")], "retrieval": "bm25"}
    first = httpx.post(f"{served}/citesift/index/documents", json=ingest, timeout=30)
    assert first.status_code == 200 and first.json()["added"] == 1, first.text
    script = b"<html><body><script>document.write('later')</script></body></html>"
    serve_page(server, "/tides", script)
    again = httpx.post(f"{served}/citesift/index/documents", json=ingest, timeout=30)
    assert again.status_code == 200, again.text
    assert {k: again.json()[k] for k in ("added", "removed", "empty")} == {
        "added": 0, "removed": 0, "empty": 1
    }  # fmt: skip
    found = httpx.post(f"{served}/citesift/index/search",
                       json={"query": "northern bay tides", "retrieval": "bm25"})  # fmt: skip
    assert [hit["content"] for hit in found.json()["hits"]] == [TIDES]


def test_searching_before_anything_was_added_is_a_404_saying_so(served: str) -> None:
    """As ``citesift search`` fails with "no index": an empty answer would read as "nothing
    matched"."""
    found = httpx.post(f"{served}/citesift/index/search", json={"query": "tides"})
    assert found.status_code == 404, found.text
    assert found.json()["code"] == "NO_INDEX" and "nothing is indexed" in found.json()["error"]


def test_a_postgresql_store_is_the_index_pages_are_added_to_and_searched_in(
    postgres_url: str, server: MisbehavingServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store setting names a server, not a file named after its URL; a page linked to
    with a #fragment is the same document, and each hit links to its chunk."""
    monkeypatch.chdir(tmp_path)
    serve_page(server, "/g.html", page("Tides", [], TIDES))
    urls = [server.url("/g.html"), server.url("/g.html") + "#x"]
    with running(settings=replace(LOCAL, store=postgres_url)) as base:
        added = httpx.post(f"{base}/citesift/index/documents", timeout=30,
                           json={"urls": urls, "retrieval": "bm25"})  # fmt: skip
        assert added.status_code == 200 and added.json()["added"] == 1, added.text
        assert server.hits("/g.html") == 1  # one page, read once
        found = httpx.post(f"{base}/citesift/index/search",
                           json={"query": "northern bay tides", "retrieval": "bm25"})  # fmt: skip
    assert found.status_code == 200, found.text
    [hit] = found.json()["hits"]
    assert hit["provenance"]["document_id"] == server.url("/g.html")
    assert hit["link"].startswith(server.url("/g.html") + "#:~:text=The%20tides")
    assert list(tmp_path.iterdir()) == []  # nothing written where the server runs
    with create_rag(store=postgres_url, retrieval="bm25") as rag:
        assert [document.id for document in rag.documents()] == [server.url("/g.html")]
    removed = CliRunner().invoke(app, ["index", "rm", urls[1], "--store", postgres_url])
    assert removed.exit_code == 0 and removed.stdout == "removed 1 chunk(s)\n"  # the page's


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"urls": ["file:///etc/passwd"]}, ["urls", 0]),
        ({"urls": ["/etc/passwd"]}, ["urls", 0]),
        ({"urls": []}, ["urls"]),
        ({"urls": ["http://x.test/"], "chunkSize": 10}, ["chunkSize"]),
        ({"urls": ["http://x.test/"], "chunk_size": 1}, ["chunk_size"]),
        ({"urls": ["http://x.test/"], "retrieval": "fuzzy"}, ["retrieval"]),
        ({"urls": ["http://x.test/"], "chunk_overlap": False}, ["chunk_overlap"]),
    ],
)
def test_an_ingest_that_names_a_file_or_a_bad_value_is_a_400_naming_it(
    served: str, body: dict[str, object], named: list[object]
) -> None:
    answer = httpx.post(f"{served}/citesift/index/documents", json=body)
    assert answer.status_code == 400
    assert answer.json()["details"][0]["path"] == named


@pytest.mark.parametrize("top_k", [True, False, "many", 1.5])
def test_a_top_k_that_is_not_a_whole_number_is_a_400(served: str, top_k: object) -> None:
    """``true`` is no number: pydantic's lax mode read it as 1 (and ``false`` as 0)."""
    answer = httpx.post(f"{served}/citesift/index/search", json={"query": "tides", "top_k": top_k})
    assert answer.status_code == 400, answer.text
    assert answer.json()["details"][0]["path"] == ["top_k"]


def test_the_schema_documents_the_index_routes(served: str) -> None:
    schema = httpx.get(f"{served}/openapi.json").json()
    assert {"/citesift/index/documents", "/citesift/index/search"} <= set(schema["paths"])
    hit = schema["components"]["schemas"]["IndexHit"]["properties"]
    assert {"id", "score", "content", "provenance"} <= set(hit)


def test_a_search_reads_the_server_s_open_store_without_preparing_it_again(
    postgres_url: str,
) -> None:
    """No new store per request: a migration lock another client holds (a store being
    opened elsewhere) keeps no search waiting, and an empty index is still a 404."""
    import psycopg

    from citesift.store.postgres import MIGRATION_LOCK

    create_rag(store=postgres_url, retrieval="bm25").close()  # its tables made
    with (
        running(settings=replace(LOCAL, store=postgres_url)) as base,
        psycopg.connect(postgres_url, autocommit=True) as other,
    ):
        other.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
        found = httpx.post(f"{base}/citesift/index/search", timeout=8,
                           json={"query": "tides", "retrieval": "bm25"})  # fmt: skip
    assert found.status_code == 404 and found.json()["code"] == "NO_INDEX", found.text


def test_a_store_server_gone_while_serving_is_a_503_to_retry(
    postgres: PostgresServer, postgres_url: str
) -> None:
    """Down after the server started: not the caller's fault (400) nor ours (500)."""
    import psycopg
    from psycopg import sql

    name = urlsplit(postgres_url).path.lstrip("/")
    with running(settings=replace(LOCAL, store=postgres_url)) as base:
        with psycopg.connect(postgres.server.get_uri(), autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
        found = httpx.post(f"{base}/citesift/index/search", json={"query": "tides"})
    assert found.status_code == 503 and found.headers["Retry-After"] == "30", found.text
    assert found.json()["code"] == "STORE_UNREACHABLE" and "cannot reach" in found.json()["error"]
