"""3x3 stride-1 convolution by Winograd's minimal filtering F(m x m, 3x3).

Each m x m block of outputs is computed from an (m+2) x (m+2) input patch with
(m+2)^2 multiplications per (input, output) channel pair instead of 9 m^2:

    Y = Aᵀ [ (G g Gᵀ) ⊙ (Bᵀ d B) ] A

Summed over input channels, the element-wise product becomes (m+2)^2
independent matrix products, one per position ξ of the transformed tile:

    M[ξ] = V[ξ] @ U[ξ],   V[ξ]: (tiles, C),  U[ξ]: (C, O)

so BLAS still does the heavy lifting.  F(4x4, 3x3) needs 4x fewer flops than
im2col (F(2x2, 3x3): 2.25x) and its V is 2.25x the input, where im2col's
matrix is 9x.  Its float32 error is about 1e-6 relative (direct: 1e-7).  The
backward pass differentiates the same linear maps (their adjoints):

    dM = A dY Aᵀ,  dU[ξ] = V[ξ]ᵀ dM[ξ],  dV[ξ] = dM[ξ] U[ξ]ᵀ,
    dg = Gᵀ dU G,  dd = B dV Bᵀ (overlapping patches summed).

Arrays are channels-last (NHWC); the transforms are numba loops over tiles
whose innermost loops run over contiguous channels, each with two or three
operands: LLVM vectorises those (a loop touching all planes at once stayed
scalar, as it cannot prove that many arrays do not overlap).
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import numpy as np
from numba import njit

from . import workspace
from .threads import split_images


@dataclass(frozen=True, eq=False)  # identity hash: used as a dict key
class Tiling:
    """The matrices of F(m x m, 3x3) (Lavin & Gray 2016)."""

    m: int
    bt: np.ndarray  # (alpha, alpha)
    g: np.ndarray   # (alpha, 3)
    at: np.ndarray  # (m, alpha)

    @property
    def alpha(self) -> int:
        return self.m + 2


F2 = Tiling(2,
            np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], float),
            np.array([[1, 0, 0], [.5, .5, .5], [.5, -.5, .5], [0, 0, 1]]),
            np.array([[1, 1, 1, 0], [0, 1, -1, -1]], float))
F4 = Tiling(4,
            np.array([[4, 0, -5, 0, 1, 0], [0, -4, -4, 1, 1, 0], [0, 4, -4, -1, 1, 0],
                      [0, -2, -1, 2, 1, 0], [0, 2, -1, -2, 1, 0], [0, 4, 0, -5, 0, 1]], float),
            np.array([[1 / 4, 0, 0], [-1 / 6, -1 / 6, -1 / 6], [-1 / 6, 1 / 6, -1 / 6],
                      [1 / 24, 1 / 12, 1 / 6], [1 / 24, -1 / 12, 1 / 6], [0, 0, 1]]),
            np.array([[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]], float))


def choose_tiling(out_h: int, out_w: int) -> Tiling:
    """F(4x4) unless the output is so small that 4x4 tiles would be mostly padding."""
    return F4 if min(out_h, out_w) >= 4 else F2


# ---------------------------------------------------------------- kernels
# Each transform is a sandwich L · tile · Rᵀ of one tile's (rows, columns, channels) block, read from and
# written to either an image (NHWC, clipped at its edges) or the tile's planes (plane = alpha*row + column).
# The helpers are inlined into the four kernels; zero matrix entries are skipped.

@njit(cache=True, nogil=True, inline="always")
def _product(mat, src, dst, right, i0, i1, j0, j1):
    """dst[i, j, :] for i0 <= i < i1, j0 <= j < j1 of dst = mat src (Σ_a mat[i, a] src[a, j, :]), or with
    ``right`` of dst = src matᵀ (Σ_a src[i, a, :] mat[j, a])."""
    inner, channels = src.shape[1] if right else src.shape[0], src.shape[2]
    for i in range(i0, i1):
        for j in range(j0, j1):
            for c in range(channels):
                dst[i, j, c] = 0
            for a in range(inner):
                k = mat[j, a] if right else mat[i, a]
                if k != 0:
                    if right:
                        for c in range(channels):
                            dst[i, j, c] += k * src[i, a, c]
                    else:
                        for c in range(channels):
                            dst[i, j, c] += k * src[a, j, c]


@njit(cache=True, nogil=True, inline="always")
def _planes(planes, t, tile, to_planes):
    """Tile ``t``'s planes into ``tile`` (tile[a, b, :] = planes[alpha*a + b, t, :]), or the other way."""
    alpha, channels = tile.shape[0], tile.shape[2]
    for a in range(alpha):
        for b in range(alpha):
            if to_planes:
                for c in range(channels):
                    planes[alpha * a + b, t, c] = tile[a, b, c]
            else:
                for c in range(channels):
                    tile[a, b, c] = planes[alpha * a + b, t, c]


