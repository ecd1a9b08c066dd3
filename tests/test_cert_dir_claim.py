"""Issue 25 item 4: certificate directories under ``batch --cert-dir`` are claimed atomically,
so two batches sharing the directory never write into the same certificate folder."""

from __future__ import annotations

import threading

import pytest

from nonosat.batch.run import _write_certificate, certificate_dir
from nonosat.errors import NonosatError

FILES = ("certificate.json", "puzzle.cnf", "proof.drat", "solution.txt")


def _record(writer: str) -> dict:
    return {"id": "sets/a.txt#1", "status": "unique",
            "certificate_files": {name: f"{writer} {name}\n".encode() for name in FILES}}


@pytest.mark.parametrize("force", [False, True])
def test_two_concurrent_writers_never_share_a_certificate_folder(tmp_path, force):
    """Eight threads write the certificate of one puzzle at once, 10 times over: without
    --force exactly one claims the folder and the others are refused; with --force the folder
    ends up with one writer's whole certificate.  Never a mix of two writers' files."""
    for attempt in range(10):
        cert_dir = tmp_path / f"certs{attempt}"
        start = threading.Barrier(8)
        outcome: dict[str, str] = {}

        def write(writer: str, start: threading.Barrier, cert_dir, outcome: dict) -> None:
            record = _record(writer)
            start.wait()
            try:
                _write_certificate(record, cert_dir, force)
                outcome[writer] = "wrote"
            except NonosatError as exc:
                ok = "already exists" in str(exc) and not force
                outcome[writer] = "refused" if ok else repr(exc)

        threads = [threading.Thread(target=write, args=(f"w{k}", start, cert_dir, outcome))
                   for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        out = certificate_dir(cert_dir, "sets/a.txt#1")
        owners = {(out / name).read_text().split()[0] for name in FILES}
        assert len(owners) == 1, owners  # one writer's certificate, whole
        assert sorted(p.name for p in out.iterdir()) == sorted(FILES)
        if force:
            assert set(outcome.values()) == {"wrote"}, outcome
        else:
            assert sorted(outcome.values()) == ["refused"] * 7 + ["wrote"], outcome
            assert owners == {w for w, o in outcome.items() if o == "wrote"}
        assert [p.name for p in cert_dir.iterdir()] == [out.name]  # no claim left behind


def test_a_folder_made_after_the_check_is_not_written_into(tmp_path):
    """The check before the batch runs passes; another run then makes the folder: the
    certificate is refused, the other run's file untouched."""
    cert_dir = tmp_path / "certs"
    out = certificate_dir(cert_dir, "sets/a.txt#1")
    out.mkdir(parents=True)
    (out / "proof.drat").write_text("the other run's proof\n")
    record = _record("late")
    with pytest.raises(NonosatError, match="already exists"):
        _write_certificate(record, cert_dir)
    assert [p.name for p in out.iterdir()] == ["proof.drat"]
    assert (out / "proof.drat").read_text() == "the other run's proof\n"
    _write_certificate(_record("forced"), cert_dir, force=True)
    assert (out / "proof.drat").read_text() == "forced proof.drat\n"
    assert "certificate" not in record
