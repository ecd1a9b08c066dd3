"""Mutations of real LRAT proofs (and of their CNFs), for the forged-proof tests and
``benchmarks/bench_forged.py``.

A proof is given as the CNF's clauses and the LRAT text; :func:`mutate` returns one mutated pair.
Every mutation class is a way a broken writer or a forger could change a proof: lines dropped,
duplicated or swapped, hints dropped, reordered, retargeted (backwards, forwards, at deleted
clauses), made negative (RAT), literals flipped, dropped or added, early deletions, a missing
empty clause, truncation, garbage bytes, huge numbers, a missing ``0``, a smaller ID, and the CNF
weakened (a clause dropped) or changed (a literal flipped).  Some mutants are still valid proofs
(a dropped lemma nobody used); the tests only require that nonosat's checker never accepts what
cake_lpr rejects, and rejects the mutants that cannot be valid.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

Clauses = list[list[int]]

#: Mutation classes :func:`mutate` knows.
KINDS = (
    "drop-line", "duplicate-line", "swap-lines", "drop-hint", "swap-hints", "shuffle-hints",
    "retarget-hint", "forward-hint", "deleted-hint", "negate-hint", "flip-literal",
    "drop-literal", "add-literal", "fresh-literal", "delete-early", "delete-unknown",
    "drop-empty", "truncate", "garbage", "huge-number", "drop-zero", "smaller-id",
    "weaker-cnf", "flip-cnf-literal", "extra-hint", "stale-trail",
)

#: Mutations that nonosat's checker must reject whatever the rest of the proof says (a missing
#: empty clause, RAT, a fresh variable, a deletion or hint of a clause that is not live, a
#: repeated ID or deletion).
ALWAYS_REJECTED = ("drop-empty", "negate-hint", "fresh-literal", "delete-unknown", "forward-hint",
                   "deleted-hint", "duplicate-line", "stale-trail")


def _parse(lrat: str) -> list[list]:
    """Lines as ``[id, "a", lits, hints]`` or ``[id, "d", ids]``."""
    out: list[list] = []
    for line in lrat.splitlines():
        tok = line.split()
        if not tok:
            continue
        ident = int(tok[0])
        if tok[1] == "d":
            out.append([ident, "d", [int(x) for x in tok[2:-1]]])
        else:
            nums = [int(x) for x in tok[1:]]
            z = nums.index(0)
            out.append([ident, "a", nums[:z], nums[z + 1:-1]])
    return out


def _text(lines: list[list]) -> str:
    parts = []
    for ln in lines:
        if ln[1] == "d":
            parts.append(f"{ln[0]} d {' '.join(map(str, ln[2]))} 0".replace("d  0", "d 0"))
        else:
            lits = " ".join(map(str, ln[2]))
            hints = " ".join(map(str, ln[3]))
            parts.append(" ".join(x for x in (str(ln[0]), lits, "0", hints, "0") if x))
    return "\n".join(parts) + "\n"


def to_drat(clauses: Sequence[Sequence[int]], lrat: str) -> str | None:
    """The DRAT form of the LRAT proof ``lrat`` of ``clauses`` (hints dropped, deletions by
    their literals), or ``None`` when the text is not LRAT this module can read.  Deletions of
    IDs that are not live have no DRAT form and are left out."""
    try:
        lines = _parse(lrat)
    except (ValueError, IndexError):
        return None
    live = {i + 1: list(c) for i, c in enumerate(clauses)}
    out = []
    for ln in lines:
        if ln[1] == "d":
            for ident in ln[2]:
                if ident in live:
                    out.append("d " + " ".join(map(str, live.pop(ident))) + " 0")
        else:
            live[ln[0]] = ln[2]
            out.append(" ".join([*map(str, ln[2]), "0"]))
    return "\n".join(out) + "\n"


def mutate(clauses: Sequence[Sequence[int]], nvars: int, lrat: str, rng: random.Random,
           kind: str | None = None) -> tuple[str, Clauses, str]:
    """One mutation of the proof ``lrat`` of ``clauses``: ``(kind, clauses, lrat)``."""
    kind = kind or rng.choice(KINDS)
    cnf = [list(c) for c in clauses]
    lines = _parse(lrat)
    adds = [i for i, ln in enumerate(lines) if ln[1] == "a"]
    with_hints = [i for i in adds if lines[i][3]]
    with_lits = [i for i in adds if lines[i][2]]
    m = len(cnf)
    if kind == "drop-line" and lines:
        del lines[rng.randrange(len(lines))]
    elif kind == "duplicate-line" and lines:
        i = rng.randrange(len(lines))
        lines.insert(i + 1, [*lines[i][:2], *[list(x) for x in lines[i][2:]]])
    elif kind == "swap-lines" and len(lines) > 1:
        i = rng.randrange(len(lines) - 1)
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    elif kind == "drop-hint" and with_hints:
        hints = lines[rng.choice(with_hints)][3]
        del hints[rng.randrange(len(hints))]
    elif kind == "swap-hints" and any(len(lines[i][3]) > 1 for i in with_hints):
        hints = lines[rng.choice([i for i in with_hints if len(lines[i][3]) > 1])][3]
        j = rng.randrange(len(hints) - 1)
        hints[j], hints[j + 1] = hints[j + 1], hints[j]
    elif kind == "shuffle-hints" and with_hints:
        rng.shuffle(lines[rng.choice(with_hints)][3])
    elif kind == "retarget-hint" and with_hints:
        ln = lines[rng.choice(with_hints)]
        ln[3][rng.randrange(len(ln[3]))] = rng.randint(1, ln[0] - 1)
    elif kind == "forward-hint" and with_hints:
        ln = lines[rng.choice(with_hints)]
        ln[3][rng.randrange(len(ln[3]))] = ln[0] + rng.randint(0, 3)
    elif kind == "deleted-hint" and with_hints:
        i = rng.choice(with_hints)
        ln = lines[i]
        target = rng.choice(ln[3])
        lines.insert(i, [ln[0] - 1 if ln[0] > 1 else 1, "d", [target]])
    elif kind == "negate-hint" and with_hints:
        ln = lines[rng.choice(with_hints)]
        j = rng.randrange(len(ln[3]))
        ln[3][j] = -ln[3][j]
    elif kind == "flip-literal" and with_lits:
        lits = lines[rng.choice(with_lits)][2]
        j = rng.randrange(len(lits))
        lits[j] = -lits[j]
    elif kind == "drop-literal" and with_lits:
        lits = lines[rng.choice(with_lits)][2]
        del lits[rng.randrange(len(lits))]
    elif kind == "add-literal" and adds:
        lines[rng.choice(adds)][2].append(rng.choice([-1, 1]) * rng.randint(1, nvars))
    elif kind == "fresh-literal" and adds:
        lines[rng.choice(adds)][2].append(rng.choice([-1, 1]) * (nvars + rng.randint(1, 5)))
    elif kind == "delete-early" and with_hints:
        i = rng.choice(with_hints)
        target = rng.choice(lines[i][3])
        lines.insert(rng.randint(0, i), [lines[0][0] if lines else m, "d", [target]])
    elif kind == "delete-unknown":
        top = max([m, *(ln[0] for ln in lines)])
        lines.insert(rng.randint(0, len(lines)), [m, "d", [top + rng.randint(1, 10)]])
    elif kind == "drop-empty":
        lines = [ln for ln in lines if not (ln[1] == "a" and not ln[2])]
    elif kind == "smaller-id" and len(adds) > 1:
        i = rng.choice(adds[1:])
        lines[i][0] = rng.randint(1, lines[i][0] - 1)
    elif kind == "extra-hint" and with_hints:
        ln = lines[rng.choice(with_hints)]
        ln[3].insert(rng.randint(0, len(ln[3])), rng.randint(1, ln[0] - 1))
    elif kind == "weaker-cnf" and cnf:
        del cnf[rng.randrange(len(cnf))]
    elif kind == "stale-trail":
        # the whole proof replaced by the stale-trail forgery on two fresh variables y, w:
        # y; w -y; delete (w -y); -w; the empty clause (docs/proof-checking.md)
        y, w, i = nvars + 1, nvars + 2, m + 1
        lines = [[i, "a", [y], []], [i + 1, "a", [w, -y], []], [i + 1, "d", [i + 1]],
                 [i + 2, "a", [-w], []], [i + 3, "a", [], [i, i + 1, i + 2]]]
    elif kind == "flip-cnf-literal" and cnf:
        c = rng.choice([c for c in cnf if c] or [[0]])
        if c != [0]:
            j = rng.randrange(len(c))
            c[j] = -c[j]
    text = _text(lines)
    if kind == "truncate":
        text = text[: rng.randrange(len(text))]
    elif kind == "garbage":
        at = rng.randrange(len(text) + 1)
        junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        text = text[:at] + junk.decode("latin-1") + text[at:]
    elif kind == "huge-number":
        tokens = text.split(" ")
        j = rng.randrange(len(tokens))
        big = str(rng.choice([2**31, 2**63, 10**30, 2**62 + 1]))
        tokens[j] = big + ("\n" if tokens[j].endswith("\n") else "")
        text = " ".join(tokens)
    elif kind == "drop-zero":
        zeros = [j for j in range(len(text) - 1) if text[j:j + 2] == "0\n"
                 and (j == 0 or text[j - 1] == " ")]
        if zeros:
            j = rng.choice(zeros)
            text = text[:j] + text[j + 1:]
    return kind, cnf, text
