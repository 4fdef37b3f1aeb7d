"""``citesift index add/stats/rm`` and ``citesift search`` against a store in a temp folder."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.cli.options import EXIT_USAGE
from citesift.index.rerankers.http import VoyageReranker
from citesift.sources.files import MAX_FILE_BYTES, file_revision, file_uri
from made_documents import pdf
from openai_server import Received, Reply, serve_json
from wikipedia_server import Answer, WikipediaStandIn, fresh_stand_in

runner = CliRunner()
CONTACT = "https://example.org/contact"
HTML = {"Content-Type": "text/html; charset=utf-8"}


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "tower.txt").write_text("The Eiffel Tower opened in 1889 in Paris.")
    (folder / "notes.md").write_text("# Tides\n\nThe Moon raises two tides a day.")
    (folder / "leaf.html").write_bytes(
        b"<html><head><title>Leaves</title></head>"
        b"<body><p>Photosynthesis turns light into sugar.</p></body></html>"
    )
    (folder / "image.png").write_bytes(b"\x89PNG")
    return folder


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_add_search_stats_and_rm(corpus: Path, tmp_path: Path) -> None:
    store = str(tmp_path / "index.db")
    code, out, _ = run("index", "add", str(corpus), "--store", store, "--retrieval", "bm25")
    assert code == 0 and "indexed 3 document(s)" in out

    code, out, _ = run("search", "when did the tower open", "--store", store, "--retrieval", "bm25")
    assert code == 0 and out.startswith("1. [") and "Eiffel Tower" in out

    code, out, _ = run(
        "search", "photosynthesis", "--store", store, "--retrieval", "bm25", "--format", "json"
    )
    hit = json.loads(out)[0]
    assert hit["provenance"]["title"] == "Leaves" and hit["provenance"]["source_start"] > 0

    code, out, _ = run("index", "stats", "--store", store)
    assert json.loads(out)["documents"] == 3

    tower = str(corpus / "tower.txt")
    assert run("index", "rm", tower, "--store", store)[0] == 0
    code, out, err = run("search", "Eiffel tower", "--store", store, "--retrieval", "bm25")
    assert "Eiffel" not in out and "no results" in err


def test_dense_search_works_offline_with_the_default_embedder(corpus: Path, tmp_path: Path) -> None:
    store = str(tmp_path / "index.db")
    assert run("index", "add", str(corpus / "notes.md"), str(corpus / "tower.txt"),
               "--store", store)[0] == 0  # fmt: skip
    code, out, _ = run(
        "search",
        "lunar pull on the ocean",
        "--store",
        store,
        "--retrieval",
        "dense",
        "--top-k",
        "1",
    )  # fmt: skip  (no word in common with the note on tides)
    assert code == 0 and out.startswith("1. ") and "Moon" in out and "\n2. " not in out


def test_a_dense_search_over_a_bm25_index_says_it_embeds_the_chunks(
    corpus: Path, tmp_path: Path
) -> None:
    store = str(tmp_path / "index.db")
    assert run("index", "add", str(corpus), "--store", store, "--retrieval", "bm25")[0] == 0
    code, out, err = run("search", "tides", "--store", store, "--retrieval", "dense")
    assert code == 0 and "Moon" in out
    assert "embedding 3 chunk(s) the index holds without vectors (once)" in err
    assert "embedding" not in run("search", "tides", "--store", store, "--retrieval", "dense")[2]


def test_clear_errors(corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CITESIFT_CONTACT", raising=False)
    store = str(tmp_path / "index.db")
    code, _, err = run("index", "add", str(corpus / "image.png"), "--store", store)
    assert code == EXIT_USAGE and "only .txt" in err
    code, _, err = run("index", "add", str(tmp_path / "missing.txt"), "--store", store)
    assert code == EXIT_USAGE and "no such file" in err
    code, _, err = run("index", "add", "https://example.org/", "--store", store)
    assert code == EXIT_USAGE and "--contact" in err
    code, _, err = run("index", "rm", "nothing", "--store", store)
    assert code == 1 and "no document" in err


@pytest.mark.parametrize(
    "command", [("search", "tides"), ("index", "stats"), ("index", "ls"), ("index", "rm", "x")]
)
def test_reading_an_index_that_is_not_there(command: tuple[str, ...], tmp_path: Path) -> None:
    missing = tmp_path / "none.db"
    code, out, err = run(*command, "--store", str(missing))
    assert (code, out) == (1, "") and f"no index at {missing}" in err and not missing.exists()
    code, _, err = run(*command, "--store", str(tmp_path))  # a folder: no store can be there
    assert code == EXIT_USAGE and "cannot open a store" in err


def test_a_file_is_one_document_whichever_way_it_is_named(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = str(tmp_path / "index.db")
    monkeypatch.chdir(corpus)
    assert run("index", "add", "tower.txt", "--store", store, "--retrieval", "bm25")[0] == 0
    code, out, _ = run("index", "add", str(corpus), "tower.txt", "--store", store,
                       "--retrieval", "bm25")  # fmt: skip
    assert code == 0 and out == "indexed 2 document(s) as 2 chunk(s)\n1 document(s) unchanged\n"
    assert json.loads(run("index", "stats", "--store", store)[1])["documents"] == 3
    code, out, _ = run("index", "rm", "tower.txt", "a\x00b", "--store", store)
    assert code == 0 and out == "removed 1 chunk(s)\n"
    assert json.loads(run("index", "stats", "--store", store)[1])["documents"] == 2


def test_binary_files_are_refused_and_skipped_in_a_folder(tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "blob.txt").write_bytes(bytes(range(256)) * 40)
    (folder / "latin.txt").write_bytes(
        "Caf\u00e9 cr\u00e8me au lait, tr\u00e8s chaud.".encode("cp1252")
    )
    (folder / "wide.txt").write_text("Glaciers carve fjords slowly.", encoding="utf-16")
    store = str(tmp_path / "index.db")
    code, _, err = run("index", "add", str(folder / "blob.txt"), "--store", store)
    assert code == EXIT_USAGE and "NUL bytes" in err
    code, out, err = run("index", "add", str(folder), "--store", store, "--retrieval", "bm25")
    assert code == 0 and "indexed 2 document(s)" in out
    assert f"skipped {folder / 'blob.txt'}: holds NUL bytes" in err
    found = [run("search", q, "--store", store, "--retrieval", "bm25", "--format", "json")[1]
             for q in ("crème", "fjords")]  # fmt: skip
    assert "latin.txt" in found[0] and "Caf\u00e9 cr\u00e8me" in json.loads(found[0])[0]["content"]
    assert "wide.txt" in found[1]


def test_a_file_over_the_cap_is_refused_unread(tmp_path: Path) -> None:
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk spent
    code, _, err = run("index", "add", str(huge), "--store", str(tmp_path / "index.db"))
    assert code == EXIT_USAGE and "larger than 128 MiB" in err


@pytest.fixture
def stand_in(wikipedia_fixtures: Path) -> Iterator[WikipediaStandIn]:
    """A local site (the Wikipedia stand-in answers any path it is told to)."""
    with fresh_stand_in(wikipedia_fixtures) as server:
        yield server


def test_add_a_url_on_a_private_address_only_when_allowed(
    stand_in: WikipediaStandIn, tmp_path: Path
) -> None:
    page = b"<html><head><title>Comets</title></head><body><p>Comets have icy nuclei.</p>"
    stand_in.answer("/comets", Answer(200, HTML, page))
    url, store = stand_in.origin + "/comets", str(tmp_path / "index.db")
    code, _, err = run("index", "add", url, "--store", store, "--contact", CONTACT)
    assert code == 1 and "skipped" in err and stand_in.requests == []

    args = ("index", "add", url, "--store", store, "--retrieval", "bm25", "--contact", CONTACT)
    code, out, _ = run(*args, "--allow-private")
    assert code == 0 and "indexed 1 document(s)" in out
    code, out, _ = run(
        "search", "icy nuclei", "--store", store, "--retrieval", "bm25", "--format", "json"
    )
    hit = json.loads(out)[0]
    assert hit["content"] == "Comets have icy nuclei." and hit["provenance"]["url"] == url
    assert len(hit["provenance"]["snapshot_id"]) == 64  # the sha256 of the bytes fetched


@pytest.mark.parametrize(("extract", "menu_indexed"), [("article", False), ("page", True)])
def test_pages_and_html_files_are_read_as_extract_says(
    stand_in: WikipediaStandIn, tmp_path: Path, extract: str, menu_indexed: bool
) -> None:
    page = (
        b"<html><body><nav><ul><li><a href='/'>Homepage menu</a></li></ul></nav><article>"
        b"<p>Comets have icy nuclei that warm as they near the Sun.</p></article></body></html>"
    )
    stand_in.answer("/comets", Answer(200, HTML, page))
    (tmp_path / "comets.html").write_bytes(page)
    store = str(tmp_path / "index.db")
    sources = (stand_in.origin + "/comets", str(tmp_path / "comets.html"))
    code, out, _ = run("index", "add", *sources, "--store", store, "--retrieval", "bm25",
                       "--mode", extract, "--contact", CONTACT, "--allow-private")  # fmt: skip
    assert code == 0 and "indexed 2 document(s)" in out
    menu = run(
        "search", "homepage menu", "--store", store, "--retrieval", "bm25", "--format", "json"
    )[1]
    assert len(json.loads(menu)) == (2 if menu_indexed else 0)
    prose = run(
        "search", "icy nuclei", "--store", store, "--retrieval", "bm25", "--format", "json"
    )[1]
    assert len(json.loads(prose)) == 2


def _echo_voyage(request: Received) -> Reply:
    """A Voyage stand-in that prefers the documents naming "tides" (and echoes nothing else)."""
    documents = request.json["documents"]
    scores = [float("tides" in d.lower()) for d in documents]
    return Reply({"data": [{"index": i, "relevance_score": s} for i, s in enumerate(scores)]})


def search_with_voyage(corpus: Path, tmp_path: Path, *options: str) -> tuple[str, Received]:
    """``search`` over the corpus reranked by a Voyage stand-in: the top hit, the request."""
    store = str(tmp_path / "index.db")
    assert run("index", "add", str(corpus), "--store", store, "--retrieval", "bm25")[0] == 0
    path = VoyageReranker.api.path
    query = ("search", "eiffel tower moon", "--store", store, "--retrieval", "bm25",
             "--format", "json")  # fmt: skip
    with serve_json({path: _echo_voyage}) as voyage:
        code, out, err = run(*query, "--top-k", "1", "--rerank-url", voyage.url(""), *options)
        [request] = voyage.received(path)
    assert code == 0, err
    return json.loads(out)[0]["content"], request


def test_search_reranks_with_a_named_http_reranker(corpus: Path, tmp_path: Path) -> None:
    top, request = search_with_voyage(corpus, tmp_path, "--rerank", "voyage", "--rerank-key", "k")
    assert "Tides" in top  # BM25 alone ranks the tower first
    assert request.headers["authorization"] == "Bearer k"


def test_search_reranker_key_from_the_environment(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITESIFT_VOYAGE_API_KEY", "from-env")
    _, request = search_with_voyage(corpus, tmp_path, "--rerank", "voyage")
    assert request.headers["authorization"] == "Bearer from-env"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--rerank", "magic"), "unknown reranker"),
        (("--rerank", "cross-encoder"), "model"),
        (("--rerank", "voyage"), "set CITESIFT_VOYAGE_API_KEY or VOYAGE_API_KEY"),
    ],
)
def test_search_refuses_an_unusable_reranker(
    corpus: Path,
    tmp_path: Path,
    options: tuple[str, ...],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("CITESIFT_VOYAGE_API_KEY", VoyageReranker.api.key_env):
        monkeypatch.delenv(name, raising=False)
    code, _, err = run("search", "tides", "--store", str(tmp_path / "i.db"), *options)
    assert code == EXIT_USAGE and message in err and "Traceback" not in err


def test_a_failing_http_reranker_is_a_one_line_error(corpus: Path, tmp_path: Path) -> None:
    store = str(tmp_path / "index.db")
    assert run("index", "add", str(corpus), "--store", store, "--retrieval", "bm25")[0] == 0
    path = VoyageReranker.api.path
    with serve_json({path: lambda _: Reply({"error": "overloaded"}, status=500)}) as voyage:
        code, out, err = run("search", "tides", "--store", store, "--retrieval", "bm25",
                             "--rerank", "voyage", "--rerank-key", "k",
                             "--rerank-url", voyage.url(""))  # fmt: skip
    assert (code, out) == (1, "") and err.startswith("error: voyage rerank: 500")
    assert len(err.splitlines()) == 1


def test_search_reranks_with_a_local_cross_encoder(corpus: Path, tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    from test_rerank_http_cross_encoder import document_length_model

    model = tmp_path / "ce"
    document_length_model(model, ("input_ids", "attention_mask", "token_type_ids"))
    store = str(tmp_path / "index.db")
    assert run("index", "add", str(corpus), "--store", store, "--retrieval", "bm25")[0] == 0
    query = ("search", "moon tides tower", "--store", store, "--retrieval", "bm25",
             "--format", "json")  # fmt: skip
    assert "Moon" in json.loads(run(*query)[1])[0]["content"]
    code, out, err = run(*query, "--rerank", "cross-encoder", "--rerank-model", str(model),
                         "--rerank-weight", "1")  # fmt: skip
    assert code == 0, err
    assert "Eiffel" in json.loads(out)[0]["content"]  # the longer text wins


def test_the_index_store_can_come_from_the_environment(corpus: Path, tmp_path: Path) -> None:
    env = {"CITESIFT_STORE": str(tmp_path / "from-env.db")}
    added = runner.invoke(app, ["index", "add", str(corpus), "--retrieval", "bm25"], env=env)
    assert added.exit_code == 0 and (tmp_path / "from-env.db").is_file()
    stats = runner.invoke(app, ["index", "stats"], env=env)
    assert json.loads(stats.stdout)["documents"] == 3


def test_add_indexes_what_it_can_and_says_what_it_could_not(
    corpus: Path, tmp_path: Path, stand_in: WikipediaStandIn
) -> None:
    stand_in.answer("/comets", Answer(200, HTML, b"<p>Comets have icy nuclei.</p>"))
    stand_in.answer("/gone", Answer(404, HTML, b"<p>Not here.</p>"))
    store = str(tmp_path / "index.db")
    sources = (
        str(corpus),
        str(corpus / "image.png"),
        str(tmp_path / "missing.md"),
        stand_in.origin + "/comets",
        stand_in.origin + "/gone",
        "http://127.0.0.1:9/",
    )
    code, out, err = run("index", "add", *sources, "--store", store, "--retrieval", "bm25",
                         "--contact", CONTACT, "--allow-private")  # fmt: skip
    assert code == 0 and out == "indexed 4 document(s) as 4 chunk(s)\n"
    lines = err.splitlines()
    assert f"skipped {corpus / 'image.png'}: only .txt" in err
    assert f"skipped {tmp_path / 'missing.md'}: no such file, folder or URL" in lines
    assert any(
        line.startswith(f"skipped {stand_in.origin}/gone: skipped (HTTP 404)") for line in lines
    )
    assert any(line.startswith("skipped http://127.0.0.1:9/: ") for line in lines)
    assert lines[-1] == "skipped 4 source(s) that could not be read"
    assert "Comets" in run("search", "icy nuclei", "--store", store, "--retrieval", "bm25")[1]

    code, out, err = run("index", "add", str(tmp_path / "missing.md"), "http://127.0.0.1:9/",
                         "--store", store, "--contact", CONTACT, "--allow-private")  # fmt: skip
    assert code == 1 and out == "" and err.splitlines()[-1] == "error: nothing was indexed"


def test_ids_are_uris_and_rm_takes_a_path_a_file_uri_or_a_url(
    corpus: Path, tmp_path: Path, stand_in: WikipediaStandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in.answer("/comets", Answer(200, HTML, b"<title>Comets</title><p>Icy nuclei.</p>"))
    store = str(tmp_path / "index.db")
    page = stand_in.origin + "/comets"
    monkeypatch.chdir(corpus)
    assert run("index", "add", ".", page, "--store", store, "--retrieval", "bm25",
               "--contact", CONTACT, "--allow-private")[0] == 0  # fmt: skip
    code, out, _ = run("index", "ls", "--store", store)
    base = corpus.resolve().as_uri()
    assert code == 0 and out.splitlines() == [
        f"{base}/leaf.html\t1\tLeaves",
        f"{base}/notes.md\t1\tTides",
        f"{base}/tower.txt\t1\ttower",
        f"{page}\t1\tComets",
    ]
    assert run("index", "rm", "leaf.html", "--store", store)[0] == 0  # an HTML file by its path
    assert run("index", "rm", f"file://{corpus}/./notes.md", "--store", store)[0] == 0
    assert run("index", "rm", page, "--store", store)[0] == 0
    listed = json.loads(run("index", "ls", "--store", store, "--format", "json")[1])
    tower = f"{base}/tower.txt"
    revision = file_revision(corpus / "tower.txt", (corpus / "tower.txt").read_bytes())
    assert listed == [
        {"id": tower, "title": "tower", "url": tower, "chunks": 1, "revision": revision}
    ]


@pytest.mark.parametrize(
    ("options", "message"),
    [(("--chunk-size", "0"), "chunk_size must be"),
     (("--chunk-size", "1"), "chunk_size must be a whole number from 20"),
     (("--chunk-size", "30", "--chunk-overlap", "30"), "chunk_overlap must be")],
)  # fmt: skip
def test_unusable_chunking_is_a_usage_error_before_any_read(
    stand_in: WikipediaStandIn, tmp_path: Path, options: tuple[str, ...], message: str
) -> None:
    stand_in.answer("/comets", Answer(200, HTML, b"<p>Comets have icy nuclei.</p>"))
    store = str(tmp_path / "i.db")
    code, out, err = run("index", "add", stand_in.origin + "/comets", *options, "--store", store,
                         "--contact", CONTACT, "--allow-private")  # fmt: skip
    assert (code, out) == (EXIT_USAGE, "") and message in err and stand_in.requests == []


def test_a_text_file_s_hits_are_attributed_as_a_note_s_are(corpus: Path, tmp_path: Path) -> None:
    store = str(tmp_path / "index.db")
    assert run("index", "add", str(corpus), "--store", store, "--retrieval", "bm25")[0] == 0
    found = {}
    for query in ("Eiffel", "Moon"):
        out = run("search", query, "--store", store, "--retrieval", "bm25",
                  "--format", "json", "--top-k", "1")[1]  # fmt: skip
        found[query] = json.loads(out)[0]["provenance"]
    tower, notes = found["Eiffel"], found["Moon"]
    assert tower["title"] == "tower" and notes["title"] == "Tides"
    uri = file_uri(corpus / "tower.txt")
    assert (tower["url"], tower["key"], tower["site"]) == (uri, uri, "file")
    assert tower["revision"] == file_revision(
        corpus / "tower.txt", (corpus / "tower.txt").read_bytes()
    )
    assert (tower["block"], tower["source_start"], tower["source_end"]) == (0, 0, 41)
    assert all(notes[k] is not None for k in ("url", "key", "site", "revision", "block"))


def test_a_pdf_s_hits_name_their_page_and_link_to_it(tmp_path: Path) -> None:
    report = tmp_path / "report.pdf"
    report.write_bytes(pdf(["Cover of the annual report", "Sea levels rise with the lunar pull."]))
    store = str(tmp_path / "index.db")
    assert run("index", "add", str(report), "--store", store, "--retrieval", "bm25",
               "--chunk-size", "40", "--chunk-overlap", "0")[0] == 0  # fmt: skip
    code, out, _ = run("search", "lunar pull", "--store", store, "--retrieval", "bm25",
                       "--format", "json", "--top-k", "1")  # fmt: skip
    origin = json.loads(out)[0]["provenance"]
    assert origin["place"]["page"] == 2 and origin["place"]["paragraph"] == 1
    assert origin["fragment_url"] == file_uri(report) + "#page=2"
    code, out, _ = run("search", "annual report", "--store", store, "--retrieval", "bm25")
    assert code == 0 and out.splitlines()[0].endswith("(page 1, paragraph 1)")


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (("",), "query must be text with something to look for"),
        ((" \t",), "query must be"),
        (("\x01\u200b",), "query must be"),
        (("\udcff",), "query '\\udcff' holds a lone surrogate"),  # a byte that is not UTF-8
        (("tides", "--top-k", "0"), "top_k must be a whole number from 1"),
        (("tides", "--top-k", "99999999999999999999999"), "top_k must be a whole number from 1"),
    ],
)
def test_a_search_with_nothing_to_look_for_or_a_bad_top_k_is_a_usage_error(
    corpus: Path, tmp_path: Path, arguments: tuple[str, ...], said: str
) -> None:
    store = str(tmp_path / "index.db")
    assert run("index", "add", str(corpus), "--store", store, "--retrieval", "bm25")[0] == 0
    code, out, err = run("search", *arguments, "--store", store, "--retrieval", "bm25")
    assert (code, out) == (EXIT_USAGE, "") and said in err


def test_an_empty_file_is_said_skipped_not_indexed(corpus: Path, tmp_path: Path) -> None:
    store = str(tmp_path / "index.db")
    (corpus / "empty.md").write_text("")
    (corpus / "blank.txt").write_text("  \n\n")
    code, out, _ = run("index", "add", str(corpus), "--store", store, "--retrieval", "bm25")
    assert code == 0 and "indexed 3 document(s) as 3 chunk(s)" in out
    assert "skipped 2 empty document(s)" in out
    listed = run("index", "ls", "--store", store)[1]
    assert "empty.md" not in listed and "blank.txt" not in listed and len(listed.splitlines()) == 3
    assert json.loads(run("index", "stats", "--store", store)[1])["documents"] == 3
    code, out, _ = run("index", "add", str(corpus / "empty.md"), "--store", store)
    assert code == 0 and "skipped 1 empty document(s)" in out and "chunk(s)" not in out


def strict_json(text: str) -> object:
    """``text`` read as JSON that may hold no NaN or Infinity (as JSON.parse and most
    readers outside Python refuse them)."""

    def refused(constant: str) -> object:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refused)


def test_a_note_s_nan_front_matter_is_indexed_as_null_and_output_is_strict_json(
    tmp_path: Path,
) -> None:
    note, store = tmp_path / "n.md", str(tmp_path / "index.db")
    note.write_text("---\ntitle: Tides\nscore: .nan\nweight: .inf\n---\nThe Moon raises tides.")
    code, out, err = run("index", "add", str(note), "--store", store, "--retrieval", "bm25")
    assert code == 0 and "indexed 1 document(s)" in out, err
    listed = strict_json(run("index", "ls", "--store", store, "--format", "json")[1])
    assert [document["title"] for document in listed] == ["Tides"]  # type: ignore[union-attr,index]
    code, out, _ = run("search", "moon", "--store", store, "--retrieval", "bm25",
                       "--format", "json")  # fmt: skip
    [hit] = strict_json(out)  # type: ignore[misc]
    assert code == 0 and hit["metadata"]["frontmatter"] == {"title": "Tides", "score": None,
                                                            "weight": None}  # fmt: skip


def test_a_file_emptied_since_it_was_indexed_keeps_its_earlier_version(tmp_path: Path) -> None:
    """A version with no text is no reason to lose the one indexed: it is said kept, and it
    is still listed and found; index rm is the way to remove it."""
    note, store = tmp_path / "k.txt", str(tmp_path / "index.db")
    note.write_text("The Moon raises two tides.\n")
    assert run("index", "add", str(note), "--store", store, "--retrieval", "bm25")[0] == 0
    note.write_text("  \n")
    code, out, _ = run("index", "add", str(note), "--store", store, "--retrieval", "bm25")
    assert code == 0 and "skipped 1 empty document(s)" in out and "kept the earlier version" in out
    listed = run("index", "ls", "--store", store)[1]
    assert listed.startswith(f"{file_uri(note)}\t1\t")
    code, out, _ = run("search", "tides", "--store", store, "--retrieval", "bm25")
    assert code == 0 and "The Moon raises two tides." in out
    assert run("index", "rm", str(note), "--store", store)[0] == 0
    assert run("index", "ls", "--store", store)[1] == ""


def test_hybrid_scores_are_positive_and_min_similarity_leaves_out_unrelated(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "tides.md").write_text("The Moon's gravity raises tides in the oceans twice a day.")
    store = str(tmp_path / "index.db")
    assert run("index", "add", str(folder), "--store", store)[0] == 0
    code, out, _ = run("search", "moon tides", "--store", store, "--format", "json")
    assert code == 0
    [alone] = json.loads(out)
    assert alone["score"] == pytest.approx(2 / 61)  # first in both lists, not 0
    (folder / "bread.md").write_text("Bread is baked from flour, water, salt and yeast.")
    (folder / "sea.md").write_text("Sea levels rise and fall with the lunar pull.")
    assert run("index", "add", str(folder), "--store", store)[0] == 0
    hits = json.loads(run("search", "moon tides", "--store", store, "--format", "json")[1])
    assert [h["provenance"]["title"] for h in hits] == ["tides", "sea", "bread"]
    assert hits[0]["score"] > hits[1]["score"] > hits[2]["score"] > 0
    code, out, _ = run("search", "moon tides", "--store", store, "--format", "json",
                       "--min-similarity", "0.3")  # fmt: skip
    assert code == 0
    kept = json.loads(out)
    assert [h["provenance"]["title"] for h in kept] == ["tides", "sea"]  # bread: unrelated
    assert [h["score"] for h in kept] == [h["score"] for h in hits[:2]]


def test_rm_of_a_url_with_a_fragment_removes_that_id_when_kept_else_the_page(
    tmp_path: Path,
) -> None:
    """A store an older version filled keeps a page's ``#fragment`` in its id: ``rm`` of
    that URL removes that document alone; a fragment no document has names the page."""
    from citesift.index.rag import create_rag

    store = str(tmp_path / "s.db")
    page = "https://example.org/tides"
    with create_rag(store=store, retrieval="bm25") as rag:
        rag.ingest(
            [{"id": page + "#x", "content": "Old tides."}, {"id": page, "content": "Tides."}]
        )
    with_fragment = CliRunner().invoke(app, ["index", "rm", page + "#x", "--store", store])
    assert with_fragment.exit_code == 0 and with_fragment.stdout == "removed 1 chunk(s)\n"
    with create_rag(store=store, retrieval="bm25") as rag:
        assert [document.id for document in rag.documents()] == [page]
    other = CliRunner().invoke(app, ["index", "rm", page + "#y", "--store", store])
    assert other.exit_code == 0 and other.stdout == "removed 1 chunk(s)\n"
    with create_rag(store=store, retrieval="bm25") as rag:
        assert rag.documents() == []
