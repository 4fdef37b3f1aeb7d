"""A crash mid-ingest loses nothing already committed: kill the ingesting process, reopen."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from citesift.index.rag import INGEST_BATCH, create_rag
from citesift.store.sqlite import SQLiteStore
from test_rag_helpers import HashEmbedder

SCRIPT = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, sys.argv[2])
    from test_rag_helpers import HashEmbedder
    from citesift.index.rag import create_rag

    class SlowEmbedder(HashEmbedder):
        def embed(self, texts):
            time.sleep(0.05)
            return super().embed(texts)

    rag = create_rag(SlowEmbedder(), sys.argv[1])
    rag.progress = lambda done, total: print(done, flush=True)
    rag.ingest({"id": f"d{i}", "content": f"document number {i}"} for i in range(5000))
    print("finished", flush=True)
    """
)


@pytest.mark.timeout(60)
def test_killed_ingest_keeps_every_committed_batch(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(path), str(Path(__file__).parent)],
        stdout=subprocess.PIPE,
        text=True,
    ) as proc:
        assert proc.stdout is not None
        reported = [int(proc.stdout.readline()) for _ in range(3)]
        proc.kill()
    assert reported == [INGEST_BATCH, 2 * INGEST_BATCH, 3 * INGEST_BATCH]

    with SQLiteStore(path) as store, store.reading() as conn:
        kept = dict(conn.execute("SELECT document_id, content FROM chunks").fetchall())
    assert len(kept) >= 3 * INGEST_BATCH
    assert len(kept) % INGEST_BATCH == 0 and len(kept) < 5000
    assert all(kept[f"d{i}"] == f"document number {i}" for i in range(len(kept)))

    rag = create_rag(HashEmbedder(), path, retrieval="bm25")
    assert rag.search("document number 77")[0].provenance.document_id == "d77"