@njit(cache=True, nogil=True, inline="always")
def _tile_at(t, tiles_h, tiles_w):
    """(image, tile row, tile column) of tile ``t``: tiles are numbered image by image, row by row."""
    n, rest = divmod(t, tiles_h * tiles_w)
    ty, tx = divmod(rest, tiles_w)
    return n, ty, tx


@njit(cache=True, nogil=True, inline="always")
def _read_patch(x, n, h0, w0, patch):
    """patch = x[n, h0:h0 + rows, w0:w0 + columns], zeros outside the image."""
    height, width = x.shape[1], x.shape[2]
    for a in range(patch.shape[0]):
        for b in range(patch.shape[1]):
            if 0 <= h0 + a < height and 0 <= w0 + b < width:
                for c in range(patch.shape[2]):
                    patch[a, b, c] = x[n, h0 + a, w0 + b, c]
            else:
                for c in range(patch.shape[2]):
                    patch[a, b, c] = 0


@njit(cache=True, nogil=True)
def _input_transform(x, bt, m, pad_h, pad_w, tiles_h, tiles_w, v, start, stop):
    """v[alpha*i + j, tile, c] = (Bᵀ d B)[i, j] for the patch d of every tile (zeros outside the image)."""
    alpha, channels = bt.shape[0], x.shape[3]
    d = np.empty((alpha, alpha, channels), dtype=x.dtype)
    r = np.empty((alpha, alpha, channels), dtype=x.dtype)
    for t in range(start * tiles_h * tiles_w, stop * tiles_h * tiles_w):
        n, ty, tx = _tile_at(t, tiles_h, tiles_w)
        _read_patch(x, n, m * ty - pad_h, m * tx - pad_w, d)
        _product(bt, d, r, False, 0, alpha, 0, alpha)  # r = Bᵀ d
        _product(bt, r, d, True, 0, alpha, 0, alpha)  # d = r B
        _planes(v, t, d, True)


@njit(cache=True, nogil=True)
def _input_transform_adjoint(dv, bt, m, pad_h, pad_w, tiles_h, tiles_w, dx, start, stop):
    """dx[patch of tile] += B dV[tile] Bᵀ; neighbouring patches overlap, so contributions add up."""
    alpha = bt.shape[0]
    n_images, height, width, channels = dx.shape
    dx[start:stop] = 0
    b_mat = np.ascontiguousarray(bt.T)
    g = np.empty((alpha, alpha, channels), dtype=dx.dtype)
    e = np.empty((alpha, alpha, channels), dtype=dx.dtype)
    for t in range(start * tiles_h * tiles_w, stop * tiles_h * tiles_w):
        n, ty, tx = _tile_at(t, tiles_h, tiles_w)
        h0 = m * ty - pad_h
        w0 = m * tx - pad_w
        a0, a1 = max(0, -h0), min(alpha, height - h0)  # the patch's rows and columns inside the image
        b0, b1 = max(0, -w0), min(alpha, width - w0)
        _planes(dv, t, g, False)
        _product(b_mat, g, e, True, 0, alpha, b0, b1)  # e = dV Bᵀ
        _product(b_mat, e, g, False, a0, a1, b0, b1)  # g = B e
        for a in range(a0, a1):
            for b in range(b0, b1):
                for c in range(channels):
                    dx[n, h0 + a, w0 + b, c] += g[a, b, c]


