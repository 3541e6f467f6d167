"""Hoeffding trees: VFDT (Domingos & Hulten, KDD 2000) and its family of
split-decision rules on treelab's streaming engine.

A leaf keeps class counts per feature and per bin (equal-width bins whose
range is estimated from the first ``n_range_samples`` instances, values outside
clipped) or per category (nominal features: multiway splits).  Every
``grace_period`` instances it finds the best split of each feature by its
merit (``criterion``: information gain, Gini gain, Kearns-Mansour gain,
classification error reduction, gain ratio, or a user
:class:`~treelab.split_criteria.Criterion`)
and asks the decision ``rule`` whether the best beats the runner-up ("no
split" included, as in VFDT) by enough:

* ``"hoeffding"`` (default): best - second > R sqrt(ln(1/delta) / 2n), or the
  radius below ``tau`` (VFDT);
* ``"mcdiarmid"``: Rutkowski et al. (2013) radii for Gini gain / information gain;
* ``"ctree"``: De Rosa & Cesa-Bianchi's confidence radii (eqs. 4-7; Algorithm 1:
  best - best other split >= 2 eps; two classes only);
* ``"corrh"``: the Hoeffding rule on the classification-error merit (CorrH-Tree);
* ``"ttest"``: SGT's t-test on the merit (jackknife variance);
* any :class:`~treelab.split_criteria.rules.DecisionRule` (e.g.
  ``CTreeRule(c=0.1)``, bound to the tree's merit) or engine rule object.

The names are those of :func:`treelab.split_criteria.rules.rule_names`, shared
with SGT and the ablation runner.  Leaves predict by majority class (``"mc"``),
naive Bayes on the leaf's bin counts (``"nb"``), or MOA's adaptive choice
between the two by their accuracy on the leaf's own instances (``"nba"``,
the default as in MOA and river).

Numeric features are summarised by an interchangeable observer
(``observer``, :mod:`treelab._engine.observers`): equal-width bins over the
range of the first instances (default), MOA's Gaussian approximation per class
with 10 candidate thresholds (``"gaussian"``, MOA's default), or bins whose
per-leaf range grows when values fall outside it (``"adaptive_range"``).

Differences from MOA's ``HoeffdingTree``: by default the merit and the
bound's ``n`` use only the instances a leaf saw itself; MOA's ``n`` is the
leaf's ``getWeightSeen()``, which includes the class counts inherited from the
parent's split (``inherited_counts=True`` does the same; with MOA's default of
no pre-pruning the merits' differences do not depend on the inherited counts).
A leaf where "no split" wins is not deactivated.  Until ``n_range_samples``
instances have come the model predicts the class prior, while MOA's tree
predicts from the first instance; the Gaussian observer needs no range, so
``observer="gaussian", inherited_counts=True, n_range_samples=1`` grows MOA's
tree and predicts as it does (docs/benchmarks.md: level with MOA per instance
on the stream study's grid and on Electricity); ``nb_form="moa"`` adds MOA's
naive-Bayes details (products of likelihoods, MOA's nominal likelihood, the
first class on all-zero votes).
"""
from __future__ import annotations

import numpy as np

from .._engine import hoeffding as _ht
from .._engine.signatures import IMPURITY_SIG, MERIT_SIG, function_pointer
from .._params import check_bool, check_int, check_real
from .._sklearn_compat import ClassifierMixin
from ..split_criteria.impurity import get_criterion
from ..split_criteria.rules import as_engine_rule, learner_rule, rule_names
from ._streaming import StreamingClassifierMixin, StreamingTreeBase

__all__ = ["HoeffdingTreeClassifier", "RULE_NAMES"]

_LEAF_MODES = {"mc": _ht.LEAF_MC, "nb": _ht.LEAF_NB, "nba": _ht.LEAF_NBA}
#: naive-Bayes forms: the flag added to the leaf mode
_NB_FORMS = {"treelab": 0, "moa": _ht.NB_MOA}
#: decision rules selectable by name (the one registry's)
RULE_NAMES = rule_names()


