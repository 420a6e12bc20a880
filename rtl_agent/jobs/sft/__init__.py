"""Supervised warm starts (`rtl-agent sft`): verified training pairs (data) from the corpus and from
generated designs (generator), never from the evaluation suites."""