@njit(cache=True, nogil=True)
def _output_transform(mm, at, bias, skip, relu, tiles_h, tiles_w, out, start, stop):
    """out[m x m block of tile] = Aᵀ M[tile] A + bias [+ skip] [then ReLU], clipped at the edges.

    ``skip`` (NHWC like ``out``, or an empty array) and ``relu`` fuse a residual
    block's ending into the same pass, for inference.
    """
    m, alpha = at.shape
    n_images, out_h, out_w, channels = out.shape
    has_skip = skip.shape[0] > 0
    g = np.empty((alpha, alpha, channels), dtype=out.dtype)
    s = np.empty((m, alpha, channels), dtype=out.dtype)
    y = np.empty((m, m, channels), dtype=out.dtype)
    for t in range(start * tiles_h * tiles_w, stop * tiles_h * tiles_w):
        n, ty, tx = _tile_at(t, tiles_h, tiles_w)
        rows, columns = min(m, out_h - m * ty), min(m, out_w - m * tx)  # clipped at the edges
        _planes(mm, t, g, False)
        _product(at, g, s, False, 0, rows, 0, alpha)  # s = Aᵀ M
        _product(at, s, y, True, 0, rows, 0, columns)  # y = s A
        for i in range(rows):
            h = m * ty + i
            for j in range(columns):
                w = m * tx + j
                for o in range(channels):
                    y[i, j, o] += bias[o]
                if has_skip:
                    for o in range(channels):
                        y[i, j, o] += skip[n, h, w, o]
                if relu:
                    for o in range(channels):
                        out[n, h, w, o] = max(y[i, j, o], 0)
                else:
                    for o in range(channels):
                        out[n, h, w, o] = y[i, j, o]


@njit(cache=True, nogil=True)
def _output_transform_adjoint(dy, at, tiles_h, tiles_w, dm, start, stop):
    """dM[tile] = A dY[m x m block] Aᵀ (zeros where the block runs past the edge)."""
    m, alpha = at.shape
    channels = dy.shape[3]
    a_mat = np.ascontiguousarray(at.T)
    g = np.empty((m, m, channels), dtype=dy.dtype)
    e = np.empty((m, alpha, channels), dtype=dy.dtype)
    f = np.empty((alpha, alpha, channels), dtype=dy.dtype)
    for t in range(start * tiles_h * tiles_w, stop * tiles_h * tiles_w):
        n, ty, tx = _tile_at(t, tiles_h, tiles_w)
        _read_patch(dy, n, m * ty, m * tx, g)
        _product(a_mat, g, e, True, 0, m, 0, alpha)  # e = g A
        _product(a_mat, e, f, False, 0, alpha, 0, alpha)  # f = A e
        _planes(dm, t, f, True)


# ------------------------------------------- inference kernels, F(4x4, 3x3) only
# The matrices' constants written out (k = [2, 4, 5, 8] in the array's type, so float32 stays float32) and
# every output row its own loop over channels with a few operands: LLVM vectorises each, and no loop
# multiplies by a zero or reads and writes its output several times.  Half the generic transforms' time.
# Tiles are tile-major, (tiles, 36, channels): one tile's transform reads and writes one contiguous block.

@njit(cache=True, nogil=True, inline="always")
def _bt_f4(src, dst, k, i0, step_in, o0, step_out, channels):
    """dst rows o0 + step_out*r (r < 6) = Bᵀ of src rows i0 + step_in*a (a < 6), F(4x4)'s Bᵀ."""
    two, four, five = k[0], k[1], k[2]
    s0, s1, s2, s3, s4, s5 = i0, i0 + step_in, i0 + 2 * step_in, i0 + 3 * step_in, i0 + 4 * step_in, i0 + 5 * step_in
    for c in range(channels):
        dst[o0, c] = four * src[s0, c] - five * src[s2, c] + src[s4, c]
    for c in range(channels):
        dst[o0 + step_out, c] = src[s3, c] + src[s4, c] - four * (src[s1, c] + src[s2, c])
    for c in range(channels):
        dst[o0 + 2 * step_out, c] = src[s4, c] - src[s3, c] + four * (src[s1, c] - src[s2, c])
    for c in range(channels):
        dst[o0 + 3 * step_out, c] = src[s4, c] - src[s2, c] + two * (src[s3, c] - src[s1, c])
    for c in range(channels):
        dst[o0 + 4 * step_out, c] = src[s4, c] - src[s2, c] + two * (src[s1, c] - src[s3, c])
    for c in range(channels):
        dst[o0 + 5 * step_out, c] = four * src[s1, c] - five * src[s3, c] + src[s5, c]