class HoeffdingTreeClassifier(StreamingClassifierMixin, ClassifierMixin, StreamingTreeBase):
    """Hoeffding tree classifier with interchangeable merit and decision rule.

    Parameters
    ----------
    grace_period : int, default 200
        Instances a leaf sees between split attempts.
    delta : float, default 1e-7
        Confidence parameter of the rule chosen by name (1 - confidence).
    tau : float, default 0.05
        Tie-break threshold of the rules "hoeffding" and "corrh" by name (split
        when the radius falls below it); None or 0 disables it.  "ctree" and
        "mcdiarmid" by name have none; rules given as objects carry their own.
    criterion : str or Criterion, default "entropy"
        The merit of a split: "entropy" (information gain), "gini",
        "kearns_mansour", "classification_error", "gain_ratio", or a user
        criterion (the names of the batch trees' ``criterion``).  The rule
        "corrh" implies "classification_error" and replaces it.
    rule : str or rule object, optional
        A name of :func:`~treelab.split_criteria.rules.rule_names`
        ("hoeffding" (default), "mcdiarmid", "ctree", "corrh", "ttest"), a
        :class:`~treelab.split_criteria.rules.DecisionRule` (e.g.
        ``CTreeRule(c=0.1)``; a rule built for another merit than the tree's is
        refused) or any object with ``rule_fn`` and ``params`` (``RULE_SIG``).
        The C-Tree rules on the entropy / Gini / Kearns-Mansour merits need two
        classes (the paper's analysis is binary): more raise ValueError once
        the classes are known.
    leaf_prediction : {"nba", "mc", "nb"}, default "nba"
    max_bins : int, default 64
        Equal-width bins per numeric feature (observers "equal_width" and
        "adaptive_range"; the latter needs an even number).
    observer : {"equal_width", "gaussian", "adaptive_range"}, default "equal_width"
        How a leaf summarises a numeric feature and proposes thresholds
        (:mod:`treelab._engine.observers`): equal-width bins over the range of
        the first ``n_range_samples`` instances, values outside clipped (the
        SGT paper's bins); MOA's Gaussian approximation per class with
        ``n_split_points`` candidate thresholds (MOA's HoeffdingTree default;
        naive-Bayes leaves then use normal densities); or equal-width bins
        whose per-leaf range grows (exactly, by merging bin pairs) when values
        fall outside it.
    n_split_points : int, default 10
        Candidate thresholds of the Gaussian observer (MOA's ``numBins``).
    n_range_samples : int, default 1000
        Instances from which the bin range is estimated (and, without
        ``classes``, the classes); until then the model predicts the class
        prior.  1 with the Gaussian observer (no range needed): the tree from
        the first instance, as MOA's.
    min_branch_fraction : float, default 0.01
        A split is a candidate only if at least two branches hold more than
        this fraction of the instances whose value of the split feature is
        known (MOA's minimum branch fraction).
    nominal_features : list or dict, optional
        Nominal columns (pandas ``category`` columns are always nominal); a dict
        ``{name: [categories]}`` declares the categories for ``learn_one`` dicts.
    classes : array-like, optional
        All labels of the stream.
    inherited_counts : bool, default False
        Whether the instance count ``n`` of a split attempt (in the rule's
        confidence radius, hence also in the tie threshold's test) includes the
        class counts a leaf inherited from its parent's split, as MOA's
        ``HoeffdingTree`` does (``getWeightSeen()`` of the leaf's observed class
        distribution).  A child inheriting many instances then splits sooner;
        the stream accuracy study (docs/benchmarks.md) measures the effect.  The merits
        and the grace period count the leaf's own instances either way.
    nb_form : {"treelab", "moa"}, default "treelab"
        How naive-Bayes leaves ("nb", and "nba" both to predict and to count
        its hits) score.  "treelab": sums of log-likelihoods, a category's
        likelihood (count + 1) / (class total + declared categories), and the
        leaf's majority class when every class scores zero.  "moa": MOA's
        ``NaiveBayes.doNaiveBayesPrediction`` (GitHub master): votes are the
        product prior x likelihoods (they may underflow to 0 as MOA's do), a
        category's likelihood is ``NominalAttributeClassObserver``'s (count +
        1) / (class total + V_c), V_c the highest category code seen with the
        class at the leaf plus one, 0 for a class not seen there, and all-zero
        votes predict the first class (probability 1), as MOA's evaluation
        takes the first maximum.  Numeric likelihoods are the same in both.
        The tree does not depend on it.
    """

    _leaf_counts_are_classes = True
    _AUX_RANGE = _ht.AUX_RANGE

    def __init__(self, grace_period=200, delta=1e-7, *, tau=0.05, criterion="entropy", rule=None,
                 leaf_prediction="nba", max_bins=64, n_range_samples=1000,
                 min_branch_fraction=0.01, nominal_features=None, classes=None,
                 observer="equal_width", n_split_points=10, inherited_counts=False,
                 nb_form="treelab"):
        self.grace_period = grace_period
        self.delta = delta
        self.tau = tau
        self.criterion = criterion
        self.rule = rule
        self.leaf_prediction = leaf_prediction
        self.max_bins = max_bins
        self.n_range_samples = n_range_samples
        self.min_branch_fraction = min_branch_fraction
        self.nominal_features = nominal_features
        self.classes = classes
        self.observer = observer
        self.n_split_points = n_split_points
        self.inherited_counts = inherited_counts
        self.nb_form = nb_form

    # ------------------------------------------------------------- parameters
    def _rule_and_criterion(self):
        """The rule object and the merit it runs on (``corrh`` implies its own)."""
        rule, merit = learner_rule(self.rule, self.criterion, "hoeffding", delta=self.delta,
                                   tau=self.tau)
        return rule, get_criterion(merit, "classification")

    def _criterion(self):
        return self._rule_and_criterion()[1]

    def _rule_key(self):
        m = self.criterion if isinstance(self.criterion, str) else id(self.criterion)
        r = self.rule if isinstance(self.rule, (str, type(None))) else id(self.rule)
        return (r, self.delta, self.tau, m, self.__dict__.get("n_classes_"))

    def _make_rule(self, n_classes=None):
        check_int("grace_period", self.grace_period)
        check_int("max_bins", self.max_bins, 2)
        check_int("n_range_samples", self.n_range_samples, 1)
        check_int("n_split_points", self.n_split_points, 1)
        self._obs_code()
        if self.leaf_prediction not in _LEAF_MODES:
            raise ValueError(f"leaf_prediction must be one of {sorted(_LEAF_MODES)}, "
                             f"got {self.leaf_prediction!r}")
        self._leaf_mode()
        check_real("min_branch_fraction", self.min_branch_fraction, 0, 0.5, hi_open=True)
        check_bool("inherited_counts", self.inherited_counts)
        rule, crit = self._rule_and_criterion()
        if n_classes is None:
            n_classes = self.__dict__.get("n_classes_")
        return as_engine_rule(rule, merit=crit, n_classes=n_classes)

    def _leaf_mode(self):
        """The kernels' leaf mode: the leaf predictor plus the naive-Bayes form's flag."""
        form = self.__dict__.get("nb_form", "treelab")     # models pickled before it
        if not isinstance(form, str) or form not in _NB_FORMS:
            raise ValueError(f"nb_form must be one of {sorted(_NB_FORMS)}, got {form!r}")
        return _LEAF_MODES[self.leaf_prediction] + _NB_FORMS[form]

    def _set_classes(self, classes):
        # a rule that cannot run with this many classes is refused before any change
        self._make_rule(n_classes=int(np.unique(np.asarray(classes)).shape[0]))
        super()._set_classes(classes)

    # ------------------------------------------------------------------ model
    def _n_trees(self):
        return 1

    def _new_model(self, n_trees, n_features, n_bins_total):
        t, st = _ht.new_ht(self.n_classes_, n_features, n_bins_total)
        return t, np.zeros(1, np.int64), st

    def _kernel_params(self):
        """The learn kernel's parameter arguments, rebuilt only when a parameter
        they depend on changed (per-chunk Python work matters for small chunks)."""
        key = (self._rule_key(), self.grace_period, self.max_bins, self.leaf_prediction,
               self.min_branch_fraction, self.n_split_points, self.inherited_counts,
               self.__dict__.get("nb_form", "treelab"))
        cached = self.__dict__.get("_kernel_args")
        if cached is not None and cached[0] == key:
            return cached[1]
        rule_fn, rule_params = self._engine_rule()
        crit = self._criterion()
        args = (int(self.max_bins), self._obs_code(), int(self.n_split_points),
                int(self.grace_period), self._leaf_mode(),
                float(self.min_branch_fraction), int(bool(self.inherited_counts)),
                int(crit.merit_code), int(crit.builtin_code),
                function_pointer(crit.impurity, IMPURITY_SIG),
                function_pointer(crit.merit, MERIT_SIG), rule_fn, rule_params)
        self._kernel_args = (key, args)
        return args

    def _learn_codes(self, Xc, y, bag_offsets=None):
        args = self._kernel_params()
        kernel = _ht.get_learn_kernel()
        Xc = np.ascontiguousarray(Xc)
        y = np.ascontiguousarray(y, dtype=np.float64)
        is_nominal, n_cats = self._is_nominal, self._n_cats
        self._run_learn(
            lambda start, room: kernel(self._forest, self._state, Xc, y, is_nominal, n_cats,
                                       *args, start, room),
            Xc.shape[0])

    def _proba(self, Xf):
        self._flush()
        if not hasattr(self, "_forest"):
            return None
        return _ht.get_predict_kernel()(
            self._forest, self._state, np.ascontiguousarray(self._codes(Xf)),
            self._leaf_mode(), self._is_nominal, self._n_cats, int(self.max_bins),
            self._obs_code())

    def _proba_one(self, row):
        p = self._proba(row[None, :])
        if p is None:
            return np.full(self.n_classes_, 1.0 / self.n_classes_)
        return p[0]
