"""A PostgreSQL store whose postings were made by earlier tokenizer rules makes them again
when it is opened: a batch a transaction, resumed after a failure or a killed process,
shared by two processes opening it at once, a pure-ASCII store left untouched; then it
ranks and scores as the embedded store does over the same passages. The step that moved
chunks' numbers beside their rows numbers a chunk an older writer adds meanwhile."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import psycopg
import pytest
import Stemmer

from citesift.index.lexical.passages import document_text
from citesift.index.lexical.tokens import ENGLISH_STOPWORDS, TOKENIZER_VERSION, Tokenizer
from citesift.index.local import LocalStore
from citesift.index.postgres import PostgresIndex
from citesift.index.query import Query
from citesift.store.chunks import StoredChunk
from citesift.store.postgres import PostgresStore
from citesift.store.postgres.chunks import COMPONENT, MIGRATIONS, PostgresChunkTable

pytestmark = pytest.mark.timeout(300)

VERSION_STEP = next(n for n, step in enumerate(MIGRATIONS) if "bm25_tokenizer" in step)
"""The chunks step that began keeping the tokenizer's version."""
TEXTS = {
    "arabic": [
        "كَتَبَ الطَّالِبُ الدَّرْسَ فِي المَدْرَسَةِ الكَبِيرَةِ",
        "الكِتَابُ عَلَى الطَّاوِلَةِ وَالقَلَمُ بِجَانِبِهِ",
        "قَرَأَ المُعَلِّمُ الرِّسَالَةَ لِلطُّلَّابِ",
    ],
    "thai": [
        "ภาษาไทยเป็นภาษาราชการของประเทศไทย",
        "กรุงเทพมหานครเป็นเมืองหลวงและเมืองที่ใหญ่ที่สุด",
    ],
    "hindi": ["हिन्दी भारत की राजभाषा है", "दिल्ली भारत की राजधानी है और बड़ा शहर"],
    "french": [
        "le cafe\u0301 de la gare ferme tard le soir",
        "une cre\u0300me bru\u0302le\u0301e et un cafe\u0301 noir",
    ],
    "tides": ["the moon pulls the ocean into tides twice a day", "spring tides follow the moon"],
    "bees": ["a colony of bees keeps one queen", "worker bees gather nectar from flowers"],
    "rocks": ["falling rocks made the craters of the moon long ago"],
}
"""Passages by document: vocalised Arabic, Thai, Hindi and decomposed accents, whose terms
the earlier rules made otherwise, beside English ones they made alike."""
QUERIES = (
    *("كتب الطالب", "الكتاب", "ภาษาไทย", "เมืองหลวง", "हिन्दी", "राजधानी भारत", "café"),
    *("crème brûlée", "moon tides", "queen bees", "craters"),
)
NEW = Tokenizer()
_OLD_CJK = (
    "\u1100-\u11ff\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f"
)
_OLD_TOKEN = re.compile(f"[{_OLD_CJK}]+|[^\\W{_OLD_CJK}]{{2,}}")
_STEM = Stemmer.Stemmer("english").stemWord


def old_rules(text: str) -> list[str]:
    """The terms of ``text`` by the rules of version 1: no composing, a combining mark cuts
    a word, Arabic vowel marks kept, Thai read as words (CJK pairs are not needed here)."""
    words = _OLD_TOKEN.findall(text.lower())
    return [_STEM(w) for w in words if w not in ENGLISH_STOPWORDS]


def corpus(texts: dict[str, list[str]]) -> list[StoredChunk]:
    chunks = []
    for document, parts in texts.items():
        start = 0
        for seq, text in enumerate(parts):
            chunks.append(
                StoredChunk(f"{document}#{seq}", document, seq, start, start + len(text), text)
            )
            start += len(text) + 1
    return chunks


def by_document(chunks: Sequence[StoredChunk]) -> dict[str, list[StoredChunk]]:
    held: dict[str, list[StoredChunk]] = {}
    for chunk in chunks:
        held.setdefault(chunk.document_id, []).append(chunk)
    return held


