"""Grid and block dimensions of a kernel launch."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Dim3:
    x: int
    y: int = 1
    z: int = 1

    @property
    def count(self) -> int:
        return self.x * self.y * self.z

    @classmethod
    def of(cls, value) -> "Dim3":
        if isinstance(value, Dim3):
            return value
        if isinstance(value, int):
            return cls(value)
        v = list(value) + [1, 1]
        return cls(int(v[0]), int(v[1]), int(v[2]))

    def __str__(self) -> str:
        return f"({self.x},{self.y},{self.z})"
