"""Prompts for the policy and extraction of Verilog from what it answers: every text the model is shown
lives in this package.

Prompts stay short: the default model (SmolLM2-135M) has a small useful context and CI must be fast.
Every builder returns chat messages ([{"role","content"}]) that any policy backend accepts.

  rtl       spec -> RTL (SYSTEM, rtl_prompt), answer starts (prefill_for, rtl_prefill, module headers),
            extract_verilog
  edit      edit / optimize prompts with the EDA report, SEARCH/REPLACE how-to (DIFF_HOWTO), the repair
            re-prompt, one-line edit prefills
  stimulus  the coverage job's stimulus prompt and its worked example
"""
from .edit import (DIFF_HOWTO, EDIT_SYSTEM, TRANSFORM_PREFILL, _path_cells, edit_head, edit_prompt, optimize_prompt,
                   repair_prompt, report_summary, target_prefill, transform_prompt)
from .rtl import (ACTIONS, SYSTEM, Extraction, _candidate_text, _clip, _instances, _modules, _ports_line,
                  extract_verilog, header_end, module_header, parent_header, port_names, prefill_for, rtl_prefill,
                  rtl_prompt)
from .stimulus import STIM_SYSTEM, stimulus_prompt

__all__ = ["ACTIONS", "DIFF_HOWTO", "EDIT_SYSTEM", "Extraction", "STIM_SYSTEM", "SYSTEM", "edit_head", "edit_prompt",
           "extract_verilog", "header_end", "module_header", "optimize_prompt", "parent_header", "port_names",
           "prefill_for", "repair_prompt", "report_summary", "rtl_prefill", "rtl_prompt", "stimulus_prompt",
           "target_prefill", "transform_prompt", "TRANSFORM_PREFILL", "_candidate_text", "_clip", "_instances", "_modules", "_path_cells", "_ports_line"]