def old_document_terms(parts: Sequence[StoredChunk]) -> Counter[str]:
    contents = [(c.start, c.end, c.content) for c in parts]
    return Counter(old_rules(document_text([c.context for c in parts], contents)))


def new_document_terms(parts: Sequence[StoredChunk]) -> Counter[str]:
    contents = [(c.start, c.end, c.content) for c in parts]
    return Counter(NEW(document_text([c.context for c in parts], contents)))


def new_chunk_terms(chunk: StoredChunk) -> Counter[str]:
    return Counter(NEW(chunk.scored_text))


TERMS = (new_chunk_terms, new_document_terms)
"""What a pass makes each chunk's and each document's terms by: the current rules."""


def old_store(url: str, chunks: Sequence[StoredChunk]) -> None:
    """A store as version 1 left it: its postings by the earlier rules, written by the write
    path (whose postings have not changed since), and no tokenizer version kept."""
    with PostgresStore(url) as store:
        table = PostgresChunkTable(store)
        for document, parts in by_document(chunks).items():
            terms = [Counter(old_rules(c.scored_text)) for c in parts]
            table.replace([document], parts, terms, old_document_terms)
    with psycopg.connect(url) as conn:
        conn.execute("DROP TABLE bm25_tokenizer")
        conn.execute(
            "DELETE FROM schema_steps WHERE component = %s AND step = %s",
            (COMPONENT, VERSION_STEP),
        )


def held_terms(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT DISTINCT term FROM chunks_postings").fetchall()
    return {term for (term,) in rows}


def query_terms() -> set[str]:
    return {t for q in QUERIES for t in NEW(q)}


@pytest.fixture
def embedded(tmp_path: Path) -> Iterator[LocalStore]:
    """The embedded store holding the same passages, written by the current rules."""
    store = LocalStore(tmp_path / "embedded.db")
    for document, parts in by_document(corpus(TEXTS)).items():
        store.upsert([document], parts)
    yield store
    store.close()


def assert_ranks_as(index: PostgresIndex, embedded: LocalStore) -> None:
    """Every query finds the same passages, in the same order, with the same scores, and
    finds some (each has a passage holding its words)."""
    missed = set(QUERIES)
    for query in QUERIES:
        for k in (2, 5, 20):
            got = [(m.id, m.score) for m in index.search(Query(query, k, "bm25"))]
            want = [(m.id, m.score) for m in embedded.search(Query(query, k, "bm25"))]
            assert [i for i, _ in got] == [i for i, _ in want], (query, k)
            assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-6)
            missed -= {query} if got else set()
    assert not missed


def assert_scores_as(index: PostgresIndex, embedded: LocalStore) -> None:
    """Every query finds the same passages with the same scores (equal scores in any order:
    a chunk made again twice, by two passes, comes after its equals)."""
    for query in QUERIES:
        got = {m.id: m.score for m in index.search(Query(query, 20, "bm25"))}
        want = {m.id: m.score for m in embedded.search(Query(query, 20, "bm25"))}
        assert got == pytest.approx(want, abs=1e-6), query
        assert got, query


def assert_totals_hold(url: str) -> None:
    """The totals' rows sum to what the chunks and document texts hold."""
    with psycopg.connect(url) as conn:
        totals = conn.execute(
            "SELECT sum(chunks), sum(chunk_length), sum(documents), sum(document_length)"
            " FROM bm25_totals"
        ).fetchone()
        chunks = conn.execute("SELECT count(*), sum(length) FROM chunk_owners").fetchone()
        texts = conn.execute("SELECT count(*), sum(length) FROM document_texts").fetchone()
    assert totals is not None and chunks is not None and texts is not None
    assert tuple(int(n) for n in totals) == (*map(int, chunks), *map(int, texts))


def last_number(url: str) -> int:
    """The highest number a chunk's postings name it by (each pass gives a chunk a new one)."""
    with psycopg.connect(url) as conn:
        [(number,)] = conn.execute("SELECT max(number) FROM chunk_owners").fetchall()
    return int(number)