@njit(cache=True, nogil=True, inline="always")
def _at_f4(src, dst, k, i0, step_in, o0, step_out, channels):
    """dst rows o0 + step_out*r (r < 4) = Aᵀ of src rows i0 + step_in*a (a < 6), F(4x4)'s Aᵀ."""
    two, four, eight = k[0], k[1], k[3]
    s0, s1, s2, s3, s4, s5 = i0, i0 + step_in, i0 + 2 * step_in, i0 + 3 * step_in, i0 + 4 * step_in, i0 + 5 * step_in
    for c in range(channels):
        dst[o0, c] = src[s0, c] + src[s1, c] + src[s2, c] + src[s3, c] + src[s4, c]
    for c in range(channels):
        dst[o0 + step_out, c] = src[s1, c] - src[s2, c] + two * (src[s3, c] - src[s4, c])
    for c in range(channels):
        dst[o0 + 2 * step_out, c] = src[s1, c] + src[s2, c] + four * (src[s3, c] + src[s4, c])
    for c in range(channels):
        dst[o0 + 3 * step_out, c] = src[s1, c] - src[s2, c] + eight * (src[s3, c] - src[s4, c]) + src[s5, c]


@njit(cache=True, nogil=True)
def _input_transform_f4(x, k, pad_h, pad_w, tiles_h, tiles_w, v):
    """v[t, 6*i + j, c] = (Bᵀ d B)[i, j] for the 6x6 patch d of tile t (zeros outside the image)."""
    n_images, height, width, channels = x.shape
    d = np.empty((36, channels), dtype=x.dtype)  # the patch, row 6*a + b
    r = np.empty((36, channels), dtype=x.dtype)  # Bᵀ d, row 6*i + b
    t = 0
    for n in range(n_images):
        for ty in range(tiles_h):
            for tx in range(tiles_w):
                h0 = 4 * ty - pad_h
                w0 = 4 * tx - pad_w
                for a in range(6):
                    for b in range(6):
                        if 0 <= h0 + a < height and 0 <= w0 + b < width:
                            d[6 * a + b, :] = x[n, h0 + a, w0 + b, :]
                        else:
                            d[6 * a + b, :] = 0
                for b in range(6):
                    _bt_f4(d, r, k, b, 6, b, 6, channels)
                tile = v[t]
                for i in range(6):
                    _bt_f4(r, tile, k, 6 * i, 1, 6 * i, 1, channels)
                t += 1


@njit(cache=True, nogil=True)
def _output_transform_f4(mm, k, bias, skip, relu, tiles_h, tiles_w, out):
    """out[4x4 block of tile t] = Aᵀ M[t] A + bias [+ skip] [then ReLU], clipped at the edges; M tile-major."""
    n_images, out_h, out_w, channels = out.shape
    has_skip = skip.shape[0] > 0
    s = np.empty((24, channels), dtype=out.dtype)  # Aᵀ M, row 6*i + b
    y = np.empty((16, channels), dtype=out.dtype)  # Aᵀ M A, row 4*i + j
    t = 0
    for n in range(n_images):
        for ty in range(tiles_h):
            for tx in range(tiles_w):
                tile = mm[t]
                for b in range(6):
                    _at_f4(tile, s, k, b, 6, b, 6, channels)
                for i in range(4):
                    _at_f4(s, y, k, 6 * i, 1, 4 * i, 1, channels)
                for i in range(4):
                    h = 4 * ty + i
                    if h >= out_h:
                        continue
                    for j in range(4):
                        w = 4 * tx + j
                        if w >= out_w:
                            continue
                        row = 4 * i + j
                        if has_skip:
                            for o in range(channels):
                                y[row, o] += bias[o] + skip[n, h, w, o]
                        else:
                            for o in range(channels):
                                y[row, o] += bias[o]
                        if relu:
                            for o in range(channels):
                                out[n, h, w, o] = max(y[row, o], 0)
                        else:
                            for o in range(channels):
                                out[n, h, w, o] = y[row, o]
                t += 1


# ----------------------------------------------------------------- drivers

