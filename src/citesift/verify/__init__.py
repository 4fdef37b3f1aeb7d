"""Verification: claims graded against the sources meant to support them."""

from citesift.verify.claims import extract_claims
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
    "CitationSource",
    "CitationVerifier",
    "ClaimVerdict",
    "NliResult",
    "VerifiedResponse",
    "cosine_similarity",
    "extract_claims",
    "format_verified_response",
]
