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
