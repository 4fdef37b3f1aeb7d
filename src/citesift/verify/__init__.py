"""Verification: claims graded against the sources meant to support them."""

from citesift.verify.candidates import Candidates, find_candidates
from citesift.verify.check_json import check_json, citation_json
from citesift.verify.citations import Citation, find_citations
from citesift.verify.claim_check import verify_claim
from citesift.verify.claims import extract_claims
from citesift.verify.contradiction import FactContradiction
from citesift.verify.document_check import CitationCheck, DocumentCheck, check_citations
from citesift.verify.judges import (
    ClaimCheck,
    Judge,
    Label,
    LLMJudge,
    NLIJudge,
    NliModel,
    OfflineJudge,
    TrainedJudge,
    load_nli,
)
from citesift.verify.runs import FieldCheck, RunCheck, Sentence, field_claim, replay_run, verify_run
from citesift.verify.verifier import (
    CitationSource,
    CitationVerifier,
    ClaimVerdict,
    NliResult,
    VerifiedResponse,
    cosine_similarity,
    format_verified_response,
)

__all__ = [
    "Candidates",
    "Citation",
    "CitationCheck",
    "DocumentCheck",
    "FactContradiction",
    "FieldCheck",
    "check_citations",
    "check_json",
    "citation_json",
    "find_citations",
    "CitationSource",
    "CitationVerifier",
    "ClaimCheck",
    "ClaimVerdict",
    "Judge",
    "LLMJudge",
    "Label",
    "NLIJudge",
    "NliModel",
    "NliResult",
    "OfflineJudge",
    "RunCheck",
    "Sentence",
    "TrainedJudge",
    "VerifiedResponse",
    "cosine_similarity",
    "extract_claims",
    "find_candidates",
    "field_claim",
    "format_verified_response",
    "load_nli",
    "replay_run",
    "verify_claim",
    "verify_run",
]
