"""``certify --out DIR`` claims DIR atomically (issue 25's last gap): the certificate is written
into a fresh hidden sibling and renamed into place, so DIR holds a whole certificate or nothing
new, also after Ctrl-C or SIGTERM; an existing non-empty DIR is refused (exit 2, one line)
unless ``--force``."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nonosat import interrupts
from nonosat.certificates import verify_certificate
from nonosat.certificates.bundle import write_directory
from nonosat.cli.app import app
from nonosat.errors import FormatError
from tests.conftest import GAMES
from tests.test_interrupts import check_outcome, interrupt, no_temporaries

FILES = {"puzzle.json": b"{}\n", "proof.drat": b"0\n", "certificate.json": b"{}\n"}


def _cli(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_an_existing_non_empty_directory_is_refused_in_one_line(tmp_path):
    out = tmp_path / "cert"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    result = _cli("certify", GAMES / "heart.non", "--out", out)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "--force" in lines[0] and str(out) in lines[0]
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cert"]  # nothing claimed beside it


def test_certify_writes_a_whole_checked_certificate_and_force_replaces_it(tmp_path):
    out = tmp_path / "cert"
    out.mkdir()  # an empty directory is taken
    assert _cli("certify", GAMES / "heart.non", "--out", out).exit_code == 0
    assert verify_certificate(out).ok
    (out / "notes.txt").write_text("mine\n")
    assert _cli("certify", GAMES / "impossible.non", "--out", out).exit_code == 2
    assert verify_certificate(out).verdict == "unique"  # untouched
    assert _cli("certify", GAMES / "impossible.non", "--out", out, "--force").exit_code == 3
    checked = verify_certificate(out)
    assert checked.ok and checked.verdict == "none"
    assert not (out / "solution.txt").exists()  # the unique certificate's file is gone
    assert (out / "notes.txt").read_text() == "mine\n"  # the user's file kept
    assert [p.name for p in tmp_path.iterdir()] == ["cert"]


def test_an_interrupt_mid_write_leaves_nothing(tmp_path, monkeypatch):
    """Ctrl-C after the first file of the certificate is written: no DIR, no temporary; the
    same over an existing certificate with --force leaves the old one whole."""
    import builtins

    real_open = builtins.open
    seen: list[str] = []

    def interrupted_open(path, mode="r", *args, **kwargs):
        if mode == "xb":
            seen.append(str(path))
            if len(seen) == 2:
                raise interrupts.Interrupted(signal.SIGINT)
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", interrupted_open)
    out = tmp_path / "cert"
    with pytest.raises(KeyboardInterrupt):
        write_directory(out, FILES)
    assert len(seen) == 2 and ".nonosat-tmp" in seen[0]  # written in the hidden sibling
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(builtins, "open", real_open)
    write_directory(out, FILES)
    monkeypatch.setattr(builtins, "open", interrupted_open)
    seen.clear()
    with pytest.raises(KeyboardInterrupt):
        write_directory(out, {"solution.txt": b"#\n", **FILES}, force=True)
    assert sorted(p.name for p in out.iterdir()) == sorted(FILES)
    assert [p.name for p in tmp_path.iterdir()] == ["cert"]


def test_a_process_ended_mid_write_removes_the_claim(tmp_path):
    """What a process ended at once after a signal does (nonosat.cli.signals): the directory
    being filled is a declared temporary and is removed."""
    from nonosat.cli.signals import remove_temporaries
    from nonosat.safe_io import claimed_directory

    out = tmp_path / "cert"
    with pytest.raises(RuntimeError), claimed_directory(out) as fresh:
        (fresh / "proof.drat").write_bytes(b"0\n")
        assert str(fresh) in interrupts.temporaries()
        remove_temporaries()
        assert not fresh.exists()
        raise RuntimeError("the process would have ended here")
    assert list(tmp_path.iterdir()) == []


def test_a_directory_made_meanwhile_is_not_written_into(tmp_path):
    """Another run makes DIR while this one fills its claim: the rename refuses, DIR keeps the
    other run's file, the claim is removed."""
    from nonosat.safe_io import claimed_directory

    out = tmp_path / "cert"
    with pytest.raises(FormatError, match="not empty"), claimed_directory(out) as fresh:
        (fresh / "proof.drat").write_bytes(b"mine\n")
        out.mkdir()
        (out / "proof.drat").write_bytes(b"theirs\n")
    assert (out / "proof.drat").read_bytes() == b"theirs\n"
    assert [p.name for p in tmp_path.iterdir()] == ["cert"]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_certify_interrupted_at_random_moments(tmp_path: Path, signum: int) -> None:
    """``nonosat certify`` on a small puzzle, signalled at moments spread over its whole run
    (start-up, solving, proving, checking, writing): each run exits 130/143 (0 when it finished
    first) with DIR absent or holding a certificate that checks, and no temporary left."""
    for k, delay in enumerate((0.05, 0.3, 0.6, 0.9)):
        work = tmp_path / f"run{k}"
        work.mkdir()
        out = work / "cert"
        outcome = interrupt(["certify", str(GAMES / "house.json"), "--out", str(out)], signum,
                            delay, work)
        check_outcome(outcome, allowed_after_finish=(0,))
        assert no_temporaries(work) == [], outcome.describe()
        assert [p.name for p in work.iterdir()] in ([], ["cert"]), outcome.describe()
        if out.exists():
            assert verify_certificate(out).ok, outcome.describe()