def state(url: str) -> tuple[Any, ...]:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT version, target, done, last FROM bm25_tokenizer").fetchone()
    assert row is not None
    return tuple(row)


def not_ascii(chunks: Sequence[StoredChunk]) -> int:
    return sum(1 for c in chunks if not c.scored_text.isascii())


def test_postings_of_earlier_rules_are_made_again_on_open_and_rank_as_embedded(
    postgres_url: str, embedded: LocalStore
) -> None:
    chunks = corpus(TEXTS)
    old_store(postgres_url, chunks)
    missing = query_terms() - held_terms(postgres_url)
    assert {"كتب", "café", "हिन्दी", "ภา"} <= missing  # the earlier rules made other terms
    index = PostgresIndex(postgres_url)
    try:
        assert state(postgres_url) == (TOKENIZER_VERSION, None, 0, 0)
        assert query_terms() - held_terms(postgres_url) == set()
        assert_totals_hold(postgres_url)
        assert_ranks_as(index, embedded)
    finally:
        index.close()


def test_a_pass_that_fails_between_batches_is_resumed_by_the_next_open(
    postgres_url: str, embedded: LocalStore
) -> None:
    chunks = corpus(TEXTS)
    old_store(postgres_url, chunks)
    calls = 0

    def failing(chunk: StoredChunk) -> Counter[str]:
        nonlocal calls
        calls += 1
        if calls == 5:  # in the third batch of two
            raise RuntimeError("stopped")
        return new_chunk_terms(chunk)

    with PostgresStore(postgres_url) as store:
        table = PostgresChunkTable(store)
        args = (TOKENIZER_VERSION, 1, failing, TERMS[1])
        assert table.retokenize(*args, batch=2) == 2
        assert table.retokenize(*args, batch=2) == 2
        with pytest.raises(RuntimeError):
            table.retokenize(*args, batch=2)
    with psycopg.connect(postgres_url) as conn:
        rows = conn.execute(
            "SELECT c.id FROM chunks c JOIN chunk_owners o ON o.chunk = c.row_number"
            " ORDER BY o.number DESC LIMIT 4"
        ).fetchall()
    version, target, done, last = state(postgres_url)
    assert (version, target) == (1, TOKENIZER_VERSION)
    assert 0 < done < last
    assert {i for (i,) in rows} == {"arabic#0", "arabic#1", "arabic#2", "thai#0"}
    assert_totals_hold(postgres_url)  # the failed batch left nothing behind
    index = PostgresIndex(postgres_url)
    try:
        assert state(postgres_url) == (TOKENIZER_VERSION, None, 0, 0)
        assert last_number(postgres_url) == len(chunks) + not_ascii(chunks)  # each made again once
        assert_totals_hold(postgres_url)
        assert_ranks_as(index, embedded)
    finally:
        index.close()


KILLED_INSIDE = """
import sys
from collections import Counter
from citesift.index.lexical.passages import document_text
from citesift.index.lexical.tokens import TOKENIZER_VERSION, Tokenizer
from citesift.store.postgres import PostgresStore
from citesift.store.postgres.chunks import PostgresChunkTable

tokenize, calls = Tokenizer(), []

def chunk_terms(chunk):
    calls.append(chunk)
    if len(calls) == 3:  # inside the second batch, the first one committed
        print("inside", flush=True)
        sys.stdin.readline()
    return Counter(tokenize(chunk.scored_text))

def document_terms(parts):
    contents = [(c.start, c.end, c.content) for c in parts]
    return Counter(tokenize(document_text([c.context for c in parts], contents)))

with PostgresStore(sys.argv[1]) as store:
    table = PostgresChunkTable(store)
    while table.retokenize(TOKENIZER_VERSION, 1, chunk_terms, document_terms, batch=2):
        pass
"""
"""A process making postings again, two chunks a batch, that waits inside its second."""


