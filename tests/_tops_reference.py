"""A slow, literal Trees of Predictors (Yoon, Zame & van der Schaar, Section III-A/B),
written for the tests from the paper's text, independently of
``treelab.learners.tops``: every candidate predictor (the side's, the node's
and every ancestor's) is refitted from scratch for every candidate split, no
prediction is cached, no sufficient statistic is used, every pair of side
predictors is scored by the loss of the concatenated predictions on the
node's V1 rows.  The conventions it shares with treelab are those the module
docstring of ``treelab.learners.tops`` documents: ``x_f <= t`` goes left,
thresholds ``unique(percentile(node training values, 10..90))`` or 0.5 for a
0/1 feature, a side needs ``min_samples_leaf`` training rows and one V1 row,
ties within 1e-9 relative go to the first candidate (feature, threshold,
left predictor, right predictor; predictors by training node root first, then
learner), nodes numbered breadth first.  The path weights use treelab's
``fit_path_weights`` (tested on its own against an exact solver) on
predictions recomputed here.
"""
import numpy as np

TIE = 1e-9


def first_min(vals):
    vals = np.asarray(vals, float)
    m = vals.min()
    return int(np.flatnonzero(vals <= m + TIE * max(1.0, abs(m)))[0])


def literal_tops(XT, yT, XV1, yV1, XV2, yV2, learners, loss_fn, task, K, msl=1):
    """Returns a list of node dicts (feature, threshold, left, right, learner,
    source, path) and the fitted path weights per terminal node."""
    d = XT.shape[1]
    binary = np.all((XT == 0) | (XT == 1), axis=0)

    def fit(a, rows):
        return learners[a]._fresh()._fit_task(XT[rows], yT[rows], np.ones(rows.sum()), task, K)

    allT = np.ones(XT.shape[0], bool)
    root_losses = [loss_fn(yV1, fit(a, allT)._scores(XV1)) for a in range(len(learners))]
    a0 = first_min(root_losses)
    nodes = [dict(id=0, T=allT, V1=np.ones(XV1.shape[0], bool), V2=np.ones(XV2.shape[0], bool),
                  learner=a0, source=0, path=[0], feature=-1, threshold=np.nan, left=-1,
                  right=-1, depth=0)]
    queue = [0]
    while queue:
        u = queue.pop(0)
        nd = nodes[u]
        Tu, V1u = nd["T"], nd["V1"]
        cur = loss_fn(yV1[V1u], fit(nd["learner"], nodes[nd["source"]]["T"])._scores(XV1[V1u]))
        if Tu.sum() < 2 * msl or V1u.sum() < 2:
            continue
        cands = []
        for f in range(d):
            xt = XT[Tu, f]
            ts = [0.5] if binary[f] else np.unique(np.percentile(xt, np.arange(10, 100, 10)))
            for t in ts:
                TL = Tu & (XT[:, f] <= t)
                TR = Tu & (XT[:, f] > t)
                VL = V1u & (XV1[:, f] <= t)
                VR = V1u & (XV1[:, f] > t)
                if TL.sum() < msl or TR.sum() < msl or VL.sum() < 1 or VR.sum() < 1:
                    continue
                # candidate predictors: every learner on every ancestor's set, then the side's own
                trainsets_L = [nodes[p]["T"] for p in nd["path"]] + [TL]
                trainsets_R = [nodes[p]["T"] for p in nd["path"]] + [TR]
                predsL = [fit(a, s)._scores(XV1[VL]) for s in trainsets_L
                          for a in range(len(learners))]
                predsR = [fit(a, s)._scores(XV1[VR]) for s in trainsets_R
                          for a in range(len(learners))]
                best = None
                idx_v = np.flatnonzero(V1u)
                inL = XV1[idx_v, f] <= t
                for iL, pl in enumerate(predsL):
                    for iR, pr in enumerate(predsR):
                        S = np.empty((idx_v.shape[0], pl.shape[1]))
                        S[inL] = pl
                        S[~inL] = pr
                        J = loss_fn(yV1[idx_v], S)
                        if best is None or J < best[0] - TIE * max(1.0, abs(best[0])):
                            best = (J, iL, iR)
                cands.append((best[0], f, t, best[1], best[2], TL, TR, VL, VR))
        if not cands:
            continue
        j = first_min([c[0] for c in cands])
        J, f, t, iL, iR, TL, TR, VL, VR = cands[j]
        if not J < cur - TIE * max(1.0, abs(cur)):
            continue
        m = len(learners)
        nd.update(feature=f, threshold=t)
        for side, i, Ts, Vs in (("left", iL, TL, VL), ("right", iR, TR, VR)):
            cid = len(nodes)
            k, a = divmod(i, m)
            source = nd["path"][k] if k < len(nd["path"]) else cid
            nodes.append(dict(id=cid, T=Ts, V1=Vs, V2=nd["V2"] & (
                XV2[:, f] <= t if side == "left" else XV2[:, f] > t), learner=a, source=source,
                path=nd["path"] + [cid], feature=-1, threshold=np.nan, left=-1, right=-1,
                depth=nd["depth"] + 1))
            nd[side] = cid
            queue.append(cid)
    return nodes


def literal_weights(nodes, XT, yT, XV2, yV2, learners, task, K, loss, fit_path_weights):
    out = {}
    for nd in nodes:
        if nd["left"] >= 0:
            continue
        S_list = []
        for p in nd["path"]:
            q = nodes[p]
            rows = nodes[q["source"]]["T"]
            mdl = learners[q["learner"]]._fresh()._fit_task(XT[rows], yT[rows],
                                                            np.ones(rows.sum()), task, K)
            S_list.append(mdl._scores(XV2[nd["V2"]]))
        out[nd["id"]] = fit_path_weights(S_list, yV2[nd["V2"]], loss, yV2[nd["V2"]])
    return out
