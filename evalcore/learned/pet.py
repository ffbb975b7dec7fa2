"""Permutation trees (PETs) and word-order features of a permutation (methods §6.1; Stanojević & Sima'an 2015 §2.4).

A permutation π of 1..n (π[i] = the reference rank of the i-th aligned hypothesis word) is
decomposed into a *permutation tree*: every internal node covers a contiguous span of
positions whose values form a contiguous range; its children, read left to right, are
ordered like a small permutation (its "pattern"): ⟨1,2⟩ monotone, ⟨2,1⟩ inverted, or a
simple ("prime") pattern of arity ≥ 4 such as ⟨2,4,1,3⟩ (no pattern of arity 3 is simple).

* :func:`canonical_pet` – the canonical PET by shift-reduce (Zhang & Gildea 2007, cited by
  Stanojević & Sima'an 2015): after each shift, reduce the smallest number k ≥ 2 of topmost stack nodes whose
  union is a contiguous range, repeatedly. Monotone and inverted nodes come out binary and
  left-branching; prime nodes keep their full arity.
* :func:`collapse` – the collapsed canonical form: a monotone (inverted) child of a monotone
  (inverted) node is merged into its parent, so every linear node has maximal arity.
* :func:`count_pets` – #PETs(π): every way to binarise each collapsed linear node of arity k
  (Catalan(k − 1) ways) independently; prime nodes have one way.
* :func:`pet_features` – the methods §6.1 features: PETcount = (#PETs − 1)/(Catalan(n−1) − 1)
  with the special cases n = 1 → 1, ⟨1,2⟩ → 1, ⟨2,1⟩ → 0, and the node-type ratios
  (monotone, inverted, arity 4, arity > 4) over the internal nodes of the canonical PET
  (denominator #tree nodes − n).
* :func:`kendall` and :func:`kendall_scaled` – methods §6.1: Kendall = 1 − discordant/all
  pairs against the identity; KendallScaled_α = (Kendall · R_words)^α.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from math import comb
from typing import Sequence

from ..metrics._caches import lru_memo

MONO, INV, PRIME, LEAF = "mono", "inv", "prime", "leaf"


@dataclass
class PetNode:
    kind: str  # "leaf" | "mono" | "inv" | "prime"
    lo: int  # smallest value covered
    hi: int  # largest value covered
    start: int  # first position covered (0-based)
    end: int  # one past the last position covered
    children: list["PetNode"] = field(default_factory=list)
    pattern: tuple[int, ...] = ()  # the children's order as a permutation of 1..arity

    @property
    def arity(self) -> int:
        return len(self.children)

    @property
    def size(self) -> int:
        return self.end - self.start

    def internal_nodes(self):
        """All internal nodes, pre-order."""
        if self.kind == LEAF:
            return
        yield self
        for c in self.children:
            yield from c.internal_nodes()

    def spans(self) -> set[tuple[int, int]]:
        """Position spans (start, end) of every internal node."""
        return {(n.start, n.end) for n in self.internal_nodes()}

    def bracketed(self) -> str:
        """Readable form, e.g. ``⟨2,4,1,3⟩(2 ⟨2,1⟩(⟨1,2⟩(5 6) 4) 1 3)``."""
        if self.kind == LEAF:
            return str(self.lo)
        pat = "⟨" + ",".join(map(str, self.pattern)) + "⟩"
        return pat + "(" + " ".join(c.bracketed() for c in self.children) + ")"


def check_permutation(perm: Sequence[int]) -> tuple[int, ...]:
    """Validate that ``perm`` is a permutation of 1..n; return it as a tuple."""
    p = tuple(int(v) for v in perm)
    if sorted(p) != list(range(1, len(p) + 1)):
        raise ValueError(f"not a permutation of 1..{len(p)}: {p}")
    return p


def _make_node(children: list[PetNode]) -> PetNode:
    order = sorted(range(len(children)), key=lambda i: children[i].lo)
    pattern = [0] * len(children)
    for rank, i in enumerate(order, start=1):
        pattern[i] = rank
    pat = tuple(pattern)
    if pat == (1, 2):
        kind = MONO
    elif pat == (2, 1):
        kind = INV
    else:
        kind = PRIME
    return PetNode(kind, min(c.lo for c in children), max(c.hi for c in children),
                   children[0].start, children[-1].end, list(children), pat)


def canonical_pet(perm: Sequence[int]) -> PetNode | None:
    """Canonical PET of ``perm`` by shift-reduce (methods §6.1). ``None`` for the empty permutation."""
    p = check_permutation(perm)
    stack: list[PetNode] = []
    for pos, v in enumerate(p):
        stack.append(PetNode(LEAF, v, v, pos, pos + 1))
        while len(stack) >= 2:
            lo, hi, size = stack[-1].lo, stack[-1].hi, stack[-1].size
            reduced = False
            for k in range(2, len(stack) + 1):
                node = stack[-k]
                lo, hi, size = min(lo, node.lo), max(hi, node.hi), size + node.size
                if hi - lo + 1 == size:
                    children = stack[-k:]
                    del stack[-k:]
                    stack.append(_make_node(children))
                    reduced = True
                    break
            if not reduced:
                break
    if not stack:
        return None
    assert len(stack) == 1, "shift-reduce must end with one node for a permutation"
    return stack[0]


def collapse(node: PetNode) -> PetNode:
    """Collapsed canonical PET: same-type linear children are merged into their parent."""
    if node.kind == LEAF:
        return node
    kids: list[PetNode] = []
    for c in node.children:
        cc = collapse(c)
        if node.kind in (MONO, INV) and cc.kind == node.kind:
            kids.extend(cc.children)
        else:
            kids.append(cc)
    if node.kind == MONO:
        pat = tuple(range(1, len(kids) + 1))
    elif node.kind == INV:
        pat = tuple(range(len(kids), 0, -1))
    else:
        pat = node.pattern
    return PetNode(node.kind, node.lo, node.hi, node.start, node.end, kids, pat)


@lru_memo("pet.catalan", 4096)
def catalan(n: int) -> int:
    """Catalan(n) = C(2n, n)/(n + 1): the number of binary bracketings of n + 1 leaves."""
    if n < 0:
        raise ValueError("catalan of a negative number")
    return comb(2 * n, n) // (n + 1)


def count_pets(perm: Sequence[int]) -> int:
    """#PETs(π): product over collapsed linear nodes of Catalan(arity − 1) (methods §6.1).

    1 for the empty permutation and for n = 1 (one tree each).
    """
    root = canonical_pet(perm)
    if root is None:
        return 1
    total = 1
    for node in collapse(root).internal_nodes():
        if node.kind in (MONO, INV):
            total *= catalan(node.arity - 1)
    return total


def pet_count_feature(perm: Sequence[int]) -> float:
    """PETcount = (#PETs(π) − 1)/(Catalan(n − 1) − 1) (methods §6.1).

    Special cases (spec): n = 1 → 1; ⟨1,2⟩ → 1; ⟨2,1⟩ → 0. [A] n = 0 (nothing aligned) → 0,
    like Kendall of an empty permutation.
    """
    p = check_permutation(perm)
    n = len(p)
    if n == 0:
        return 0.0
    if n == 1:
        return 1.0
    if n == 2:
        return 1.0 if p == (1, 2) else 0.0
    return (count_pets(p) - 1) / (catalan(n - 1) - 1)


def node_type_ratios(perm: Sequence[int]) -> dict[str, float]:
    """Fractions of the canonical PET's internal nodes that are monotone, inverted, prime of
    arity 4, and prime of arity > 4 (methods §6.1; denominator #tree nodes − n). All 0 when the
    tree has no internal node (n ≤ 1)."""
    root = canonical_pet(perm)
    counts = {"pet_mono": 0, "pet_inv": 0, "pet_arity4": 0, "pet_arity_gt4": 0}
    nodes = list(root.internal_nodes()) if root is not None else []
    for node in nodes:
        if node.kind == MONO:
            counts["pet_mono"] += 1
        elif node.kind == INV:
            counts["pet_inv"] += 1
        elif node.arity == 4:
            counts["pet_arity4"] += 1
        else:
            counts["pet_arity_gt4"] += 1
    denom = len(nodes)
    return {k: (v / denom if denom else 0.0) for k, v in counts.items()}


def kendall(perm: Sequence[int]) -> float:
    """Kendall = 1 − discordant pairs / all pairs of π against the identity (methods §6.1).

    0 if π is empty (methods §6.1). [A] n = 1 (no pair) → 1: a single aligned word is in order.
    """
    p = check_permutation(perm)
    n = len(p)
    if n == 0:
        return 0.0
    if n == 1:
        return 1.0
    disc = sum(1 for i in range(n) for j in range(i + 1, n) if p[i] > p[j])
    return 1.0 - disc / (n * (n - 1) / 2)


def kendall_scaled(kendall_value: float, ref_aligned_fraction: float, alpha: float) -> float:
    """KendallScaled_α = (Kendall · R_words)^α, R_words = fraction of reference words aligned (methods §6.1)."""
    base = kendall_value * ref_aligned_fraction
    return float(base ** alpha) if base > 0 else 0.0


def pet_features(perm: Sequence[int]) -> dict[str, float]:
    """PETcount and the four node-type ratios of methods §6.1."""
    out = {"pet_count": pet_count_feature(perm)}
    out.update(node_type_ratios(perm))
    return out
