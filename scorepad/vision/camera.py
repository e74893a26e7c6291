"""The pinhole camera both the synthetic renderers and the board recognisers use, and the
camera recovered from a board's outline.

World coordinates are millimetres in the board's printed frame: ``x`` to the right, ``y``
down the print (towards the bottom edge), ``z`` *into* the board, so a point at height ``h``
above the board has ``z = -h``. This is the OpenCV camera convention, so a camera looking
straight down at an upright board has the identity rotation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

FloatArray = np.ndarray


@dataclass(frozen=True)
class Camera:
    """A pinhole camera: intrinsics ``K``, world-to-camera rotation ``R``, centre ``C``."""

    K: FloatArray
    R: FloatArray
    centre: FloatArray
    size: tuple[int, int]  # image width, height in pixels

    @classmethod
    def look_at(
        cls,
        eye: FloatArray,
        target: FloatArray,
        focal: float,
        size: tuple[int, int],
        roll: float = 0.0,
    ) -> Camera:
        """A camera at ``eye`` looking at ``target``, turned by ``roll`` (radians) about its
        optical axis; principal point at the image centre, square pixels."""
        forward = np.asarray(target, float) - np.asarray(eye, float)
        forward /= np.linalg.norm(forward)
        helper = np.array([0.0, -1.0, 0.0]) if abs(forward[1]) < 0.9 else np.array([1.0, 0, 0])
        right = np.cross(helper, forward)
        right /= np.linalg.norm(right)
        down = np.cross(forward, right)
        c, s = math.cos(roll), math.sin(roll)
        right, down = c * right + s * down, -s * right + c * down
        R = np.stack([right, down, forward])
        K = np.array([[focal, 0, size[0] / 2], [0, focal, size[1] / 2], [0, 0, 1.0]])
        return cls(K, R, np.asarray(eye, float), size)

    def project(self, points: FloatArray) -> FloatArray:
        """Image pixels of world points (N x 3)."""
        cam = (np.asarray(points, float) - self.centre) @ self.R.T
        uvw = cam @ self.K.T
        return np.asarray(uvw[:, :2] / uvw[:, 2:3], float)

    def plane(self, height: float = 0.0) -> FloatArray:
        """Homography from board millimetres ``(x, y, 1)`` at ``height`` to image pixels."""
        t = -self.R @ self.centre
        r1, r2, r3 = self.R[:, 0], self.R[:, 1], self.R[:, 2]
        return np.asarray(self.K @ np.column_stack([r1, r2, -height * r3 + t]), float)

    @property
    def height(self) -> float:
        """Height of the lens above the board plane (mm)."""
        return float(-self.centre[2])

    @property
    def nadir(self) -> FloatArray:
        """The board point straight below the lens (mm)."""
        return self.centre[:2].copy()

    @property
    def tilt(self) -> float:
        """Angle between the optical axis and the board's normal (degrees)."""
        return math.degrees(math.acos(min(1.0, abs(float(self.R[2, 2])))))


def apply(h: FloatArray, points: FloatArray) -> FloatArray:
    """A homography applied to N x 2 points."""
    p = np.asarray(points, float).reshape(-1, 2)
    q = np.column_stack([p, np.ones(len(p))]) @ np.asarray(h).T
    return np.asarray(q[:, :2] / q[:, 2:3], float)


# --- the camera from a board's outline -----------------------------------------------------


def default_focal(size: tuple[int, int]) -> float:
    """A phone's main camera: about 26 mm equivalent, i.e. 0.75 of the long side."""
    return 0.75 * max(size)