def transform_weights(weight: np.ndarray, tiling: Tiling) -> np.ndarray:
    """(O, C, 3, 3) kernels -> U: (alpha², C, O), U[alpha*i + j] = (G g Gᵀ)[i, j] (computed in float64)."""
    u = np.einsum("ik,ockl,jl->ijco", tiling.g, weight.astype(np.float64), tiling.g, optimize=True)
    return np.ascontiguousarray(u.reshape(tiling.alpha ** 2, weight.shape[1], weight.shape[0]), dtype=weight.dtype)


def weight_gradient(grad_u: np.ndarray, tiling: Tiling, dtype) -> np.ndarray:
    """Adjoint of :func:`transform_weights`: (alpha², C, O) -> (O, C, 3, 3)."""
    _, in_channels, out_channels = grad_u.shape
    du = grad_u.reshape(tiling.alpha, tiling.alpha, in_channels, out_channels).astype(np.float64)
    return np.ascontiguousarray(np.einsum("ik,ijco,jl->ockl", tiling.g, du, tiling.g, optimize=True), dtype=dtype)


def tiles(tiling: Tiling, out_h: int, out_w: int) -> tuple[int, int]:
    return math.ceil(out_h / tiling.m), math.ceil(out_w / tiling.m)


def planes(count: int, n_tiles: int, channels: int, dtype) -> np.ndarray:
    """A C-contiguous (count, n_tiles + spare, channels) array whose planes do not start 4 KiB apart.

    The transforms touch every plane for every tile.  With C=64 float32 a
    plane is a whole number of 4 KiB pages, so the addresses of one tile fall
    into the same L1 cache set and evict each other (measured: the transform
    ran 5x slower).  A few spare rows per plane stagger them.  The kernels take
    the whole array; BLAS gets the ``[:, :n_tiles]`` view.
    """
    row_bytes = channels * np.dtype(dtype).itemsize
    extra = 0
    while not 256 <= ((n_tiles + extra) * row_bytes) % 4096 <= 3840 and extra < 64:
        extra += 1
    return workspace.empty((count, n_tiles + extra, channels), dtype)


def _whole(view: np.ndarray) -> np.ndarray:
    """The contiguous buffer behind a ``planes(...)[:, :n]`` view."""
    return view if view.flags.c_contiguous else view.base


class Plan:
    """Shapes and matrices of one convolution's transforms (cheap to build per call)."""

    def __init__(self, input_shape: tuple[int, int, int, int], padding: tuple[int, int],
                 out_size: tuple[int, int], dtype) -> None:
        self.n, _, _, self.in_channels = input_shape
        self.input_shape = input_shape
        self.padding, self.out_size = padding, out_size
        self.tiling = choose_tiling(*out_size)
        self.tiles_h, self.tiles_w = tiles(self.tiling, *out_size)
        self.n_tiles = self.n * self.tiles_h * self.tiles_w
        self.bt = self.tiling.bt.astype(dtype)
        self.at = self.tiling.at.astype(dtype)
        self.dtype = dtype

    def input_transform(self, x_nhwc: np.ndarray) -> np.ndarray:
        v = planes(self.tiling.alpha ** 2, self.n_tiles, self.in_channels, self.dtype)
        split_images(_input_transform, self.n, v.size, x_nhwc, self.bt, self.tiling.m, self.padding[0],
                     self.padding[1], self.tiles_h, self.tiles_w, v)
        return v[:, :self.n_tiles]

    def products(self, v: np.ndarray, u: np.ndarray) -> np.ndarray:
        m = planes(u.shape[0], self.n_tiles, u.shape[2], self.dtype)[:, :self.n_tiles]
        return np.matmul(v, u, out=m)

    def output_transform(self, m: np.ndarray, bias: np.ndarray | None, relu: bool = False,
                         skip: np.ndarray | None = None) -> np.ndarray:
        channels = m.shape[2]
        out = np.empty((self.n, *self.out_size, channels), dtype=self.dtype)
        split_images(_output_transform, self.n, m.size, _whole(m), self.at,
                     np.zeros(channels, self.dtype) if bias is None else bias,
                     np.empty((0, 1, 1, 1), self.dtype) if skip is None else skip, relu,
                     self.tiles_h, self.tiles_w, out)
        return out

    def backward(self, grad_nhwc: np.ndarray, v: np.ndarray, u: np.ndarray,
                 need_input: bool) -> tuple[np.ndarray | None, np.ndarray]:
        """(d input NHWC or None, d U) from the output gradient."""
        dm = planes(u.shape[0], self.n_tiles, grad_nhwc.shape[3], self.dtype)
        split_images(_output_transform_adjoint, self.n, dm.size, grad_nhwc, self.at, self.tiles_h, self.tiles_w, dm)
        dm = dm[:, :self.n_tiles]
        grad_u = np.matmul(v.transpose(0, 2, 1), dm)
        grad_x = None
        if need_input:
            dv = planes(u.shape[0], self.n_tiles, self.in_channels, self.dtype)
            np.matmul(dm, u.transpose(0, 2, 1), out=dv[:, :self.n_tiles])
            grad_x = np.empty(self.input_shape, dtype=self.dtype)
            split_images(_input_transform_adjoint, self.n, dv.size, dv, self.bt, self.tiling.m, self.padding[0],
                         self.padding[1], self.tiles_h, self.tiles_w, grad_x)
        return grad_x, grad_u


