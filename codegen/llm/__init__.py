"""The one owner of model calls: an OpenAI-compatible endpoint (`codegen.llm.endpoint`).

Importing this package is cheap: `openai` and `pydantic` load only when a request is made.
"""

from codegen.llm.endpoint import (
    Call,
    Endpoint,
    EndpointConfig,
    ModelRequestRefused,
    ModelUnavailable,
    NoModelConfigured,
    StructuredOutputError,
    Usage,
)

__all__ = [
    "Call",
    "Endpoint",
    "EndpointConfig",
    "ModelRequestRefused",
    "ModelUnavailable",
    "NoModelConfigured",
    "StructuredOutputError",
    "Usage",
]
