"""A coverage point: one record of Verilator's coverage.dat (eda.coverage) or one FSM state or arc
(eda.fsm). Its own module so that both build Points and eda.coverage may import eda.fsm."""
from dataclasses import dataclass


@dataclass
class Point:
    file: str
    line: int
    type: str
    module: str
    hier: str             # relative to the DUT instance: "uut", "uut.sub0", ...
    comment: str
    count: int
    column: int = 0
    lines: tuple = ()     # source lines this point stands for (line points: the block)
    key: str = ""         # identity for merging: everything but the count
    source: str = ""      # text of `line` (filled by CoverageDB)

    @property
    def covered(self) -> bool:
        return self.count > 0

    def describe(self) -> str:
        """One line for an LLM prompt."""
        src = f"  `{self.source.strip()}`" if self.source.strip() else ""
        return f"{self.file}:{self.line} {self.type} {self.comment} in {self.hier} (count {self.count}){src}"
