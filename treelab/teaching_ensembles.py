"""The course's ensemble lessons as small functions (slides, section 6.7).

* :func:`majority_vote_error` -- "Why does it work?": 25 independent base
  classifiers of error eps = 0.35 make a wrong majority vote with probability
  sum_{i=13}^{25} C(25, i) eps^i (1 - eps)^(25 - i) = 0.06;
  :func:`majority_vote_curve` / :func:`plot_majority_vote_curve` against the
  number of classifiers.
* :func:`bootstrap_rounds_table` -- the slides' "Bagging" table: rounds of n
  row numbers drawn with replacement, each row with probability 1/n
  (:data:`SLIDES_BAGGING_ROUNDS` are the slides' own three rounds), with each
  round's out-of-bag rows.
* :func:`adaboost_rounds_table` -- AdaBoost round by round: tuple weights,
  error(M_i) = sum_j w_j err(X_j), classifier weight log((1 - error)/error)
  (plus log(K - 1) for K > 2 classes, SAMME), and with weighted resampling the
  tuples drawn; :func:`adaboost_example` is a ten-point data set (Li Hang,
  *Statistical Learning Methods*, example 8.1) whose rounds have errors 0.3,
  0.2143, 0.1818.
* :func:`oob_error_curve` -- out-of-bag error against the number of members of
  any fitted ensemble exposing ``estimators_`` and ``estimators_samples_``
  (and ``estimators_features_`` when members see column subsets).
"""
from __future__ import annotations

import math
import numbers

import numpy as np
import pandas as pd

from ._params import check_int, check_real

__all__ = [
    "majority_vote_error", "majority_vote_curve", "plot_majority_vote_curve",
    "SLIDES_BAGGING_ROUNDS", "bootstrap_rounds_table", "adaboost_example",
    "adaboost_rounds_table", "oob_error_curve", "plot_oob_error_curve", "ensemble_lessons",
]

#: The slides' bagging table: three bootstrap rounds of the rows 1..10.
SLIDES_BAGGING_ROUNDS = np.array([[7, 8, 10, 8, 2, 5, 10, 10, 5, 9],
                                  [1, 4, 9, 1, 2, 3, 2, 7, 3, 2],
                                  [1, 8, 5, 10, 5, 5, 9, 6, 3, 7]])