def test_a_process_killed_inside_a_batch_leaves_the_pass_to_the_next_open(
    postgres_url: str, embedded: LocalStore
) -> None:
    chunks = corpus(TEXTS)
    old_store(postgres_url, chunks)
    with subprocess.Popen(
        [sys.executable, "-c", KILLED_INSIDE, postgres_url],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdout is not None and process.stdout.readline() == "inside\n"
        process.send_signal(signal.SIGKILL)
        assert process.wait(30) == -signal.SIGKILL
    version, target, done, _ = state(postgres_url)
    assert (version, target) == (1, TOKENIZER_VERSION) and done > 0
    assert_totals_hold(postgres_url)
    index = PostgresIndex(postgres_url)
    try:
        assert state(postgres_url) == (TOKENIZER_VERSION, None, 0, 0)
        assert last_number(postgres_url) == len(chunks) + not_ascii(chunks)
        assert_ranks_as(index, embedded)
    finally:
        index.close()


def test_two_processes_opening_at_once_share_the_pass(
    postgres_url: str, embedded: LocalStore
) -> None:
    chunks = corpus(TEXTS)
    old_store(postgres_url, chunks)
    start = threading.Barrier(2)
    taken: list[list[int]] = [[], []]
    errors: list[BaseException] = []

    def run(mine: list[int]) -> None:
        try:
            with PostgresStore(postgres_url) as store:
                table = PostgresChunkTable(store)
                start.wait()
                while (n := table.retokenize(TOKENIZER_VERSION, 1, *TERMS, batch=1)) is not None:
                    mine.append(n)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=run, args=(mine,)) for mine in taken]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors
    assert sum(map(len, taken)) == not_ascii(chunks)  # each chunk taken by one of them
    assert all(taken)  # both took part
    assert last_number(postgres_url) == len(chunks) + not_ascii(chunks)
    assert_totals_hold(postgres_url)
    index = PostgresIndex(postgres_url)
    try:
        assert_ranks_as(index, embedded)
    finally:
        index.close()


def rows_written(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Each BM25 table's rows with their row versions (``xmin``: a rewrite changes it)."""
    tables = ("chunks", "chunk_owners", "chunks_postings", "documents_postings", "document_texts")
    with psycopg.connect(url) as conn:
        return {
            t: conn.execute(
                f"SELECT xmin::text, ctid::text FROM {t} ORDER BY 2".encode()
            ).fetchall()
            for t in (*tables, "bm25_totals", "posting_blocks", "dead_postings")
        }


def test_a_store_of_ascii_text_only_is_left_as_it_is(postgres_url: str) -> None:
    ascii_only = {d: t for d, t in TEXTS.items() if all(x.isascii() for x in t)}
    chunks = corpus(ascii_only)
    with closing(PostgresIndex(postgres_url)) as index:
        for document, parts in by_document(chunks).items():
            index.upsert([document], parts)
    with psycopg.connect(postgres_url) as conn:
        conn.execute("UPDATE bm25_tokenizer SET version = 1")  # as a store of version 1
    before = rows_written(postgres_url)
    PostgresIndex(postgres_url).close()
    assert state(postgres_url) == (TOKENIZER_VERSION, None, 0, 0)
    assert rows_written(postgres_url) == before


def test_rules_that_change_ascii_terms_make_every_chunk_again_and_older_code_leaves_them(
    postgres_url: str, embedded: LocalStore
) -> None:
    chunks = corpus(TEXTS)
    with closing(PostgresIndex(postgres_url)) as index:
        for document, parts in by_document(chunks).items():
            index.upsert([document], parts)
    later = TOKENIZER_VERSION + 1
    with PostgresStore(postgres_url) as store:
        table = PostgresChunkTable(store)
        taken = 0
        while (n := table.retokenize(later, later, *TERMS, batch=3)) is not None:
            taken += n
    assert taken == len(chunks)
    assert state(postgres_url) == (later, None, 0, 0)
    before = rows_written(postgres_url)
    with closing(PostgresIndex(postgres_url)) as index:  # rules older than the store's: left alone
        assert_ranks_as(index, embedded)
    assert rows_written(postgres_url) == before


def test_an_older_program_leaves_a_pass_of_newer_rules_to_finish(
    postgres_url: str, embedded: LocalStore
) -> None:
    chunks = corpus(TEXTS)
    old_store(postgres_url, chunks)
    later = TOKENIZER_VERSION + 1
    with PostgresStore(postgres_url) as store:
        table = PostgresChunkTable(store)
        older = table.retokenize(TOKENIZER_VERSION, 1, *TERMS, batch=1)
        assert older == 1  # the older program began its own pass
        taken, undone, turns = 0, 0, 0
        while True:  # the two programs' batches, one after the other
            newer = table.retokenize(later, later, *TERMS, batch=1)
            older = table.retokenize(TOKENIZER_VERSION, 1, *TERMS, batch=1)
            if newer is None and older is None:
                break
            taken, undone, turns = taken + (newer or 0), undone + (older or 0), turns + 1
            assert turns <= 2 * len(chunks), "the pass never ended"
    assert undone == 0  # the older program left the newer pass alone
    assert taken == len(chunks)  # the newer pass made every chunk's postings, once
    assert state(postgres_url) == (later, None, 0, 0)
    assert_totals_hold(postgres_url)
    with closing(PostgresIndex(postgres_url)) as index:
        assert_scores_as(index, embedded)


def blocked_by(url: str, pid: int) -> bool:
    """Whether some session waits on a lock that session ``pid`` holds."""
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))", (pid,)
        ).fetchone()
    return row is not None and row[0] > 0


