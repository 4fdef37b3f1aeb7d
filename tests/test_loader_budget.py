"""The text budget reaches the remote loaders as it reaches a local file: an S3, Cloud
Storage, GitHub or Notion document is held to ``budget`` characters (``index_add`` and
``index add --budget`` pass theirs on), its revision says the budget cut it, ``index add``
names it so, and a budget out of range is refused before any request is sent."""

from __future__ import annotations

from pathlib import Path

import boto3
import pytest

from citesift.errors import InvalidArgument
from citesift.model import SourceDocument
from citesift.sources.loaders.gcs import load_gcs_sync
from citesift.sources.loaders.github import GitHubRepo, load_github_tree_sync
from citesift.sources.loaders.notion import load_notion_page_sync
from citesift.sources.loaders.s3 import load_s3_sync, parse_s3
from servers import MisbehavingServer
from test_cli_loaders import run, services  # noqa: F401 - fixture
from test_loader_s3 import credentials, moto_url  # noqa: F401 - fixtures

BUDGET = 12
ONBOARDING = b"# Onboarding\n\nWelcome aboard, and read the handbook first."


def kept(document: SourceDocument) -> int:
    return sum(len(block.text) for block in document.blocks)


def cut_to_budget(document: SourceDocument) -> bool:
    return (
        document.truncated
        and document.budget_cut
        and 0 < kept(document) <= BUDGET
        and (document.revision or "").endswith(f"@budget={BUDGET}")
    )


def test_github_cloud_storage_and_notion_documents_are_held_to_the_budget(
    services: MisbehavingServer,  # noqa: F811
) -> None:
    base = services.url("").rstrip("/")
    repo = GitHubRepo("octo", "kb", "v2", api=base, raw=base)
    tree = load_github_tree_sync(repo, ["README.md"], budget=BUDGET).documents
    bucket = load_gcs_sync("kb-bucket", "faq/", api=base, budget=BUDGET).documents
    page = load_notion_page_sync("abc123", api=base, budget=BUDGET)
    assert len(tree) == len(bucket) == 1
    assert [cut_to_budget(d) for d in (*tree, *bucket, page)] == [True, True, True]
    whole = load_notion_page_sync("abc123", api=base)  # the default budget holds it all
    assert not whole.truncated and whole.revision is None and kept(whole) > BUDGET


def test_an_s3_document_is_held_to_the_budget(moto_url: str) -> None:  # noqa: F811
    s3 = boto3.client("s3", endpoint_url=moto_url)
    s3.create_bucket(Bucket="kb-docs")
    s3.put_object(Bucket="kb-docs", Key="team/onboarding.md", Body=ONBOARDING)
    where = parse_s3("s3://kb-docs/team/")
    [document] = load_s3_sync(where, endpoint_url=moto_url, budget=BUDGET).documents
    [whole] = load_s3_sync(where, endpoint_url=moto_url).documents
    assert not whole.truncated and whole.revision and "@budget" not in whole.revision
    assert cut_to_budget(document) and document.revision == f"{whole.revision}@budget={BUDGET}"


@pytest.mark.parametrize("budget", [-1, 1.5, True, 16_000_001])
def test_a_budget_out_of_range_is_refused_before_any_request(
    services: MisbehavingServer,  # noqa: F811
    budget: object,
) -> None:
    base = services.url("").rstrip("/")
    calls = [
        lambda: load_github_tree_sync(GitHubRepo("octo", "kb", "v2", api=base, raw=base),
                                      budget=budget),  # type: ignore[arg-type]
        lambda: load_gcs_sync("kb-bucket", "faq/", api=base, budget=budget),  # type: ignore[arg-type]
        lambda: load_notion_page_sync("abc123", api=base, budget=budget),  # type: ignore[arg-type]
        lambda: load_s3_sync(parse_s3("s3://kb-docs/team/"), endpoint_url=base,
                             budget=budget),  # type: ignore[arg-type]
    ]  # fmt: skip
    for call in calls:
        with pytest.raises(InvalidArgument, match="budget"):
            call()
    assert services.seen == []


def test_index_add_budget_cuts_remote_documents_and_says_so(
    services: MisbehavingServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    store = str(tmp_path / "index.db")
    sources = ("github:octo/kb@v2", "--glob", "*.md", "notion:abc123", "gs://kb-bucket/faq/")
    code, out, err = run("index", "add", *sources, "--store", store, "--retrieval", "bm25",
                         "--budget", str(BUDGET))  # fmt: skip
    assert code == 0, err
    assert out == "indexed 4 document(s) as 4 chunk(s), 4 of them cut short\n"
    why = f": the text was cut short (budget {BUDGET} characters; --budget keeps more)"
    for name in ("https://github.com/octo/kb/blob/v2/README.md", "notion://abc123",
                 "https://github.com/octo/kb/blob/v2/docs/guide.md",
                 "gs://kb-bucket/faq/returns.md"):  # fmt: skip
        assert f"cut {name}{why}" in err
    code, out, err = run("index", "add", *sources, "--store", store, "--retrieval", "bm25")
    assert (code, out) == (0, "indexed 4 document(s) as 4 chunk(s)\n") and "cut " not in err
    code, out, _ = run("search", "thirty days", "--store", store, "--retrieval", "bm25")
    assert code == 0 and "Within thirty days." in out  # read whole at the default budget