def inference_forward(x_nhwc: np.ndarray, weights: dict, bias: np.ndarray, padding: tuple[int, int],
                      out_size: tuple[int, int], relu: bool, skip: np.ndarray | None = None) -> np.ndarray:
    """Forward with the epilogue fused (bias, residual add, ReLU); NHWC in and out, no graph.

    ``weights`` maps each :class:`Tiling` to its transformed kernels (see :func:`transform_weights`).
    """
    plan = Plan(x_nhwc.shape, padding, out_size, x_nhwc.dtype)
    m = plan.products(plan.input_transform(x_nhwc), weights[plan.tiling])
    return plan.output_transform(m, bias, relu, skip)


_scratch = threading.local()  # per thread: two plans may run at once, each in its own thread
MAX_SCRATCH_SHAPES = 8


def _scratch_array(role: str, shape: tuple[int, ...], dtype) -> np.ndarray:
    """A reusable uninitialised array for one role (input or products), per thread and shape: the transforms
    overwrite it whole on each call, so every convolution of a plan shares it."""
    arrays = getattr(_scratch, "arrays", None)
    if arrays is None:
        arrays = _scratch.arrays = {}
    key = (role, shape, np.dtype(dtype).str)
    array = arrays.get(key)
    if array is None:
        if len(arrays) >= MAX_SCRATCH_SHAPES:  # batch sizes come and go: keep the newest few
            arrays.pop(next(iter(arrays)))
        array = arrays[key] = np.empty(shape, dtype)
    return array


class InferenceConv:
    """A 3x3 stride-1 convolution for inference by F(4x4, 3x3), epilogue fused (bias, residual add, ReLU).

    The kernels are transformed once, at construction; each call is three steps (the input transform, one
    batched product over the 36 tile positions, the output transform) on scratch arrays reused between
    calls, so a call allocates only its output.  NHWC in and out.
    """

    def __init__(self, weight: np.ndarray, bias: np.ndarray, padding: tuple[int, int]) -> None:
        self.u = transform_weights(weight, F4)                 # (36, C, O)
        self.bias = np.ascontiguousarray(bias, dtype=weight.dtype)
        self.padding = padding
        self.constants = np.array([2, 4, 5, 8], dtype=weight.dtype)
        self.no_skip = np.empty((0, 1, 1, 1), dtype=weight.dtype)

    def __call__(self, x_nhwc: np.ndarray, out_size: tuple[int, int], relu: bool,
                 skip: np.ndarray | None = None) -> np.ndarray:
        n, dtype = x_nhwc.shape[0], x_nhwc.dtype
        tiles_h, tiles_w = tiles(F4, *out_size)
        n_tiles = n * tiles_h * tiles_w
        positions, in_channels, out_channels = self.u.shape
        v = _scratch_array("v", (n_tiles, positions, in_channels), dtype)
        m = _scratch_array("m", (n_tiles, positions, out_channels), dtype)
        _input_transform_f4(x_nhwc, self.constants, self.padding[0], self.padding[1], tiles_h, tiles_w, v)
        np.matmul(v.transpose(1, 0, 2), self.u, out=m.transpose(1, 0, 2))
        out = np.empty((n, *out_size, out_channels), dtype=dtype)
        _output_transform_f4(m, self.constants, self.bias, self.no_skip if skip is None else skip, relu,
                             tiles_h, tiles_w, out)
        return out
