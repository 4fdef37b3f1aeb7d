"""Verification: claims graded against the sources meant to support them."""

from citesift.verify.candidates import Candidates, find_candidates
from citesift.verify.claim_check import verify_claim
from citesift.verify.claims import extract_claims
from citesift.verify.judges import (
    ClaimCheck,
    Judge,
    Label,
    LLMJudge,
    NLIJudge,
    NliModel,
    OfflineJudge,
)
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
    "VerifiedResponse",
    "cosine_similarity",
    "extract_claims",
    "find_candidates",
    "format_verified_response",
    "verify_claim",
]
