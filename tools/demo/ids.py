"""Deterministic ids and jitter for one session, from its seed."""

from __future__ import annotations

import random
from typing import Any

B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


class Gen:
    """Deterministic ids and jitter for one session."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.used: set[str] = set()

    def hex8(self) -> str:
        while True:
            h = f"{self.rng.getrandbits(32):08x}"
            if h not in self.used:
                self.used.add(h)
                return h

    def hexn(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def b62(self, n: int) -> str:
        return "".join(self.rng.choice(B62) for _ in range(n))

    def uuid7(self, ms: int) -> str:
        h = f"{ms:012x}" + "7" + self.hexn(3) + self.rng.choice("89ab") + self.hexn(15)
        return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"

    def uuid4(self) -> str:
        h = self.hexn(12) + "4" + self.hexn(3) + self.rng.choice("89ab") + self.hexn(15)
        return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"

    def sig(self, n: int = 96) -> str:
        alphabet = B62 + "+/"
        body = "".join(self.rng.choice(alphabet) for _ in range(n))
        return "Eq" + body + "=="

    def choice(self, seq: Any) -> Any:
        return self.rng.choice(seq)

    def uniform(self, lo: float, hi: float) -> float:
        return self.rng.uniform(lo, hi)

    def randint(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