def majority_vote_error(n_classifiers=25, eps=0.35):
    """P(a majority of ``n_classifiers`` independent classifiers, each wrong with
    probability ``eps``, is wrong) = sum_{i > n/2} C(n, i) eps^i (1 - eps)^(n - i)
    (slides: n = 25, eps = 0.35 gives 0.06).  With an even n a tie is broken by a
    fair coin (half of P(i = n/2) is added)."""
    n = check_int("n_classifiers", n_classifiers)
    eps = check_real("eps", eps, 0, 1)
    total = 0.0
    for i in range(n // 2 + 1, n + 1):
        total += math.comb(n, i) * eps ** i * (1.0 - eps) ** (n - i)
    if n % 2 == 0:
        total += 0.5 * math.comb(n, n // 2) * eps ** (n // 2) * (1.0 - eps) ** (n // 2)
    return total


def majority_vote_curve(eps=0.35, max_classifiers=51, odd_only=True):
    """Ensemble error against the number of classifiers: a DataFrame with columns
    ``n_classifiers`` and ``error`` (odd counts only by default, as in the slides'
    25 -- no ties)."""
    eps = check_real("eps", eps, 0, 1)
    m = check_int("max_classifiers", max_classifiers)
    ns = range(1, m + 1, 2) if odd_only else range(1, m + 1)
    return pd.DataFrame({"n_classifiers": list(ns),
                         "error": [majority_vote_error(k, eps) for k in ns]})


def plot_majority_vote_curve(path, eps=(0.35, 0.45, 0.55), max_classifiers=51):
    """PNG of :func:`majority_vote_curve` for each base error in ``eps``; the
    slides' point (25, 0.06) is marked.  Returns ``path``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    eps = [eps] if isinstance(eps, (numbers.Real, np.floating)) else list(eps)
    fig, ax = plt.subplots(figsize=(6, 4))
    for e in eps:
        c = majority_vote_curve(e, max_classifiers)
        ax.plot(c.n_classifiers, c.error, marker=".", label=f"base error {e:g}")
    ax.plot([25], [majority_vote_error(25, 0.35)], "ko")
    ax.annotate("25 classifiers, eps=0.35: 0.06", (25, majority_vote_error(25, 0.35)),
                textcoords="offset points", xytext=(8, 8))
    ax.set_xlabel("number of independent classifiers (majority vote)")
    ax.set_ylabel("ensemble error")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def bootstrap_rounds_table(n=10, rounds=3, random_state=0, draws=None):
    """The slides' bagging table: row "Original Data" = 1..n, then one row per
    round of n numbers drawn with replacement (each with probability 1/n), and a
    column with the round's out-of-bag rows.  ``draws``: the rounds to show
    instead of drawing them (e.g. :data:`SLIDES_BAGGING_ROUNDS`, 1-based)."""
    from .data import check_random_state
    if draws is None:
        n = check_int("n", n)
        rounds = check_int("rounds", rounds)
        rng = check_random_state(random_state)
        draws = rng.randint(1, n + 1, size=(rounds, n))
    else:
        draws = np.asarray(draws)
        if draws.ndim != 2 or draws.min() < 1:
            raise ValueError("draws must be a 2-D array of 1-based row numbers")
        n = max(draws.shape[1], int(draws.max()))
    index = ["Original Data"] + [f"Bagging (Round {r + 1})" for r in range(draws.shape[0])]
    body = [list(range(1, n + 1))] + [list(r) for r in draws]
    oob = [""] + [" ".join(str(v) for v in sorted(set(range(1, n + 1)) - set(r.tolist())))
                  for r in draws]
    width = max(len(b) for b in body)
    t = pd.DataFrame([b + [""] * (width - len(b)) for b in body], index=index,
                     columns=[str(j + 1) for j in range(width)])
    t["out-of-bag"] = oob
    return t


def adaboost_example():
    """Ten points x = 0..9 with labels 1 1 1 -1 -1 -1 1 1 1 -1 (Li Hang,
    *Statistical Learning Methods*, example 8.1): boosting decision stumps gives
    round errors 0.3, 0.2143, 0.1818 (the book prints 0.1820, from rounded
    weights) and a training error of 0 after 3 rounds."""
    X = np.arange(10.0).reshape(-1, 1)
    y = np.array([1, 1, 1, -1, -1, -1, 1, 1, 1, -1])
    return X, y


def _replayed_weights(ada, X, y):
    """The tuple weights each round of a fitted :class:`AdaBoostClassifier` started
    from (uniform sample weights), replayed from its members and vote weights:
    w <- w exp(alpha [M_i(X_j) != y_j]) / sum, clipped at machine epsilon."""
    Xf = ada._encode(X)
    yc = np.searchsorted(ada.classes_, y)
    w = np.full(yc.shape[0], 1.0 / yc.shape[0])
    out = []
    for i, est in enumerate(ada.estimators_):
        w = np.clip(w, np.finfo(np.float64).eps, None)
        out.append(w.copy())
        wrong = np.asarray(est.predict(Xf)) != yc
        w = np.exp(np.log(w) + ada.estimator_weights_[i] * wrong)
        w = w / w.sum()
    return out


def _replayed_draws(ada, weights, n):
    """The rows each resampling round drew, replayed from ``random_state`` and the
    round's tuple weights (one seed per ``random_state`` parameter of the base
    learner, then the weighted draw -- the order of :class:`AdaBoostClassifier`)."""
    from .data import check_random_state
    from .ensembles._base import MAX_SEED
    if not isinstance(ada.random_state, (numbers.Integral, np.integer)):
        raise ValueError("the drawn tuples can be shown only with an int random_state")
    rng = check_random_state(ada.random_state)
    out = []
    for est, w in zip(ada.estimators_, weights):
        for key in sorted(est.get_params(deep=True)):
            if key == "random_state" or key.endswith("__random_state"):
                rng.randint(MAX_SEED)
        s = w.sum()
        out.append(rng.choice(n, n, replace=True, p=w if abs(s - 1.0) < 1e-8 else w / s))
    return out


def adaboost_rounds_table(X=None, y=None, n_rounds=3, boosting="reweight", estimator=None,
                          random_state=0):
    """AdaBoost round by round on a small data set (default :func:`adaboost_example`
    with stumps that minimise the weighted error): one row per round with the
    tuple weights w_1..w_d the round starts from, error(M_i) = sum_j w_j err(X_j),
    the classifier weight log((1 - error)/error) (+ log(K - 1)), the tuples M_i
    misclassifies and, for ``boosting="resample"``, the tuples drawn (1-based).
    Returns ``(table, fitted AdaBoostClassifier)``."""
    from .ensembles.adaboost import AdaBoostClassifier
    from .learners.decision_tree import DecisionTreeClassifier
    if X is None:
        X, y = adaboost_example()
    if estimator is None:
        estimator = DecisionTreeClassifier(max_depth=1, criterion="classification_error")
    ada = AdaBoostClassifier(estimator, n_estimators=check_int("n_rounds", n_rounds),
                             boosting=boosting, random_state=random_state).fit(X, y)
    y = np.asarray(y)
    n = y.shape[0]
    weights = _replayed_weights(ada, X, y)
    draws = _replayed_draws(ada, weights, n) if boosting == "resample" else None
    rows = []
    for i, est in enumerate(ada.estimators_):
        wrong = ada.classes_[np.asarray(est.predict(ada._encode(X)))] != y
        row = {"round": i + 1}
        row.update({f"w{j + 1}": weights[i][j] for j in range(n)})
        row["error"] = ada.estimator_errors_[i]
        row["alpha"] = ada.estimator_weights_[i]
        row["misclassified"] = " ".join(str(j + 1) for j in np.flatnonzero(wrong))
        if draws is not None:
            row["drawn"] = " ".join(str(v + 1) for v in draws[i])
        rows.append(row)
    table = pd.DataFrame(rows).set_index("round")
    table.attrs["training_error"] = float(np.mean(ada.predict(X) != y))
    return table, ada


def oob_error_curve(ensemble, X, y):
    """Out-of-bag error of the first m members, m = 1..M, of a fitted ensemble with
    ``estimators_`` and ``estimators_samples_`` (rows drawn for each member;
    optional ``estimators_features_``).  Classifiers: misclassification rate of the
    summed member probabilities (members' ``classes_`` are indices into the
    ensemble's ``classes_``, the convention of treelab's and scikit-learn's
    ensembles); regressors: mean squared error of the mean member prediction.  Only
    rows out of the bag of at least one of the first m members count (column
    ``coverage``: their fraction).  Returns a DataFrame."""
    from ._sklearn_compat import check_is_fitted
    check_is_fitted(ensemble, "estimators_")
    if not hasattr(ensemble, "estimators_samples_"):
        raise TypeError(f"{type(ensemble).__name__} does not expose estimators_samples_")
    if hasattr(ensemble, "_encode"):
        Xf = ensemble._encode(X)
    else:
        Xf = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    n = Xf.shape[0]
    members = ensemble.estimators_
    feats = getattr(ensemble, "estimators_features_", None) or [None] * len(members)
    clf = hasattr(ensemble, "classes_")
    if clf:
        yi = np.searchsorted(ensemble.classes_, y)
        S = np.zeros((n, len(ensemble.classes_)))
    else:
        S = np.zeros(n)
    cnt = np.zeros(n)
    out = []
    for m, (est, rows, f) in enumerate(zip(members, ensemble.estimators_samples_, feats), 1):
        mask = np.ones(n, bool)
        mask[rows] = False
        if mask.any():
            Xm = Xf[mask] if f is None else Xf[mask][:, f]
            if clf:
                cols = np.asarray(est.classes_).astype(np.int64)
                if hasattr(est, "predict_proba"):
                    S[np.ix_(np.flatnonzero(mask), cols)] += est.predict_proba(Xm)
                else:
                    S[np.flatnonzero(mask), np.asarray(est.predict(Xm), np.int64)] += 1
            else:
                S[mask] += np.asarray(est.predict(Xm), np.float64).reshape(-1)
            cnt[mask] += 1
        seen = cnt > 0
        if not seen.any():
            err = np.nan
        elif clf:
            err = float(np.mean(np.argmax(S[seen], axis=1) != yi[seen]))
        else:
            err = float(np.mean((S[seen] / cnt[seen] - y[seen]) ** 2))
        out.append((m, err, float(seen.mean())))
    return pd.DataFrame(out, columns=["n_estimators", "oob_error", "coverage"])


def plot_oob_error_curve(ensemble, X, y, path):
    """PNG of :func:`oob_error_curve`; returns ``path``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    c = oob_error_curve(ensemble, X, y)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(c.n_estimators, c.oob_error, marker=".")
    ax.set_xlabel("number of members")
    ax.set_ylabel("out-of-bag error" if hasattr(ensemble, "classes_") else "out-of-bag MSE")
    ax.set_title(type(ensemble).__name__)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def ensemble_lessons(png_dir=None):
    """The text of ``treelab teach ensembles`` (and the PNGs under ``png_dir``)."""
    from .ensembles.bagging import BaggingClassifier
    from .teaching import text_table
    lines = ["Why does it work? 25 independent classifiers of error 0.35, majority vote:",
             f"  P(wrong) = sum_(i=13..25) C(25,i) 0.35^i 0.65^(25-i) = "
             f"{majority_vote_error(25, 0.35):.4f}  (slides: 0.06)", ""]
    c = majority_vote_curve(0.35, 25)
    lines.append(text_table(["classifiers"] + [str(k) for k in c.n_classifiers[::2]],
                            [["error"] + [f"{e:.3f}" for e in c.error[::2]]]))
    lines += ["", "Bagging: the slides' bootstrap rounds, and their out-of-bag rows"]
    t = bootstrap_rounds_table(draws=SLIDES_BAGGING_ROUNDS)
    lines.append(text_table([""] + list(t.columns),
                            [[i] + [str(v) for v in r] for i, r in zip(t.index, t.values)]))
    lines += ["", "AdaBoost on ten points (x = 0..9, y = 1 1 1 -1 -1 -1 1 1 1 -1), stumps "
              "minimising the weighted error:"]
    tab, ada = adaboost_rounds_table()
    head = ["round"] + [f"w{j}" for j in range(1, 11)] + ["error", "log((1-e)/e)", "wrong"]
    body = [[str(i)] + [f"{r[f'w{j}']:.4f}" for j in range(1, 11)]
            + [f"{r['error']:.4f}", f"{r['alpha']:.4f}", r["misclassified"]]
            for i, r in tab.iterrows()]
    lines.append(text_table(head, body))
    lines.append(f"training error after {len(tab)} rounds: {tab.attrs['training_error']:.3f}")
    rng = np.random.RandomState(0)
    X = rng.normal(size=(400, 6))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=400) > 0).astype(int)
    bag = BaggingClassifier(n_estimators=40, random_state=0).fit(X, y)
    oob = oob_error_curve(bag, X, y)
    pick = oob[oob.n_estimators.isin([1, 2, 5, 10, 20, 40])]
    lines += ["", "Out-of-bag error of bagged trees against their number "
              "(400 synthetic rows, 6 features):",
              text_table(["trees"] + [str(v) for v in pick.n_estimators],
                         [["OOB error"] + [f"{v:.3f}" for v in pick.oob_error]])]
    if png_dir is not None:
        import os
        os.makedirs(png_dir, exist_ok=True)
        p1 = plot_majority_vote_curve(os.path.join(png_dir, "majority_vote.png"))
        p2 = plot_oob_error_curve(bag, X, y, os.path.join(png_dir, "oob_error.png"))
        lines += ["", f"wrote {p1} and {p2}"]
    return "\n".join(lines)
