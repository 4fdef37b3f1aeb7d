"""Index hits of PDF and Office files keep their place (page, slide or sheet) in both stores
and in every output that shows provenance; a query with nothing to look for and a top k out
of bounds are refused; documents with no text are counted apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citesift import index_add
from citesift.errors import InvalidArgument
from citesift.index.documents import as_ingest_doc, chunk_provenance
from citesift.index.rag import create_rag
from citesift.mcp_server.shapes import match_item
from citesift.model import Block, Match, Place, Provenance, SourceDocument
from citesift.sources.files import file_uri
from citesift.store.chunks import provenance_from, provenance_json
from citesift.text.chunking import Chunk
from made_documents import pdf, sheets_file, slides_file
from test_rag_helpers import HashEmbedder


def report(folder: Path) -> Path:
    """A PDF of three pages, the third on the tides."""
    path = folder / "report.pdf"
    pages = ["Annual report of the harbour", "Ships and cranes", "Tides follow the lunar pull."]
    path.write_bytes(pdf(pages))
    return path


def test_a_pdf_s_chunks_keep_their_page_in_the_store_read_back(
    tmp_path: Path, store_location: str
) -> None:
    path = report(tmp_path)
    added = index_add([str(path)], store=store_location, retrieval="bm25", chunk_size=30,
                      chunk_overlap=0)  # fmt: skip
    assert added.added == 1 and added.chunks >= 3
    with create_rag(store=store_location, retrieval="bm25") as rag:  # a new reader of the store
        [hit] = rag.search("lunar pull", top_k=1)
        cover = rag.search("harbour", top_k=1)[0]
    assert hit.provenance is not None and cover.provenance is not None
    assert hit.provenance.place == Place(page=3, paragraph=1)
    assert hit.provenance.fragment_url == file_uri(path) + "#page=3"
    assert cover.provenance.place == Place(page=1, paragraph=1)
    assert cover.provenance.fragment_url == file_uri(path) + "#page=1"


def test_a_slide_s_place_has_no_page_so_its_link_is_the_file() -> None:
    from citesift.extract.document import extract_document

    document = extract_document(slides_file(), url="file:///deck.pptx", site="file", key="d")
    ingested = as_ingest_doc(document)
    origin = chunk_provenance(ingested, Chunk(ingested.content[:5], 0, 5), 0)
    assert origin.place is not None and origin.place.slide == 1 and origin.place.page is None
    assert origin.fragment_url == "file:///deck.pptx"


def test_a_web_page_s_chunks_have_no_place_and_rows_kept_before_places_read_back() -> None:
    page = SourceDocument("web", "k", "T", "https://example.org/a", None, 0, None,
                          (Block("Tides rise.", "paragraph", (), 10, 21),))  # fmt: skip
    ingested = as_ingest_doc(page)
    origin = chunk_provenance(ingested, Chunk("Tides rise.", 0, 11), 0)
    assert origin.place is None and origin.fragment_url is None
    assert "place" not in json.loads(provenance_json(origin))
    old = {"title": "T", "url": "https://example.org/a", "block": 0}  # kept before places were
    assert provenance_from("d", 0, 0, 5, old).place is None
    assert provenance_from("d", 0, 0, 5, {**old, "place": "page 2"}).place is None  # no place
    kept = provenance_from("d", 0, 0, 5, {**old, "place": {"page": 2, "row": 0}})
    assert kept.place == Place(page=2)  # only what a place can hold


def test_mcp_passages_of_the_index_name_their_place() -> None:
    link, place = "file:///r.pdf#page=2", Place(page=2, paragraph=1)
    origin = Provenance("file:///r.pdf", 0, 0, 5, url="file:///r.pdf", fragment_url=link,
                        place=place)  # fmt: skip
    item = match_item(Match("c", 0.5, "Tides", {}, origin))
    assert (item["place"], item["link"]) == ("page 2, paragraph 1", "file:///r.pdf#page=2")
    plain = match_item(Match("c", 0.5, "Tides", {}, Provenance("d", 0, 0, 5)))
    assert plain["place"] is None


@pytest.mark.parametrize("query", ["", "   ", "\x00", "\t\n\u200b\x7f"])
def test_a_query_with_nothing_to_look_for_is_refused(tmp_path: Path, query: str) -> None:
    with create_rag(HashEmbedder(), tmp_path / "s.db") as rag:
        rag.ingest([{"id": "a", "content": "The moon raises the tides."}])
        with pytest.raises(InvalidArgument, match="query must be text with something"):
            rag.search(query)
        with pytest.raises(InvalidArgument, match="query must be"):
            rag.retrieve(messages=[{"role": "user", "content": query}])
        assert rag.search("\x00tides")[0].id == "a_chunk_0"  # controls around words are fine


@pytest.mark.parametrize("top_k", [0, -1, 10**6 + 1, 99999999999999999999999, 2.5, True])
def test_a_top_k_out_of_bounds_is_refused(tmp_path: Path, top_k: object) -> None:
    rag = create_rag(HashEmbedder(), tmp_path / "s.db")
    with rag, pytest.raises(InvalidArgument, match="top_k must be"):
        rag.search("tides", top_k=top_k)  # type: ignore[arg-type]


def test_documents_with_no_text_are_counted_apart_and_not_listed(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("The moon raises the tides.")
    (tmp_path / "empty.md").write_text("")
    (tmp_path / "blank.txt").write_text("\n \n")
    store = tmp_path / "s.db"
    added = index_add([str(tmp_path)], store=store, retrieval="bm25", glob=("*.md", "*.txt"))
    assert (added.added, added.empty, added.chunks, added.did_nothing) == (1, 2, 1, False)
    with create_rag(store=store, retrieval="bm25") as rag:
        assert [d.id for d in rag.documents()] == [file_uri(tmp_path / "a.md")]
    (tmp_path / "a.md").write_text("")  # emptied: counted empty, its earlier version kept
    again = index_add([str(tmp_path / "a.md")], store=store, retrieval="bm25")
    assert (again.added, again.empty) == (0, 1)
    with create_rag(store=store, retrieval="bm25") as rag:
        assert [(d.id, d.chunks) for d in rag.documents()] == [(file_uri(tmp_path / "a.md"), 1)]


@pytest.mark.parametrize(
    ("name", "body", "query", "place", "held", "elsewhere"),
    [
        ("tides.pdf", pdf(["Harbour cranes lift ships.", "Spring tides rise high."]),
         "spring tides", Place(page=2, paragraph=1), "Spring tides rise high.", "Harbour"),
        ("book.xlsx", sheets_file(), "audited", Place(sheet="Notes", row=7, column=3),
         "Audited in May", "North"),
        ("deck.pptx", slides_file(), "rangers", Place(slide=2, paragraph=1),
         "Hire two rangers.", "Costs"),  # the slide's title, its first paragraph, begins it
    ],
    ids=["pdf", "xlsx", "pptx"],
)  # fmt: skip
def test_no_chunk_runs_across_a_page_slide_or_sheet(
    tmp_path: Path, name: str, body: bytes, query: str, place: Place, held: str, elsewhere: str
) -> None:
    path = tmp_path / name
    path.write_bytes(body)
    store = tmp_path / "s.db"
    index_add([str(path)], store=store, retrieval="bm25")  # the default size holds the whole
    with create_rag(store=store, retrieval="bm25") as rag:
        hit = rag.search(query, top_k=1)[0]
    assert hit.provenance is not None and hit.provenance.place == place
    assert held in hit.content and elsewhere not in hit.content
    link = file_uri(path) + (f"#page={place.page}" if place.page else "")
    assert hit.provenance.fragment_url == link