def wait_until_blocked(url: str, pid: int, thread: threading.Thread, what: str) -> None:
    """Wait (30 s at most) until some session waits on a lock session ``pid`` holds; fail
    naming ``what`` never waited."""
    for _ in range(600):
        if blocked_by(url, pid):
            return
        thread.join(0.05)
    pytest.fail(f"{what} never waited on the writer")


def owner_row(chunk: str) -> str:
    """A statement taking the row of ``chunk``'s postings number without its document's lock
    (as SQL run by hand might: no writer of ours does)."""
    return (
        "UPDATE chunk_owners SET length = length WHERE chunk ="
        f" (SELECT row_number FROM chunks WHERE id = '{chunk}')"
    )


def test_a_batch_ended_by_a_deadlock_with_another_transaction_is_tried_again(
    postgres_url: str,
) -> None:
    chunks = corpus(TEXTS)
    old_store(postgres_url, chunks)
    outcome: list[object] = []
    with PostgresStore(postgres_url) as store, psycopg.connect(postgres_url) as writer:
        table = PostgresChunkTable(store)

        def run() -> None:
            try:
                outcome.append(table.retokenize(TOKENIZER_VERSION, 1, *TERMS, batch=2))
            except BaseException as error:
                outcome.append(error)

        # A session of SQL by hand takes the number of the batch's second chunk, then its
        # first, while the batch has taken its first and waits on its second. Only the
        # batch's session finds the deadlock (the other waits a minute first), so the batch
        # is the one ended.
        writer.execute("SET deadlock_timeout = '1min'")
        writer.execute(owner_row("arabic#1").encode())
        thread = threading.Thread(target=run)
        thread.start()
        wait_until_blocked(postgres_url, writer.info.backend_pid, thread, "the batch")
        writer.execute(owner_row("arabic#0").encode())
        writer.commit()  # the batch's first try ended, so the writer went on
        thread.join(60)
    assert outcome == [2]  # its second try took the two chunks
    with psycopg.connect(postgres_url) as conn:
        rows = conn.execute(
            "SELECT c.id, o.number FROM chunks c JOIN chunk_owners o ON o.chunk = c.row_number"
            " WHERE c.id LIKE 'arabic#%' ORDER BY c.id"
        ).fetchall()
    assert [i for i, _ in rows] == ["arabic#0", "arabic#1", "arabic#2"]
    assert rows[0][1] > len(chunks) and rows[1][1] > len(chunks)  # made again, after the writer
    assert rows[2][1] <= len(chunks)
    assert state(postgres_url)[2] > 0
    assert_totals_hold(postgres_url)


