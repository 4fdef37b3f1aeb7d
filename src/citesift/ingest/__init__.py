"""Sources read into the index: ``index_add`` (the library's ``citesift index add``), in one
process or shared by worker processes and machines."""

from citesift.ingest.add import index_add
from citesift.ingest.report import EmptyDocument, IndexAddReport, IndexProgress

__all__ = ["EmptyDocument", "IndexAddReport", "IndexProgress", "index_add"]
