"""LLM policy backends: transformers+peft (trainable), vLLM (fast sampling, LoRA hot-swap), OpenAI-compatible."""
from .base import Completion, Policy, PolicyError, TrainablePolicy, make_policy
from .models import default_model_dir, resolve_model

__all__ = ["Completion", "Policy", "PolicyError", "TrainablePolicy", "make_policy",
           "default_model_dir", "resolve_model"]
