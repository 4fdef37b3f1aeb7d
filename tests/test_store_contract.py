"""What every store promises, held against each backend (SQLite and PostgreSQL): snapshots,
the embedding cache, the limiter's shared budget, chunks indexed and searched alike, the
crawl frontier shared by workers under leases, and research runs."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from citesift.errors import InvalidArgument, NotFound
from citesift.index.embedders.base import normalise_rows
from citesift.index.partition import PartitionedRag
from citesift.index.rag import Rag, create_rag
from citesift.model import Snapshot
from citesift.store import AnyStore, open_store
from citesift.store.embeddings import (
    count_vectors,
    forget_vectors,
    load_vectors,
    migrate_embeddings,
    save_vectors,
)
from citesift.store.frontier import Added, Entry, frontier_in
from citesift.store.limits import budget_in
from citesift.store.runs import runs_in, stored_run
from citesift.store.snapshots import SnapshotCorrupted, snapshots_in

pytestmark = pytest.mark.timeout(90)

DOCUMENTS = [
    {
        "id": "tides",
        "content": "The tides rise and fall twice a day. The moon pulls the oceans toward it. "
        "Spring tides come when the sun and moon line up.",
        "metadata": {"title": "Tides", "topic": "sea"},
    },
    {
        "id": "bees",
        "content": "Honey bees dance to tell others where flowers are. A colony has one queen. "
        "Worker bees gather nectar and pollen from flowers.",
        "metadata": {"title": "Bees", "topic": "insects"},
    },
    {
        "id": "moon",
        "content": "The moon has no air. Its craters were made by falling rocks. "
        "Astronauts walked on the moon in 1969.",
        "metadata": {"title": "The Moon", "topic": "space"},
    },
    {
        "id": "ants",
        "content": "Ants live in colonies with a queen, like bees. They follow scent trails to "
        "food and carry many times their weight.",
        "metadata": {"title": "Ants", "topic": "insects"},
    },
]


class HashEmbedder:
    """Deterministic unit vectors from the words of a text (shared words: nearer vectors)."""

    name = "hash/16"
    dim = 16

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = np.zeros((len(texts), self.dim))
        for row, text in enumerate(texts):
            for word in text.lower().split():
                digest = hashlib.sha256(word.strip(".,").encode()).digest()
                rows[row, digest[0] % self.dim] += 1.0
        return normalise_rows(rows + 1e-3)


@pytest.fixture
def store(store_location: str) -> Iterator[AnyStore]:
    with open_store(store_location) as opened:
        yield opened


def snapshot(body: bytes, url: str, at: int) -> Snapshot:
    return Snapshot(
        id=hashlib.sha256(body).hexdigest(),
        url=url,
        final_url=url + "?moved",
        status=200,
        headers=(("content-type", "text/html"), ("etag", '"e"')),
        content_type="text/html",
        charset=None,
        fetched_at=at,
        body=body,
    )


def test_snapshots_come_back_by_id_url_and_final_url_newest_first(store: AnyStore) -> None:
    snapshots = snapshots_in(store)
    old, new = (
        snapshot(b"<p>old</p>", "https://a.example/", 1),
        snapshot(b"\x00new", "https://a.example/", 2),
    )
    assert snapshots.save(old) == old.id and snapshots.save(new) == new.id
    snapshots.save(old)  # saved twice: still one fetch
    assert snapshots.get(old.id) == old and snapshots.get(new.id) == new
    assert snapshots.latest("https://a.example/") == new
    assert snapshots.latest("https://a.example/?moved") == new
    assert snapshots.latest("https://b.example/") is None and snapshots.get("0" * 64) is None


def test_a_snapshot_that_does_not_match_its_body_is_refused(store: AnyStore) -> None:
    wrong = replace(snapshot(b"a", "https://a.example/", 1), body=b"b")
    with pytest.raises(SnapshotCorrupted):
        snapshots_in(store).save(wrong)


def test_snapshots_and_vectors_outlive_the_handle(store_location: str) -> None:
    kept = snapshot(b"<p>kept</p>", "https://a.example/", 5)
    vector = normalise_rows(np.arange(1, 9, dtype=np.float32).reshape(1, 8))
    with open_store(store_location) as first:
        snapshots_in(first).save(kept)
        migrate_embeddings(first)
        save_vectors(first, "e/8", ["k"], vector)
    with open_store(store_location) as second:
        assert snapshots_in(second).latest(kept.url) == kept
        assert np.array_equal(load_vectors(second, "e/8", 8, ["k"])["k"], vector[0])


def test_the_embedding_cache_keeps_vectors_bit_for_bit_per_embedder(store: AnyStore) -> None:
    migrate_embeddings(store)
    rows = np.random.default_rng(3).normal(size=(600, 4)).astype(np.float32)
    keys = [f"k{i}" for i in range(600)]
    save_vectors(store, "a/4", keys, rows)
    save_vectors(store, "b/4", keys[:2], rows[:2] * 2)
    found = load_vectors(store, "a/4", 4, [*keys, "missing"])
    assert len(found) == 600 and all(
        np.array_equal(found[k], r) for k, r in zip(keys, rows, strict=True)
    )
    assert load_vectors(store, "a/4", 3, keys[:5]) == {}  # another size is not this embedder's
    assert count_vectors(store) == 602 and count_vectors(store, "b/4") == 2
    save_vectors(store, "b/4", keys[:1], rows[:1])  # replaced, not added
    assert count_vectors(store, "b/4") == 2
    assert np.array_equal(load_vectors(store, "b/4", 4, keys[:1])["k0"], rows[0])
    assert forget_vectors(store, "a/4") == 600 and count_vectors(store) == 2


def test_the_shared_budget_spaces_counts_and_blocks_starts(store_location: str) -> None:
    with open_store(store_location) as one, open_store(store_location) as two:
        first, second = budget_in(one), budget_in(two)
        assert first.claim("h", 1_000, 250, 3) is None
        assert second.claim("h", 1_100, 250, 3) == pytest.approx(150)  # spacing seen by both
        assert second.claim("h", 1_250, 250, 3) is None
        assert first.claim("other", 1_250, 250, 3) is None  # hosts are apart
        assert first.claim("h", 1_500, 250, 3) is None
        assert second.claim("h", 1_800, 250, 3) == "minute"
        assert first.claim("h", 62_000, 250, 3) is None  # the minute passed
        assert first.blocked_until("h") is None
        first.block("h", 90_000)
        second.block("h", 80_000)  # a later block never shortens one
        assert second.blocked_until("h") == 90_000
        assert second.claim("h", 85_000, 0, 100) == "blocked"
        assert second.claim("h", 90_000, 0, 100) is None


def test_claims_from_many_threads_never_exceed_the_minute_budget(store_location: str) -> None:
    granted: list[bool] = []
    with open_store(store_location) as shared:
        budget = budget_in(shared)

        def claim() -> None:
            granted.append(budget.claim("busy", 5_000, 0, 7) is None)

        threads = [threading.Thread(target=claim) for _ in range(20)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert granted.count(True) == 7 and len(granted) == 20


def rag(store: AnyStore, mode: str = "hybrid", **options: Any) -> Rag:
    return create_rag(HashEmbedder(), store, mode, chunk_size=80, **options)  # type: ignore[arg-type]


class ranked:
    """Hits' ids in order, with their scores equal to within float noise (two stores sum
    the same terms in different orders)."""

    def __init__(self, hits: Sequence[Any]) -> None:
        self.ids = [h.id for h in hits]
        self.scores = [float(h.score) for h in hits]

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ranked)
            and self.ids == other.ids
            and self.scores == pytest.approx(other.scores, rel=1e-5, abs=1e-5)
        )

    def __repr__(self) -> str:
        return repr(list(zip(self.ids, self.scores, strict=True)))


def test_chunks_are_counted_listed_replaced_and_deleted(store: AnyStore) -> None:
    index = rag(store, "bm25")
    assert not index.has_documents()
    index.ingest(DOCUMENTS)
    assert index.has_documents()
    stats = index.stats()
    assert stats.documents == 4 and stats.chunks >= 8 and stats.partitions == 1
    assert [(d.id, d.title) for d in index.documents()] == [
        ("ants", "Ants"),
        ("bees", "Bees"),
        ("moon", "The Moon"),
        ("tides", "Tides"),
    ]
    index.ingest([{"id": "bees", "content": "Bees make wax.", "metadata": {"title": "Bees"}}])
    assert all(h.provenance.document_id != "bees" for h in index.search("nectar pollen", 5))
    assert [h.content for h in index.search("wax", 3)] == ["Bees make wax."]
    assert index.delete(["bees", "nothing"]) == 1 and index.stats().documents == 3
    assert index.search("wax", 3) == []
    assert index.delete(["ants", "moon", "tides"]) > 0 and not index.has_documents()
    team = PartitionedRag(index, "team-a", 4)
    team.ingest([{"id": "notes", "content": "Team notes."}])
    assert team.has_documents() and not PartitionedRag(index, "team-b", 4).has_documents()


def test_a_chunk_holding_nul_characters_is_kept_with_its_offsets(store: AnyStore) -> None:
    index = rag(store, "bm25")
    index.ingest([{"id": "raw", "content": "Binary\x00junk between words about lighthouses."}])
    [hit] = index.search("lighthouses", 3)
    assert (
        hit.content.replace("\x00", "\ufffd") == "Binary\ufffdjunk between words about lighthouses."
    )
    assert (hit.provenance.start, hit.provenance.end) == (0, len(hit.content))


def test_bm25_ranks_and_scores_alike_on_both_stores(store: AnyStore, tmp_path: Any) -> None:
    """The PostgreSQL store scores BM25 from the postings it holds, read in one snapshot; the
    embedded one in memory: the same hits, in the same order, with the same scores."""
    reference = rag(open_store(str(tmp_path / "reference.db")), "bm25")
    tested = rag(store, "bm25")
    for index in (reference, tested):
        index.ingest(DOCUMENTS)
    for query in ("moon tides", "queen colony", "flowers", "falling rocks 1969", "zebra"):
        assert ranked(tested.search(query, 6)) == ranked(reference.search(query, 6)), query
    only = {"topic": "insects"}
    assert ranked(tested.search("queen", 6, filter=only)) == ranked(
        reference.search("queen", 6, filter=only)
    )


def test_replaced_and_deleted_documents_leave_no_term_counts_behind(
    store: AnyStore, tmp_path: Any
) -> None:
    """A store that replaced one document and deleted another ranks and scores as one that
    only ever held what is left: the term counts of what went went with it."""
    bees = {
        "id": "bees",
        "content": "Bees make wax and honey. A queen leads the colony.",
        "metadata": {"title": "Bees", "topic": "insects"},
    }
    reference = rag(open_store(str(tmp_path / "reference.db")), "bm25")
    reference.ingest([d for d in DOCUMENTS if d["id"] not in {"bees", "ants"}] + [bees])
    tested = rag(store, "bm25")
    tested.ingest(DOCUMENTS)
    tested.ingest([bees])
    assert tested.delete(["ants"]) >= 1
    for query in ("queen colony bees", "moon tides", "wax honey flowers", "scent trails"):
        assert ranked(tested.search(query, 6)) == ranked(reference.search(query, 6)), query


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_dense_and_hybrid_search_find_the_nearest_chunks(
    store: AnyStore, tmp_path: Any, mode: str
) -> None:
    reference = rag(open_store(str(tmp_path / "reference.db")), mode)
    tested = rag(store, mode)
    for index in (reference, tested):
        index.ingest(DOCUMENTS)
    for query in ("the moon pulls the oceans", "worker bees gather nectar"):
        got, want = tested.search(query, 4), reference.search(query, 4)
        assert [h.id for h in got] == [h.id for h in want], query
        assert [h.score for h in got] == pytest.approx([h.score for h in want], abs=1e-5)
    space = tested.search("moon", 10, filter={"topic": "space"})
    assert space and {h.provenance.document_id for h in space} == {"moon"}


def test_concurrent_ingest_and_search_lose_nothing(store_location: str) -> None:
    """Writers on their own handles and a reader searching all along: every document is
    there at the end, and no search fails meanwhile."""
    errors: list[BaseException] = []
    done = threading.Event()

    def write(worker: int) -> None:
        try:
            with open_store(store_location) as own:
                index = rag(own, "bm25")
                for n in range(10):
                    word = f"w{worker}x{n}"
                    index.ingest([{"id": f"{worker}-{n}", "content": f"Note {word} about bees."}])
        except BaseException as error:  # handed to the test's thread
            errors.append(error)

    def read() -> None:
        try:
            with open_store(store_location) as own:
                index = rag(own, "bm25")
                while not done.is_set():
                    index.search("bees", 5)
        except BaseException as error:
            errors.append(error)

    reader = threading.Thread(target=read)
    writers = [threading.Thread(target=write, args=(w,)) for w in range(4)]
    reader.start()
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join()
    done.set()
    reader.join()
    assert errors == []
    with open_store(store_location) as fresh:
        index = rag(fresh, "bm25")
        assert index.stats().documents == 40
        for worker in range(4):
            hits = index.search(f"w{worker}x9", 3)
            assert [h.provenance.document_id for h in hits] == [f"{worker}-9"]


def test_store_migrate_copies_an_embedded_store_to_postgres_without_loss(
    tmp_path: Any, postgres_url: str
) -> None:
    import json

    from typer.testing import CliRunner

    from citesift.cli import app
    from citesift.index.rag import chunk_store

    path = str(tmp_path / "embedded.db")
    with open_store(path) as embedded:
        kept = [snapshot(b"<p>one</p>", "https://a.example/1", 1)]
        kept.append(snapshot(b"<p>two</p>", "https://a.example/1", 2))
        for one in kept:
            snapshots_in(embedded).save(one)
        rag(embedded).ingest(DOCUMENTS)
        budget_in(embedded).block("slow.example", 123_456.0)
        before = list(chunk_store(embedded).table.all())  # type: ignore[attr-defined]
        cached = count_vectors(embedded)
    assert cached == len(before) and all(c.vector is not None for c in before)

    command = ["store", "migrate", "--from", path, "--to", postgres_url, "--format", "json"]
    first = CliRunner().invoke(app, command)
    assert first.exit_code == 0, first.output
    counts = json.loads(first.stdout)
    assert counts == {
        "snapshots": 2,
        "documents": 4,
        "chunks": len(before),
        "vectors": cached,
        "blocks": 1,
    }
    assert CliRunner().invoke(app, command).exit_code == 0  # again: nothing twice

    with open_store(postgres_url) as copied, open_store(path) as embedded:
        after = list(chunk_store(copied).table.all())  # type: ignore[attr-defined]
        assert [
            (c.id, c.content, c.metadata, c.provenance, c.context, c.embedder) for c in after
        ] == [(c.id, c.content, c.metadata, c.provenance, c.context, c.embedder) for c in before]
        assert all(np.array_equal(a.vector, b.vector) for a, b in zip(after, before, strict=True))
        assert snapshots_in(copied).latest("https://a.example/1") == kept[1]
        assert snapshots_in(copied).get(kept[0].id) == kept[0]
        assert count_vectors(copied) == cached
        assert budget_in(copied).blocked_until("slow.example") == 123_456.0
        for query in ("moon", "queen of the colony"):
            assert ranked(rag(copied).search(query, 5)) == ranked(rag(embedded).search(query, 5))


def test_store_migrate_names_a_missing_source_or_an_unreachable_target(tmp_path: Any) -> None:
    from typer.testing import CliRunner

    from citesift.cli import app

    missing = CliRunner().invoke(
        app, ["store", "migrate", "--from", str(tmp_path / "none.db"), "--to", "x.db"]
    )
    assert missing.exit_code == 64 and "no store at" in missing.output
    nowhere = f"postgresql://u:secret@/db?host={tmp_path}"
    source = str(tmp_path / "s.db")
    open_store(source).close()
    refused = CliRunner().invoke(app, ["store", "migrate", "--from", source, "--to", nowhere])
    assert refused.exit_code == 1 and "secret" not in refused.output  # down: a failure
    assert "cannot reach the store postgresql://u:***@/db" in refused.output


def test_a_postgresql_url_names_the_store_in_settings_and_on_the_command_line(
    tmp_path: Any, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from citesift.cli import app
    from citesift.settings import load_settings
    from citesift.store.postgres import PostgresStore

    config = tmp_path / "citesift.toml"
    config.write_text(f'store = "{postgres_url}"\n', encoding="utf-8")
    for settings in (
        load_settings(environ={"CITESIFT_STORE": postgres_url}),
        load_settings(environ={}, config=config),
    ):
        with settings.open_store() as opened:
            assert isinstance(opened, PostgresStore)
    notes = tmp_path / "tides.md"
    notes.write_text("# Tides\n\nThe moon raises two tides a day.\n", encoding="utf-8")
    runner = CliRunner()
    added = runner.invoke(app, ["index", "add", str(notes), "--store", postgres_url,
                                "--retrieval", "bm25"])  # fmt: skip
    assert added.exit_code == 0, added.output
    monkeypatch.setenv("CITESIFT_STORE", postgres_url)
    found = runner.invoke(app, ["search", "moon tides", "--retrieval", "bm25"])
    assert found.exit_code == 0 and "two tides a day" in found.stdout, found.output
    listed = runner.invoke(app, ["index", "ls", "--format", "json"])
    assert listed.exit_code == 0 and notes.as_uri() in listed.stdout


def pool_threads() -> set[threading.Thread]:
    """The threads of PostgreSQL connection pools alive now (a pool's workers and scheduler)."""
    return {t for t in threading.enumerate() if t.name.startswith("citesift-")}


def test_what_opens_a_postgresql_store_from_its_url_closes_it(
    tmp_path: Any, postgres_url: str
) -> None:
    """A pool left open is closed by the collector, in whatever thread it runs: in one of the
    pool's own threads that is "cannot join current thread". A RAG or a command that opened
    the store from a URL closes it, so no pool thread outlives it; a store handed in stays."""
    from typer.testing import CliRunner

    from citesift.cli import app
    from citesift.index.partition import create_partitioned_rag
    from citesift.index.rag import create_rag

    before = pool_threads()
    notes = tmp_path / "tides.md"
    notes.write_text("# Tides\n\nThe moon raises two tides a day.\n", encoding="utf-8")
    runner = CliRunner()
    for command in (
        ["index", "add", str(notes), "--retrieval", "bm25"],
        ["search", "moon tides", "--retrieval", "bm25"],
        ["index", "ls"],
        ["index", "stats"],
        ["index", "rm", notes.as_uri()],
    ):
        ran = runner.invoke(app, [*command, "--store", postgres_url])
        assert ran.exit_code == 0, (command, ran.output)
        assert pool_threads() == before, command
    with create_rag(store=postgres_url, retrieval="bm25") as rag:
        assert rag.stats().documents == 0 and pool_threads() > before
    assert pool_threads() == before
    with create_partitioned_rag("ours", store=postgres_url, retrieval="bm25") as part:
        part.ingest([{"id": "mine", "content": "A partition's own note."}])
    assert pool_threads() == before
    with open_store(postgres_url) as handed:
        with create_rag(store=handed, retrieval="bm25") as rag:
            rag.ingest([{"id": "kept", "content": "The store stays open for its owner."}])
        assert create_rag(store=handed, retrieval="bm25").stats().documents == 2


def test_postgresql_sessions_run_without_the_jit_compiler(postgres_url: str) -> None:
    """Compiling the BM25 query's plan would cost more than running it."""
    from citesift.store.postgres import PostgresStore

    with (
        PostgresStore(postgres_url, pool_size=2) as store,
        store.reading() as first,
        store.reading() as second,
    ):
        settings = [c.execute("SHOW jit").fetchone() for c in (first, second)]
    assert settings == [("off",), ("off",)]


def test_a_postgresql_store_names_what_it_cannot_do(postgres_url: str) -> None:
    from citesift.errors import StoreError, StoreUnreachable, StoreUnusable
    from citesift.store.postgres import PostgresStore

    with pytest.raises(StoreUnreachable, match="cannot reach the store"):
        PostgresStore("postgresql://u:pw@/x?host=/nowhere&sslmode=bogus")
    with pytest.raises(StoreUnusable, match="cannot use the store URL"):
        PostgresStore("postgresql:///x?unknown=1")
    with PostgresStore(postgres_url) as store:
        with pytest.raises(StoreError, match=r"for demo \(step 1\)"):
            store.migrate("demo", ["CREATE TABLE demo (id INTEGER);", "CREATE EXTENSION nothing;"])
        store.migrate("demo", ["CREATE TABLE demo (id INTEGER);"])  # the first step held
        with store.reading() as conn:
            assert conn.execute("SELECT count(*) FROM demo").fetchone() == (0,)


def test_a_postgresql_store_of_a_newer_schema_is_refused_not_misread(postgres_url: str) -> None:
    from citesift.errors import StoreError
    from citesift.store.postgres import PostgresStore

    steps = ["CREATE TABLE demo (id INTEGER);", "ALTER TABLE demo ADD COLUMN v TEXT;"]
    with PostgresStore(postgres_url) as store:
        store.migrate("demo", steps)  # a newer version's two steps
        with pytest.raises(StoreError, match=r"written by a newer citesift: its demo tables"):
            store.migrate("demo", steps[:1])
        store.migrate("demo", steps)  # the version that wrote it goes on
        store.migrate("other", ["CREATE TABLE other (id INTEGER);"])  # by its own steps
        with store.reading() as conn:
            assert conn.execute("SELECT count(*) FROM schema_steps").fetchone() == (3,)


def test_workers_claim_each_url_once_within_the_crawl_limit(store_location: str) -> None:
    """Threads on their own handles claim a crawl's URLs: none twice, and no more than the
    limit in all, however the claims interleave."""
    with open_store(store_location) as setup:
        frontier = frontier_in(setup, "setup")
        frontier.begin("c", Entry("https://site.test/", "site.test", 0), {"limit": 30})
        urls = [Entry(f"https://site.test/{n}", "site.test", 1, n % 3) for n in range(60)]
        assert frontier.claim("c", 1) == [Entry("https://site.test/", "site.test", 0)]
        added = frontier.finish("c", "https://site.test/", {"url": "/"}, found=urls)
        assert added == Added(60, 0)
    claimed: list[str] = []
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            with open_store(store_location) as own:
                mine = frontier_in(own, f"worker-{worker}")
                while got := mine.claim("c", 2, limit=30):
                    claimed.extend(e.url for e in got)
                    for entry in got:
                        mine.finish("c", entry.url, {"url": entry.url})
        except BaseException as error:  # handed to the test's thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(claimed) == 29 and len(set(claimed)) == 29  # the start was the first of 30
    with open_store(store_location) as fresh:
        frontier = frontier_in(fresh)
        assert frontier.counts("c") == {
            "queued": 31, "claimed": 0, "done": 30, "failed": 0, "moved": 0, "disallowed": 0
        }  # fmt: skip
        assert len(list(frontier.results("c"))) == 30
        left = sorted((e for e in urls if e.url not in claimed), key=lambda e: -e.score)
        best = [e.url for e in left[:2]]
        assert [e.url for e in frontier.claim("c", 2)] == best  # best score, then oldest


def test_a_lapsed_lease_passes_the_url_to_another_worker(store: AnyStore) -> None:
    """A worker that stops renewing loses its URL once the lease runs out: another takes it,
    and the first can then neither renew nor finish it; a released URL is taken at once."""
    slow, quick = frontier_in(store, "slow", lease_s=1.0), frontier_in(store, "quick")
    slow.begin("c", Entry("https://site.test/", "site.test", 0), {})
    assert [e.url for e in slow.claim("c", 5)] == ["https://site.test/"]
    assert quick.claim("c", 5) == [] and quick.waiting_hosts("c") == set()
    assert slow.renew("c", ["https://site.test/"]) == 1
    time.sleep(1.1)
    assert quick.waiting_hosts("c") == {"site.test"}
    assert [e.url for e in quick.claim("c", 5)] == ["https://site.test/"]
    assert slow.renew("c", ["https://site.test/"]) == 0
    found = [Entry("https://site.test/a", "site.test", 1)]
    assert slow.finish("c", "https://site.test/", {"by": "slow"}, found=found) == Added(1)
    assert quick.finish("c", "https://site.test/", {"by": "quick"}) == Added()
    assert [record for _, record in quick.results("c")] == [{"by": "quick"}]
    assert [e.url for e in slow.claim("c", 5, busy=["site.test"])] == []
    assert [e.url for e in slow.claim("c", 5)] == ["https://site.test/a"]
    slow.release("c", "https://site.test/a")
    assert [e.url for e in quick.claim("c", 5, limit=2)] == ["https://site.test/a"]
    assert quick.claim("c", 5, limit=2) == []


def test_links_robots_txt_disallows_are_kept_apart_never_claimed_nor_taken(
    store: AnyStore,
) -> None:
    """A crawl's links left out (robots.txt) are counted once, listed in the order found,
    never claimed, and take nothing of the limit; a link known already stays as it was."""
    frontier = frontier_in(store, "one")
    frontier.begin("c", Entry("https://site.test/", "site.test", 0), {})
    frontier.claim("c", 1, limit=2)
    queued = [Entry("https://site.test/a", "site.test", 1)]
    barred = [Entry(f"https://site.test/private/{n}", "site.test", 1) for n in range(3)]
    added = frontier.finish("c", "https://site.test/", {"n": 0}, None, queued, None, barred)
    assert added == Added(1, 3)
    again = [barred[0], Entry("https://site.test/a", "site.test", 2)]
    assert frontier.finish("c", "https://site.test/a", None, "gone", (), None, again) == Added()
    assert [e.url for e in frontier.claim("c", 5, limit=2)] == ["https://site.test/a"]
    assert frontier.claim("c", 5) == []  # the left-out links are never claimed
    assert frontier.counts("c")["disallowed"] == 3
    assert list(frontier.disallowed("c")) == [e.url for e in barred]
    assert [url for url, _ in frontier.failures("c")] == []


def test_a_claimed_url_robots_txt_disallows_gives_its_place_in_the_limit_back(
    store: AnyStore,
) -> None:
    """A URL queued unchecked and found disallowed once claimed is left out, listed with
    the others, and the next URL takes its place within the limit."""
    frontier = frontier_in(store, "one")
    frontier.begin("c", Entry("https://site.test/", "site.test", 0), {})
    frontier.claim("c", 1, limit=2)
    found = [Entry(f"https://other.test/{n}", "other.test", 1) for n in range(2)]
    frontier.finish("c", "https://site.test/", {"n": 0}, found=found)
    [first] = frontier.claim("c", 5, limit=2)
    assert frontier.claim("c", 5, limit=2) == []  # the limit's two are taken
    frontier.finish("c", first.url, None, "disallowed by robots.txt", state="disallowed")
    assert frontier.finish("c", first.url, None, "again", state="disallowed") == Added()
    assert [e.url for e in frontier.claim("c", 5, limit=2)] == ["https://other.test/1"]
    assert frontier.claim("c", 5, limit=2) == []  # given back once, not twice
    assert list(frontier.disallowed("c")) == [first.url]
    counts = frontier.counts("c")
    assert (counts["disallowed"], counts["failed"], counts["claimed"]) == (1, 0, 1)


def test_results_followed_mark_to_mark_come_once_each(store: AnyStore) -> None:
    frontier = frontier_in(store, "one")
    frontier.begin("c", Entry("https://site.test/", "site.test", 0), {})
    frontier.claim("c", 1)
    pages = [Entry(f"https://site.test/{n}", "site.test", 1) for n in range(250)]
    frontier.finish("c", "https://site.test/", {"n": -1}, found=pages)
    seen: list[Any] = []
    mark = (0, 0)
    for entry in frontier.claim("c", 250):
        frontier.finish("c", entry.url, {"n": int(entry.url.rsplit("/", 1)[1])})
        if len(seen) < 100:
            page = frontier.results_after("c", mark)
            mark = page[-1][0] if page else mark
            seen.extend(record["n"] for _, record in page)
    while page := frontier.results_after("c", mark):
        mark = page[-1][0]
        seen.extend(record["n"] for _, record in page)
    assert seen == [-1, *range(250)]
    marked = list(frontier.results("c"))  # every page of them, each with its mark
    assert [record["n"] for _, record in marked] == seen
    assert [record["n"] for _, record in frontier.results("c", marked[99][0])] == seen[100:]


def test_research_runs_keep_their_events_in_order_and_answer(store: AnyStore) -> None:
    runs = runs_in(store)
    run = runs.start("find the tides")
    for n in range(3):
        runs.add(run, "step", {"n": n, "text": "moon\u2019s pull"})
    runs.finish(run, {"answer": 2})
    kept = runs_in(store).get(run[:6])
    assert kept is not None and kept.id == run and kept.task == "find the tides"
    assert kept.of_kind("step") == [{"n": n, "text": "moon\u2019s pull"} for n in range(3)]
    assert kept.answer == {"answer": 2} and runs.get("nothing") is None


def _listing_seconds(store: AnyStore, crawl: str, failed: int) -> float:
    """How long listing the failures of a new crawl of ``failed`` failed URLs (scores in no
    order of their finding) takes, the best of five."""
    frontier = frontier_in(store, "lister")
    frontier.begin(crawl, Entry(f"https://{crawl}.test/", f"{crawl}.test", 0), {})
    frontier.claim(crawl, 1)
    found = [Entry(f"https://{crawl}.test/{n}", f"{crawl}.test", 1, n % 7) for n in range(failed)]
    frontier.finish(crawl, f"https://{crawl}.test/", None, "HTTP 404", found=found)
    with store.transaction() as conn:  # failed as a crawl would leave them, in one step
        conn.execute("UPDATE crawl_frontier SET state = 'failed', reason = 'HTTP 404'")
    times = []
    for _ in range(5):
        began = time.perf_counter()
        listed = sum(1 for _ in frontier.failures(crawl))
        times.append(time.perf_counter() - began)
        assert listed == failed + 1
    return min(times)


def test_listing_a_crawls_failures_takes_time_in_proportion_to_them(store: AnyStore) -> None:
    """Failures are read a page at a time from an index in the order they were found: forty
    times as many take about forty times as long (measured 40 to 80 with the caches), not
    the 400 to 600 times of each page sorting every failed row again."""
    small = _listing_seconds(store, "small", 1_000)
    large = _listing_seconds(store, "large", 40_000)
    assert large < 150 * small, (small, large)


def test_a_prefix_of_several_runs_ids_is_refused_naming_them_not_as_absent(
    store: AnyStore,
) -> None:
    """Of seventeen runs, two ids begin with one hex digit: that digit names no one run."""
    runs = runs_in(store)
    ids = [runs.start(f"task {n}") for n in range(17)]
    shared = next(i[0] for i in ids if sum(j[0] == i[0] for j in ids) > 1)
    begun = sorted(i for i in ids if i[0] == shared)
    with pytest.raises(InvalidArgument) as refused:
        stored_run(store, shared)
    assert not isinstance(refused.value, NotFound)
    assert str(refused.value).startswith(
        f"run must be a prefix of one stored run's id, not of several ({begun[0]}, {begun[1]}"
    )
    assert stored_run(store, begun[0]).id == begun[0]  # a whole id names its run
    with pytest.raises(NotFound, match="run must be the id of a stored run"):
        stored_run(store, "g")
