"""The compiled training and ranking loops (numba), on flat arrays.

A *chunk* of observations is stored as nested ranges (CSR):

* position p owns candidates ``pos_start[p] : pos_start[p + 1]``; the first
  is the move the expert chose;
* candidate c owns the entries ``row_start[c] : row_start[c + 1]`` of
  ``row_id`` (feature or move-key ids) and ``row_w`` (their weights): the
  candidate's value is ``sum(row_w * value[row_id])``.

The Urgency model is the case of one entry (the move key, weight 1) per
candidate; the BoardVal model lists the features of the board after the
move.  The belief about every id is a Gaussian kept in two arrays, ``tau``
and ``rho`` (natural parameters; ``rho == 0`` means "never seen", which a
first sighting replaces by the prior).

:func:`train_chunk` is assumed-density filtering: each position's posterior
becomes the prior of the next.  Inside a position it runs exactly the
schedule of :func:`.factors.rank_update` (the reference the tests compare
it with): priors down to the latent values, sweeps over the differences
with the greater-than factor until nothing moves by ``threshold``, then
messages up to the ids, all computed from the same state.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .vw import vw_scalar

#: Returned in ``ranks`` for positions that carry no information (fewer than two candidates).
NO_RANK = 0


@njit(cache=True, inline="always")
def _mix(x):
    # splitmix64 finaliser: an order-independent sum of these hashes identifies a row
    x = (x + np.uint64(0x9E3779B97F4A7C15))
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True, inline="always")
def _count_ids(ids, start, stop, counts, seen):
    """Add one to ``counts`` for each of ``ids[start:stop]``; the ids counted for the first time go to
    ``seen`` (how many is returned)."""
    n = 0
    for e in range(start, stop):
        f = ids[e]
        if counts[f] == 0.0:
            seen[n] = f
            n += 1
        counts[f] += 1.0
    return n


@njit(cache=True)
def build_rows(pos_start, feat_start, feat_id, n_ids, relative, dedupe):
    """Merge each candidate's features into weighted rows.

    ``feat_id[feat_start[c]:feat_start[c+1]]`` lists candidate c's features,
    repeats allowed (a repeat adds 1 to the weight).  ``relative``: each row
    becomes its candidate's features minus the expert's (features shared
    with the expert's board cancel; the expert's own row is empty).
    ``dedupe``: drop candidates whose board equals the expert's or an
    earlier candidate's (indistinguishable to the model; they would only
    add contradictory constraints).

    Returns ``(pos_start, kept, row_start, row_id, row_w, board_size)``:
    ``kept`` indexes the input candidates that remain, ``board_size`` is the
    number of distinct features of each kept candidate's full board.
    """
    n_pos = pos_start.shape[0] - 1
    n_cand = pos_start[n_pos]
    # sizes: a row holds at most its own entries plus the expert's
    bound = 0
    max_cand = 1
    for p in range(n_pos):
        c0 = pos_start[p]
        expert_len = feat_start[c0 + 1] - feat_start[c0]
        max_cand = max(max_cand, pos_start[p + 1] - c0)
        for c in range(c0, pos_start[p + 1]):
            bound += feat_start[c + 1] - feat_start[c] + expert_len
    acc = np.zeros(n_ids, dtype=np.float64)       # this candidate's feature counts
    ref = np.zeros(n_ids, dtype=np.float64)       # the expert's
    touched = np.empty(n_ids, dtype=np.int64)
    ref_ids = np.empty(n_ids, dtype=np.int64)
    hashes = np.empty(max_cand, dtype=np.uint64)
    out_pos = np.empty(n_pos + 1, dtype=np.int64)
    kept = np.empty(n_cand, dtype=np.int64)
    row_start = np.empty(n_cand + 1, dtype=np.int64)
    board_size = np.empty(n_cand, dtype=np.int64)
    row_id = np.empty(bound, dtype=np.int64)
    row_w = np.empty(bound, dtype=np.float64)
    nk = 0
    ne = 0
    row_start[0] = 0
    out_pos[0] = 0
    for p in range(n_pos):
        c0 = pos_start[p]
        c1 = pos_start[p + 1]
        nr = _count_ids(feat_id, feat_start[c0], feat_start[c0 + 1], ref, ref_ids)
        nh = 0
        for c in range(c0, c1):
            nt = _count_ids(feat_id, feat_start[c], feat_start[c + 1], acc, touched)
            size = nt
            for i in range(nr):                    # the expert's features this board lacks
                f = ref_ids[i]
                if acc[f] == 0.0:
                    touched[nt] = f
                    nt += 1
            h = np.uint64(0)                       # order-independent hash of the relative row
            differs = 0
            for i in range(nt):
                f = touched[i]
                d = acc[f] - ref[f]
                if d != 0.0:
                    differs += 1
                    h += _mix(np.uint64(f) * np.uint64(1000003) + np.uint64(np.int64(d * 64.0) & 0xFFFFFFFF))
            drop = False
            if dedupe and c > c0:
                if differs == 0:
                    drop = True
                else:
                    for i in range(nh):
                        if hashes[i] == h:
                            drop = True
                            break
            if not drop:
                if c > c0:
                    hashes[nh] = h
                    nh += 1
                for i in range(nt):
                    f = touched[i]
                    weight = acc[f] - ref[f] if relative else acc[f]
                    if weight != 0.0:
                        row_id[ne] = f
                        row_w[ne] = weight
                        ne += 1
                kept[nk] = c
                board_size[nk] = size
                nk += 1
                row_start[nk] = ne
            for i in range(nt):
                acc[touched[i]] = 0.0
        for i in range(nr):
            ref[ref_ids[i]] = 0.0
        out_pos[p + 1] = nk
    return (out_pos, kept[:nk].copy(), row_start[:nk + 1].copy(), row_id[:ne].copy(), row_w[:ne].copy(),
            board_size[:nk].copy())


@njit(cache=True)
def train_chunk(tau, rho, count, pos_start, row_start, row_id, row_w, prior_scale,
                beta2, prior_variance, threshold, max_sweeps, ranks, sweeps_out):
    """Assumed-density filtering over the positions of a chunk, in order (see the module docstring).

    ``tau``, ``rho`` (float64) and ``count`` (int64, messages received) are
    updated in place.  An id never seen gets the prior N(0, prior_variance /
    prior_scale[p]) at its first position p.  ``ranks[p]`` receives the
    expert's rank among the candidates *before* the update (1 = strictly best;
    ties count against; ``NO_RANK`` when there is nothing to learn),
    ``sweeps_out[p]`` the number of inner sweeps.  Returns the number of
    positions skipped because an update would not have been finite (0 unless
    the inputs themselves are broken).
    """
    n_pos = pos_start.shape[0] - 1
    n_max = 2
    for p in range(n_pos):
        n_max = max(n_max, pos_start[p + 1] - pos_start[p])
    lm = np.empty(n_max)             # latent value messages from the mean factors (moments)
    lv = np.empty(n_max)
    bm = np.empty(n_max)             # candidate values (sum of ids) before the update
    bv = np.empty(n_max)
    t_up = np.zeros(n_max)           # difference factor k -> latent 0 (natural parameters)
    r_up = np.zeros(n_max)
    t_dn = np.zeros(n_max)           # difference factor k -> latent k
    r_dn = np.zeros(n_max)
    prev_mean = np.empty(n_max)
    prev_std = np.empty(n_max)
    dtau = np.zeros(tau.shape[0])
    drho = np.zeros(tau.shape[0])
    touched = np.empty(tau.shape[0], dtype=np.int64)   # full size: never grown inside the loops
    bad = 0
    for p in range(n_pos):
        c0 = pos_start[p]
        n = pos_start[p + 1] - c0
        sweeps_out[p] = 0
        if n < 2:
            ranks[p] = NO_RANK
            continue
        first_rho = prior_scale[p] / prior_variance
        # -- priors down to the latent values
        for j in range(n):
            c = c0 + j
            m = 0.0
            s = 0.0
            for e in range(row_start[c], row_start[c + 1]):
                f = row_id[e]
                a = row_w[e]
                if rho[f] == 0.0:
                    rho[f] = first_rho
                    tau[f] = 0.0
                m += a * tau[f] / rho[f]
                s += a * a / rho[f]
            bm[j] = m
            bv[j] = s
            lm[j] = m
            lv[j] = s + beta2
        rank = 1
        for j in range(1, n):
            if bm[j] >= bm[0]:
                rank += 1
        ranks[p] = rank
        # -- sweeps over the differences d_k = latent_0 - latent_k, d_k > 0
        lat0_t = lm[0] / lv[0]
        lat0_r = 1.0 / lv[0]
        for k in range(1, n):
            t_up[k] = 0.0
            r_up[k] = 0.0
            t_dn[k] = 0.0
            r_dn[k] = 0.0
        sweep = 0
        while sweep < max_sweeps:
            sweep += 1
            delta = 0.0
            for k in range(1, n):
                ra = lat0_r - r_up[k]               # latent 0 -> difference k
                ta = lat0_t - t_up[k]
                mua = ta / ra
                va = 1.0 / ra
                mub = lm[k]                         # latent k -> difference k (its only other factor)
                vb = lv[k]
                md = mua - mub                      # difference k -> d_k
                vd = va + vb
                sd = math.sqrt(vd)
                v, _, one_minus_w = vw_scalar(md / sd)
                pm = md + sd * v                    # moment-matched posterior of d_k
                pv = vd * one_minus_w
                ps = math.sqrt(pv)
                if sweep == 1:
                    delta = math.inf
                else:
                    delta = max(delta, abs(pm - prev_mean[k]), abs(ps - prev_std[k]))
                prev_mean[k] = pm
                prev_std[k] = ps
                rg = 1.0 / pv - 1.0 / vd            # greater-than -> d_k = d_k -> difference k
                tg = pm / pv - md / vd
                if not rg > 0.0:                    # no information (t far above 0): uniform
                    rg = 0.0
                    tg = 0.0
                den = 1.0 + rg * vb                 # difference k -> latent 0: d_k + latent k
                new_r = rg / den
                new_t = (tg + rg * mub) / den
                lat0_r += new_r - r_up[k]
                lat0_t += new_t - t_up[k]
                r_up[k] = new_r
                t_up[k] = new_t
                den = 1.0 + rg * va                 # difference k -> latent k: latent 0 - d_k
                r_dn[k] = rg / den
                t_dn[k] = (rg * mua - tg) / den
            if delta < threshold:
                break
        sweeps_out[p] = sweep
        # -- messages up: latent -> mean factor -> candidate value -> sum factor -> ids
        nt = 0
        for j in range(n):
            if j == 0:
                r_msg = 0.0
                t_msg = 0.0
                for k in range(1, n):
                    r_msg += r_up[k]
                    t_msg += t_up[k]
            else:
                r_msg = r_dn[j]
                t_msg = t_dn[j]
            if r_msg <= 0.0:
                continue
            mu_y = t_msg / r_msg                    # through the mean factor: variance + beta^2
            var_y = 1.0 / r_msg + beta2
            c = c0 + j
            for e in range(row_start[c], row_start[c + 1]):
                f = row_id[e]
                a = row_w[e]
                mu_f = tau[f] / rho[f]
                var_f = 1.0 / rho[f]
                rest = bv[j] - a * a * var_f
                if rest < 0.0:
                    rest = 0.0
                var_msg = (var_y + rest) / (a * a)
                mean_msg = (mu_y - (bm[j] - a * mu_f)) / a
                if dtau[f] == 0.0 and drho[f] == 0.0:
                    touched[nt] = f
                    nt += 1
                drho[f] += 1.0 / var_msg
                dtau[f] += mean_msg / var_msg
        ok = True
        for i in range(nt):
            f = touched[i]
            if not (math.isfinite(dtau[f]) and math.isfinite(drho[f]) and drho[f] >= 0.0):
                ok = False
        if ok:
            for i in range(nt):
                f = touched[i]
                tau[f] += dtau[f]
                rho[f] += drho[f]
                count[f] += 1
        else:
            bad += 1
        for i in range(nt):
            f = touched[i]
            dtau[f] = 0.0
            drho[f] = 0.0
    return bad


@njit(cache=True)
def rank_positions(means, pos_start, row_start, row_id, row_w, ranks):
    """The expert's rank (1 = strictly highest mean) in each position; ties count against.

    ``ranks[p] = 1 + number of other candidates whose mean value is >= the
    expert's`` (``NO_RANK`` for positions with fewer than two candidates).
    With rows relative to the expert's board, shared features cancel exactly,
    so equal boards tie exactly instead of by rounding.
    """
    n_pos = pos_start.shape[0] - 1
    for p in range(n_pos):
        c0 = pos_start[p]
        c1 = pos_start[p + 1]
        if c1 - c0 < 2:
            ranks[p] = NO_RANK
            continue
        expert = 0.0
        for e in range(row_start[c0], row_start[c0 + 1]):
            expert += row_w[e] * means[row_id[e]]
        rank = 1
        for c in range(c0 + 1, c1):
            value = 0.0
            for e in range(row_start[c], row_start[c + 1]):
                value += row_w[e] * means[row_id[e]]
            if value >= expert:
                rank += 1
        ranks[p] = rank