def test_a_pass_rewrites_no_chunk_and_waits_on_no_writer_of_vectors(
    postgres_url: str, embedded: LocalStore
) -> None:
    """Making postings again gives chunks new numbers beside their rows: no chunk row is
    written (nor its vector indexed again), so a writer setting vectors holds nothing the
    pass needs."""
    chunks = corpus(TEXTS)
    old_store(postgres_url, chunks)
    with psycopg.connect(postgres_url) as conn:
        conn.execute(
            "UPDATE chunks SET embedder = 'e', dim = 2, vector = '[1,0]' WHERE id LIKE 'bees#%'"
        )
    before = rows_written(postgres_url)["chunks"]
    outcome: list[object] = []
    with PostgresStore(postgres_url) as store, psycopg.connect(postgres_url) as writer:
        table = PostgresChunkTable(store)

        def run() -> None:
            try:
                while (n := table.retokenize(TOKENIZER_VERSION, 1, *TERMS, batch=2)) is not None:
                    outcome.append(n)
            except BaseException as error:
                outcome.append(error)

        writer.execute("UPDATE chunks SET embedder = 'e', dim = 2, vector = '[0,1]'")
        thread = threading.Thread(target=run)
        thread.start()
        thread.join(60)
        assert not thread.is_alive(), "the pass waited on the writer"
        writer.rollback()
    assert sum(n for n in outcome if isinstance(n, int)) == not_ascii(chunks), outcome
    assert state(postgres_url) == (TOKENIZER_VERSION, None, 0, 0)
    assert rows_written(postgres_url)["chunks"] == before
    assert last_number(postgres_url) == len(chunks) + not_ascii(chunks)
    assert_totals_hold(postgres_url)
    with closing(PostgresIndex(postgres_url)) as index:
        assert_ranks_as(index, embedded)


def test_the_step_numbering_chunks_beside_their_rows_waits_for_an_older_writer(
    postgres_url: str,
) -> None:
    """A writer of the schema before ``chunk_owners`` (which never takes the migration's
    lock) holding a new chunk uncommitted while the step runs: the step waits for it, so
    that chunk is numbered too, and no later chunk takes its number."""
    old = "INSERT INTO chunks (id, document_id, seq, start, stop, content, content_hash, length)"
    with PostgresStore(postgres_url) as store:
        store.migrate(COMPONENT, MIGRATIONS[:-1])
    with psycopg.connect(postgres_url) as conn:
        conn.execute(f"{old} VALUES ('kept#0', 'kept', 0, 0, 4, 'kept', 'h', 1)".encode())
        conn.execute("INSERT INTO bm25_totals VALUES (1, 1, 0, 0)")
    outcome: list[BaseException] = []
    with psycopg.connect(postgres_url) as writer, PostgresStore(postgres_url) as store:
        writer.execute(f"{old} VALUES ('late#0', 'late', 0, 0, 9, 'late text', 'h', 2)".encode())
        writer.execute("INSERT INTO bm25_totals VALUES (1, 2, 0, 0)")

        def run() -> None:
            try:
                PostgresChunkTable(store)
            except BaseException as error:
                outcome.append(error)

        thread = threading.Thread(target=run)
        thread.start()
        wait_until_blocked(postgres_url, writer.info.backend_pid, thread, "the step")
        writer.commit()
        thread.join(60)
        assert not thread.is_alive() and not outcome
        table = PostgresChunkTable(store)
        fresh = corpus({"new": ["a new chunk"]})
        table.replace(["new"], fresh, [new_chunk_terms(fresh[0])], new_document_terms)
    with psycopg.connect(postgres_url) as conn:
        owners = conn.execute(
            "SELECT c.id, o.number, o.length FROM chunks c"
            " LEFT JOIN chunk_owners o ON o.chunk = c.row_number ORDER BY c.row_number"
        ).fetchall()
    assert [(i, length) for i, _, length in owners] == [("kept#0", 1), ("late#0", 2), ("new#0", 2)]
    assert len({n for _, n, _ in owners}) == 3
    assert_totals_hold(postgres_url)
