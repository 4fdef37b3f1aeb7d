"""Work claimed by many workers through PostgreSQL: each item once to live workers, and an
item held by a worker killed mid-way comes back when its lease runs out."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from citesift.errors import InvalidArgument
from citesift.store.postgres import PostgresStore
from citesift.store.postgres.claims import ClaimQueue

pytestmark = pytest.mark.timeout(90)
SRC = str(Path(__file__).resolve().parent.parent / "src")


def test_four_workers_do_every_item_exactly_once(postgres_url: str) -> None:
    with PostgresStore(postgres_url) as store:
        queue = ClaimQueue(store, "pages", "setup")
        assert queue.add([(f"https://site.test/{n}", str(n)) for n in range(120)]) == 120
        assert queue.add([("https://site.test/0", "again"), ("https://site.test/new", "")]) == 1
        done: list[str] = []

        def work(worker: int) -> None:
            mine = ClaimQueue(store, "pages", f"worker-{worker}")
            while claims := mine.claim(7, lease_s=60):
                keys = [c.key for c in claims]
                assert mine.finish(keys) == sorted(keys)
                done.extend(keys)

        workers = [threading.Thread(target=work, args=(n,)) for n in range(4)]
        for thread in workers:
            thread.start()
        for thread in workers:
            thread.join()
        assert len(done) == 121 and set(Counter(done).values()) == {1}
        assert queue.pending() == 0 and queue.claim(5, 60) == []


KILLED_WORKER = """
import os, signal, sys
from citesift.store.postgres import PostgresStore
from citesift.store.postgres.claims import ClaimQueue
queue = ClaimQueue(PostgresStore(sys.argv[1]), "pages", "doomed")
print(" ".join(c.key for c in queue.claim(3, lease_s=float(sys.argv[2]))), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.slow  # a second Python process imports the library
def test_a_worker_killed_mid_item_gives_its_claims_back_when_the_lease_runs_out(
    postgres_url: str,
) -> None:
    with PostgresStore(postgres_url) as store:
        queue = ClaimQueue(store, "pages", "survivor")
        queue.add([(key, "") for key in "abcde"])
        lease = 1.5
        killed = subprocess.run(
            [sys.executable, "-c", KILLED_WORKER, postgres_url, str(lease)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": SRC},
            timeout=60,
        )
        assert killed.returncode == -9
        held = killed.stdout.split()
        assert held == ["a", "b", "c"]
        assert [c.key for c in queue.claim(10, lease_s=60)] == ["d", "e"]  # a live lease holds
        time.sleep(lease + 0.2)
        back = queue.claim(10, lease_s=60)
        assert [c.key for c in back] == held and {c.attempts for c in back} == {2}
        assert queue.finish(["a", "b", "c", "d", "e"]) == ["a", "b", "c", "d", "e"]


def test_a_worker_whose_lease_ran_out_cannot_finish_what_another_holds(postgres_url: str) -> None:
    with PostgresStore(postgres_url) as store:
        slow, quick = ClaimQueue(store, "q", "slow"), ClaimQueue(store, "q", "quick")
        slow.add([("item", "")])
        assert [c.key for c in slow.claim(1, lease_s=0.2)] == ["item"]
        time.sleep(0.3)
        assert [c.key for c in quick.claim(1, lease_s=60)] == ["item"]
        assert slow.finish(["item"]) == [] and slow.renew(["item"], 60) == []
        assert quick.release(["item"]) == ["item"]
        assert [c.key for c in slow.claim(1, lease_s=60)] == ["item"]
        with pytest.raises(InvalidArgument):
            ClaimQueue(store, "", "someone")
