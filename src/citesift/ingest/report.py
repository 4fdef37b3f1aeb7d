"""What ``index_add`` did, counted as it goes (``Tally``, merged across workers) and handed
back (``IndexAddReport``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from citesift.index.documents import IngestDoc, as_ingest_doc
from citesift.index.rag import Rag
from citesift.sources.gather import Blank, Found, SourceRefusal, Unchanged
from citesift.sources.loaders.files import cut_by_budget

IndexProgress = Callable[[str, int, int], None]
"""Hears ``(what is being done, done, in all)``; ``in all`` is 0 while unknown."""


@dataclass(frozen=True, slots=True)
class EmptyDocument:
    """A document read that holds no text (so not indexed), by id, and why: "empty file",
    "no text layer (scanned? OCR it first)" for a PDF whose pages hold no text, else "no
    text"."""

    id: str
    reason: str


@dataclass(frozen=True, slots=True)
class IndexAddReport:
    """``added``: documents indexed (new, or changed since last time) and ``chunks`` their
    chunks; ``unchanged``: files found indexed already at their present bytes; ``removed``:
    documents a prune removed; ``refused``: each source (or part of one) that gave nothing,
    and why; ``elsewhere``: items another command sharing the PostgreSQL job read instead;
    ``empty``: how many documents read hold no text, so not indexed (an earlier version of one
    is kept as it was), each named with why in ``empty_documents``; ``cut``: the ids of the
    documents indexed that were cut short, by the text budget (only their first ``budget``
    characters are indexed) or by a bound on size or time; ``budget_cut``: those of them the
    budget cut, of which a larger budget indexes more."""

    added: int = 0
    chunks: int = 0
    unchanged: int = 0
    removed: int = 0
    refused: tuple[SourceRefusal, ...] = ()
    elsewhere: int = 0
    empty: int = 0
    empty_documents: tuple[EmptyDocument, ...] = ()
    cut: tuple[str, ...] = ()
    budget_cut: tuple[str, ...] = ()

    @property
    def did_nothing(self) -> bool:
        """Whether nothing was added, found up to date or empty, removed or read by another
        command."""
        return not (self.added or self.unchanged or self.empty or self.removed or self.elsewhere)


@dataclass
class Tally:
    """What reading did so far: the ids indexed and their chunks, the ids read empty (and
    why, when the reader said), the ids cut short (and those of them the budget cut), the
    ids seen unchanged, the refusals, and how many items were read."""

    added: set[str] = field(default_factory=set)
    chunks: int = 0
    unchanged: set[str] = field(default_factory=set)
    refused: list[SourceRefusal] = field(default_factory=list)
    items: int = 0
    empty: dict[str, str] = field(default_factory=dict)
    cut: set[str] = field(default_factory=set)
    budget_cut: set[str] = field(default_factory=set)
    _why_empty: dict[str, str] = field(default_factory=dict)
    _read_cut: set[str] = field(default_factory=set)
    _read_budget_cut: set[str] = field(default_factory=set)

    def sort(self, found: Iterable[Found], documents: dict[str, IngestDoc]) -> None:
        """Each thing ``found`` counted, and each document put in ``documents`` by id (a
        file named twice, alone and in its folder, is one)."""
        for each in found:
            if isinstance(each, SourceRefusal):
                self.refused.append(each)
            elif isinstance(each, Unchanged):
                self.unchanged.add(each.name)
            else:
                read = each.document if isinstance(each, Blank) else each
                document = as_ingest_doc(read)
                documents[document.id] = document
                if isinstance(each, Blank):
                    self._why_empty[document.id] = each.reason
                if read.truncated:
                    self._read_cut.add(document.id)
                if read.truncated and cut_by_budget(read.revision):
                    self._read_budget_cut.add(document.id)

    def ingest(self, rag: Rag, documents: dict[str, IngestDoc]) -> None:
        """Index ``documents`` into ``rag``, counting their chunks, the documents kept and
        those that held no text."""
        kept: set[str] = set()
        rag.kept = kept.add
        rag.refused = lambda name, why: self.refused.append(SourceRefusal(name, why, "invalid"))
        try:
            self.chunks += rag.ingest(list(documents.values()))
        finally:
            rag.kept = rag.refused = None
        self.added |= kept
        self.cut |= kept & self._read_cut
        self.budget_cut |= kept & self._read_budget_cut
        refused = {each.name for each in self.refused}
        for name in sorted(set(documents) - kept - refused):
            self.empty[name] = self._why_empty.get(name, "no text")

    def merge(self, other: Tally) -> None:
        """Count what ``other`` (another worker's tally) did too."""
        self.added |= other.added
        self.empty.update(other.empty)
        self.cut |= other.cut
        self.budget_cut |= other.budget_cut
        self.chunks += other.chunks
        self.unchanged |= other.unchanged
        self.refused.extend(other.refused)
        self.items += other.items

    def report(self, removed: int, elsewhere: int) -> IndexAddReport:
        """The report of what was done, ``removed`` by a prune and read ``elsewhere``."""
        empty = tuple(EmptyDocument(name, why) for name, why in sorted(self.empty.items()))
        return IndexAddReport(len(self.added), self.chunks, len(self.unchanged), removed,
                              tuple(self.refused), elsewhere, len(empty), empty,
                              tuple(sorted(self.cut)), tuple(sorted(self.budget_cut)))  # fmt: skip