def estimate_focal(h: FloatArray, size: tuple[int, int], aspect_known: bool) -> float | None:
    """The focal length (pixels) implied by a plane's homography, principal point at the
    image centre (Zhang's constraints: the plane's axes are orthogonal, and of equal length
    when ``aspect_known``). None when the view is too close to frontal to tell."""
    shift = np.array([[1, 0, -size[0] / 2], [0, 1, -size[1] / 2], [0, 0, 1.0]])
    m = shift @ h
    m = m / np.linalg.norm(m[:, :2])
    a1, b1, c1 = m[:, 0]
    a2, b2, c2 = m[:, 1]
    # Each constraint reads A * w + B = 0 with w = 1 / f^2.
    rows = [(a1 * a2 + b1 * b2, c1 * c2)]
    if aspect_known:
        rows.append((a1 * a1 + b1 * b1 - a2 * a2 - b2 * b2, c1 * c1 - c2 * c2))
    a = np.array([r[0] for r in rows])
    b = np.array([r[1] for r in rows])
    scale = max(size)
    # In units of the long side the perspective terms are small: demand a clear signal.
    if float(np.abs(b).max()) * scale**2 < 0.02:
        return None
    w = -float(a @ b) / float(a @ a)
    if w <= 0:
        return None
    f = 1 / math.sqrt(w)
    if not 0.4 * scale < f < 2.5 * scale:
        return None
    return f


def pose(h: FloatArray, K: FloatArray, size: tuple[int, int]) -> Camera:
    """The camera whose board plane (z = 0) maps to the image by ``h`` (board mm → px)."""
    m = np.linalg.inv(K) @ h
    scale = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    if m[2, 2] * scale < 0:
        scale = -scale  # the board lies in front of the lens
    r1, r2, t = m[:, 0] * scale, m[:, 1] * scale, m[:, 2] * scale
    r3 = np.cross(r1, r2)
    u, _, vt = np.linalg.svd(np.column_stack([r1, r2, r3]))
    R = u @ vt
    if np.linalg.det(R) < 0:
        R = u @ np.diag([1, 1, -1]) @ vt
    centre = -R.T @ t
    return Camera(K.copy(), R, centre, size)


def intrinsics(focal: float, size: tuple[int, int]) -> FloatArray:
    return np.array([[focal, 0, size[0] / 2], [0, focal, size[1] / 2], [0, 0, 1.0]])


def aspect_of(quad: FloatArray, focal: float, size: tuple[int, int]) -> float:
    """Width / height (first edge over second) of the rectangle whose corners the photo
    shows as ``quad`` (clockwise, the first edge first), seen through a camera of ``focal``."""
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    h = cv2.getPerspectiveTransform(unit, quad.astype(np.float32))
    m = np.linalg.inv(intrinsics(focal, size)) @ h
    return float(np.linalg.norm(m[:, 0]) / np.linalg.norm(m[:, 1]))


def fourth_corners(
    board: FloatArray, seen: FloatArray, missing: int, focal: float, size: tuple[int, int]
) -> list[FloatArray]:
    """Where the photo shows corner ``missing`` of a flat board whose other three corners
    it shows at ``seen`` (the four ``board`` corners in millimetres and ``seen`` in pixels,
    in the same order; ``seen[missing]`` is not used), through a camera of ``focal``
    (principal point at the centre): the three corners and the board's size fix the
    camera's pose up to the few solutions of the perspective-three-point problem, one
    fourth corner each (those in front of the lens)."""
    keep = [k for k in range(4) if k != missing]
    world = np.column_stack([board, np.zeros(4)]).astype(np.float64)
    k = intrinsics(focal, size)
    try:
        _, rotations, shifts = cv2.solveP3P(
            world[keep], np.asarray(seen, np.float64)[keep], k, None, flags=cv2.SOLVEPNP_P3P
        )
    except cv2.error:  # degenerate corners (not three points of a board in view)
        return []
    corners = []
    for rotation, shift in zip(rotations, shifts, strict=True):
        r, _ = cv2.Rodrigues(rotation)
        cam = r @ world[missing] + shift.ravel()
        if cam[2] > 0:
            p = k @ cam
            corners.append(p[:2] / p[2])
    return corners
