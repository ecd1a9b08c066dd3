"""``nonosat analyse`` on the command line: report, JSON, graph export, ambiguity map."""

from __future__ import annotations

import json

import networkx as nx
from typer.testing import CliRunner

from nonosat.cli.app import app
from nonosat.native.implications import read_graph
from tests.conftest import corpus_path

runner = CliRunner()


def test_analyse_football_text():
    out = runner.invoke(app, ["analyse", str(corpus_path("Nonogram", "games", "football.json"))])
    assert out.exit_code == 0, out.output
    assert "unique solution" in out.stdout
    assert "techniques needed: probing (line solving -> implications -> probing)" in out.stdout
    assert "grade: 3 (hard)" in out.stdout
    assert "backbone: 400 of 400 cells" in out.stdout


def test_analyse_multiple_json_graph_and_map(tmp_path):
    path = corpus_path("NonogramRecord", "question", "taai2011.txt")
    graph, picture = tmp_path / "g.gexf", tmp_path / "map.svg"
    out = runner.invoke(app, ["analyse", str(path), "--index", "2", "--json",
                              "--graph", str(graph), "--map", str(picture)])
    assert out.exit_code == 1, out.output  # several solutions
    data = json.loads(out.stdout)
    assert data["status"] == "multiple" and data["techniques_needed"] == "search"
    assert data["grade"]["grade"] is None and data["grade"]["reason"] == "several solutions"
    assert data["search"]["decided"] and data["search"]["amount"] >= 0
    assert data["backbone_size"] == 625 - len(data["ambiguity"]["cells"])
    assert data["uniqueness_givens"]["unique"] and not data["uniqueness_givens"]["minimal"]
    assert data["open_after"]["line"] >= data["open_after"]["implications"]
    g = read_graph(graph)
    assert g.number_of_nodes() == 2 * data["open_after"]["line"]
    assert isinstance(nx.read_gexf(graph), nx.DiGraph)
    assert picture.read_text().startswith("<?xml")
    again = runner.invoke(app, ["analyse", str(path), "--index", "2", "--graph", str(graph)])
    assert again.exit_code == 2 and "already exists" in again.output


def test_analyse_count_all(tmp_path):
    path = tmp_path / "two.non"
    path.write_text("width 2\nheight 2\nrows\n1\n1\ncolumns\n1\n1\n")
    out = runner.invoke(app, ["analyse", str(path), "--count-all"])
    assert out.exit_code == 1
    assert "2 solutions" in " ".join(out.stdout.split())  # the verdict line wraps at 80
    assert "ambiguity map: 4 cells differ" in out.stdout
    assert sum(line.count("<>") for line in out.stdout.splitlines() if "|" in line) == 4
    joined = " ".join(out.stdout.split())
    assert "extra givens making the solution unique: 1" in joined
    assert "not proved minimum" in joined


def test_analyse_bad_input(tmp_path):
    bad = tmp_path / "bad.non"
    bad.write_text("width 2\nheight 2\nrows\n3\n1\ncolumns\n1\n1\n")
    out = runner.invoke(app, ["analyse", str(bad)])
    assert out.exit_code == 2
    assert "Traceback" not in out.output
    out = runner.invoke(app, ["analyse", str(tmp_path / "missing.non")])
    assert out.exit_code == 2
