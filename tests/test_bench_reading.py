"""A regenerated benchmark report keeps its hand-written reading, one blank line after the table, however often."""
from bench.common import write_with_reading


def test_the_reading_survives_and_does_not_move(tmp_path):
    md = tmp_path / "r.md"
    write_with_reading(md, "# T\n\n| a |\n|---|\n| 1 |\n")
    assert md.read_text() == "# T\n\n| a |\n|---|\n| 1 |\n"
    md.write_text(md.read_text() + "\n\n## Reading (by hand)\n\nIt is fine.\n")      # a hand edit, two blank lines
    for body in ("# T\n\n| a |\n|---|\n| 2 |", "# T\n\n| a |\n|---|\n| 2 |\n\n"):
        write_with_reading(md, body)
        assert md.read_text() == "# T\n\n| a |\n|---|\n| 2 |\n\n## Reading (by hand)\n\nIt is fine.\n"


def test_comparison_pairs_first_finds_and_step_rates_by_design_and_seed():
    from bench.transform_search import by_step, paired
    rows = [{"design": d, "seed": s, "mode": m, "first_find_or_cap": ff, "find_rate_by_step": fr}
            for d, s, m, ff, fr in (("a", 0, "ttt", 2, [0.5, 0.25]), ("a", 0, "frozen", 5, [0.5, 0.0]),
                                    ("b", 0, "ttt", 17, [0.0, 0.0]), ("b", 0, "frozen", 17, [0.0, 0.5]),
                                    ("b", 1, "ttt", 1, [1.0]))]          # b seed 1 has no frozen run: no pair
    got = paired(rows, "frozen", "ttt", "first_find_or_cap", log=False)
    assert got["pairs"] == 2 and got["mean"] == 1.5 and got["lo"] <= 1.5 <= got["hi"]
    text = "\n".join(by_step(rows, ["ttt", "frozen"]))
    assert "ttt: find rate per sample by step 0.500, 0.125 (over 3 runs)" in text, text
    assert "step 2, ttt - frozen: -0.125" in text
