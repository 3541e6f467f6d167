"""The parameters page: every public estimator's constructor parameters.

The name and default columns are read from the estimators' signatures
(:func:`inspect.signature`) when the documentation is built, so a renamed or
added parameter shows up without editing this file.  Only the last column is
written by hand: :data:`PEERS` maps a parameter *name* to its equivalent in
scikit-learn, XGBoost, LightGBM, river or MOA (or to :data:`NONE` when those
libraries have none), and :data:`FAMILY_PEERS` overrides it for a family whose
parameter of that name means something else.  ``tests/test_docs_parameters.py``
fails when a parameter has no entry.

The Sphinx directive ``treelab-parameters`` inserts the tables (Markdown,
parsed by MyST); :func:`render_markdown` gives the same text outside Sphinx.
"""
from __future__ import annotations

import inspect

#: the text of a parameter that none of the peer libraries has
NONE = "no equivalent"

#: (section title, family key, estimator class names), in page order
FAMILIES = [
    ("Decision trees", "tree",
     ["DecisionTreeClassifier", "DecisionTreeRegressor", "ID3Classifier", "C45Classifier",
      "CARTClassifier", "CARTRegressor"]),
    ("Hoeffding trees", "hoeffding", ["HoeffdingTreeClassifier"]),
    ("Stochastic Gradient Trees", "sgt",
     ["SGTClassifier", "SGTRegressor", "SGTMultiInstanceClassifier"]),
    ("Trees of Predictors", "tops", ["ToPsClassifier", "ToPsRegressor"]),
    ("Gradient boosting", "boosting",
     ["GradientBoostingClassifier", "GradientBoostingRegressor"]),
    ("Forests", "forest",
     ["RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier",
      "ExtraTreesRegressor", "CompletelyRandomForestClassifier",
      "CompletelyRandomForestRegressor"]),
    ("Bagging", "bagging", ["BaggingClassifier", "BaggingRegressor"]),
    ("AdaBoost", "adaboost", ["AdaBoostClassifier", "AdaBoostRegressor"]),
    ("Deep forest", "deep_forest",
     ["CascadeForestClassifier", "CascadeForestRegressor", "MultiGrainedScanning",
      "GcForestClassifier"]),
]

SK = "scikit-learn"

#: parameter name -> its peers' equivalents (the default of every family)
PEERS = {
    # shared vocabulary
    "n_estimators": f"{SK} `n_estimators`; XGBoost / LightGBM `n_estimators`",
    "random_state": f"{SK} `random_state`; XGBoost / LightGBM `random_state`; river `seed`",
    "n_jobs": f"{SK} `n_jobs`; XGBoost / LightGBM `n_jobs`",
    "verbose": f"{SK} `verbose`; LightGBM `verbose`; XGBoost `verbosity`",
    "estimator": f"{SK} `estimator` (`Bagging*`, `AdaBoost*`)",
    "max_bins": f"{SK} HistGradientBoosting `max_bins`; XGBoost / LightGBM `max_bin`",
    "nominal_features": (f"{SK} HistGradientBoosting `categorical_features`; "
                         "LightGBM `categorical_feature`; XGBoost `enable_categorical`"),
    # tree growth (scikit-learn's trees)
    "criterion": f"{SK} `criterion`",
    "splitter": f"{SK} `splitter` (`\"hist\"`: HistGradientBoosting's binning)",
    "max_depth": f"{SK} `max_depth`; XGBoost / LightGBM `max_depth`",
    "min_samples_split": f"{SK} `min_samples_split`",
    "min_samples_leaf": f"{SK} `min_samples_leaf`; LightGBM `min_child_samples`",
    "min_weight_fraction_leaf": f"{SK} `min_weight_fraction_leaf`",
    "max_features": f"{SK} `max_features`; XGBoost `colsample_bynode`",
    "min_impurity_decrease": f"{SK} `min_impurity_decrease`",
    "class_weight": f"{SK} `class_weight`",
    "ccp_alpha": f"{SK} `ccp_alpha`",
    "nominal_split": NONE + " (C4.5's multiway splits; CART's binary subsets)",
    "pruning": NONE + " (`\"pessimistic\"`: C4.5's error-based pruning)",
    "confidence": NONE + " (C4.5's `-c` confidence factor)",
    "multiway_min_leaf": NONE + " (`\"two\"`: C4.5's `MINOBJS` rule)",
    "leaf_model": NONE + " (model trees)",
    "constant_draws": NONE,
    # forests, bagging
    "bootstrap": f"{SK} `bootstrap`",
    "oob_score": f"{SK} `oob_score`",
    "max_samples": f"{SK} `max_samples`",
    "bootstrap_features": f"{SK} `bootstrap_features`",
    "random_cut": NONE,
    # streaming trees (river's HoeffdingTreeClassifier / SGT*, MOA's HoeffdingTree / SGT)
    "grace_period": "river `grace_period`; MOA `gracePeriod`",
    "delta": "river `delta`; MOA `splitConfidence`",
    "tau": "river `tau`; MOA `tieThreshold`",
    "rule": NONE + " (river and MOA: the Hoeffding bound only)",
    "leaf_prediction": "river `leaf_prediction`; MOA `leafprediction`",
    "n_range_samples": NONE,
    "min_branch_fraction": "river `min_branch_fraction`; MOA info-gain criterion's `minBranchFrac`",
    "classes": f"{SK} `partial_fit(classes=...)`; river / MOA: classes seen in the stream",
    "observer": "river `splitter`; MOA `numericEstimator`",
    "n_split_points": "river `GaussianSplitter(n_splits)`; MOA Gaussian observer's `numBins`",
    "inherited_counts": NONE + " (True: MOA's count of a split attempt)",
    "nb_form": NONE + " (`\"moa\"`: MOA's naive-Bayes scores)",
    "gamma": "river `SGTClassifier(gamma)`; MOA SGT `gamma`",
    "leaf_value": NONE + " (`\"mean\"`: river's and the authors' code's means)",
    "min_improvement": NONE + " (MOA SGT's least loss improvement)",
    "resplit": NONE + " (MOA SGT re-splits internal nodes)",
    "loss": NONE,
    "n_epochs": NONE + " (the authors' WEKA code: epochs)",
    # ToPs
    "base_learners": NONE,
    "validation_fraction": f"{SK} `validation_fraction`",
    "screen_candidates": NONE,
    # gradient boosting
    "method": NONE + " (`\"newton\"`: XGBoost / LightGBM; `\"gradient\"`: scikit-learn's GradientBoosting)",
    "learning_rate": f"{SK} `learning_rate`; XGBoost `learning_rate` (eta); LightGBM `learning_rate`",
    "max_leaves": f"{SK} HistGradientBoosting `max_leaf_nodes`; XGBoost `max_leaves`; LightGBM `num_leaves`",
    "grow_policy": "XGBoost `grow_policy`; LightGBM grows leaf-wise (`\"lossguide\"`)",
    "min_child_weight": (f"XGBoost / LightGBM `min_child_weight`; {SK} HistGradientBoosting "
                         "`min_hessian_to_split` (internal)"),
    "reg_lambda": f"XGBoost / LightGBM `reg_lambda`; {SK} HistGradientBoosting `l2_regularization`",
    "reg_alpha": "XGBoost / LightGBM `reg_alpha`",
    "subsample": f"XGBoost / LightGBM `subsample`; {SK} GradientBoosting `subsample`",
    "colsample_bytree": "XGBoost / LightGBM `colsample_bytree`",
    "colsample_bylevel": "XGBoost `colsample_bylevel`",
    "colsample_bynode": f"XGBoost `colsample_bynode`; {SK} HistGradientBoosting `max_features`",
    "base_score": f"XGBoost `base_score`; {SK} GradientBoosting `init`",
    "warm_start": f"{SK} `warm_start`",
    "n_iter_no_change": f"{SK} `n_iter_no_change`",
    "tol": f"{SK} `tol`",
    # AdaBoost
    "boosting": NONE + " (`\"reweight\"`: scikit-learn's AdaBoost)",
    # deep forest (the `deep-forest` package is the reference implementation)
    "forests": NONE + " (deep-forest: `set_estimator`)",
    "n_folds": NONE,
    "class_vectors": NONE,
    "validation": NONE,
    "refit": NONE,
    "max_levels": "deep-forest `max_layers`",
    "final_estimator": "deep-forest `predictor` (with `use_predictor=True`)",
    "window_sizes": NONE,
    "image_shape": NONE,
    "stride": NONE,
    "max_train_windows": NONE,
    "pooling": NONE,
    "pool_size": NONE,
    "chunk_size": NONE,
    "scan_forests": NONE,
}

#: family key -> {parameter name: text}: where a name means something else
FAMILY_PEERS = {
    "tree": {
        "criterion": f"{SK} `criterion` (`\"gain_ratio\"`, `\"kearns_mansour\"`: no equivalent)",
        "max_features": f"{SK} `max_features`",
    },
    "hoeffding": {
        "criterion": "river `split_criterion`; MOA `splitCriterion`",
        "max_bins": NONE + " (river / MOA observers keep exact or Gaussian summaries)",
        "nominal_features": "river `nominal_attributes`; MOA: the ARFF header's nominal attributes",
    },
    "sgt": {
        "delta": "river `SGTClassifier(delta)`; MOA SGT `confidence`",
        "grace_period": "river `SGTClassifier(grace_period)`; MOA SGT `gracePeriod`",
        "max_bins": "river `SGTClassifier(feature_quantizer=...)`; MOA SGT `bins`",
        "reg_lambda": "river `SGTClassifier(lambda_value)`; MOA SGT `lambda`",
        "n_range_samples": "MOA SGT `warmStart`",
        "nominal_features": "river `SGTClassifier(nominal_attributes)`; MOA: the ARFF header's nominal attributes",
        "rule": NONE + " (river and MOA: the t-test only)",
        "loss": "river `SGTRegressor`: squared error only",
        "observer": NONE,
        "random_state": f"{SK} `random_state`",
    },
    "tops": {
        "loss": NONE + " (the validation loss ToPs minimises)",
        "validation_fraction": NONE + " (the paper's V1 / V2 fractions)",
        "max_depth": f"{SK} `max_depth`",
        "min_samples_leaf": f"{SK} `min_samples_leaf`",
        "n_jobs": f"{SK} `n_jobs`",
        "verbose": NONE + " (a progress bar)",
    },
    "boosting": {
        "loss": f"{SK} `loss`; XGBoost `objective`; LightGBM `objective`",
        "gamma": "XGBoost `gamma` (min_split_loss); LightGBM `min_split_gain`",
        "validation_fraction": f"{SK} HistGradientBoosting `validation_fraction`; XGBoost / LightGBM `eval_set`",
        "max_depth": f"XGBoost / LightGBM `max_depth`; {SK} `max_depth`",
        "n_estimators": f"XGBoost / LightGBM `n_estimators`; {SK} `max_iter` (HistGradientBoosting)",
        "n_iter_no_change": f"{SK} `n_iter_no_change`; XGBoost / LightGBM `early_stopping_rounds`",
        "min_samples_leaf": f"LightGBM `min_child_samples`; {SK} HistGradientBoosting `min_samples_leaf`",
    },
    "forest": {
        "splitter": f"{SK}: exact thresholds only (`\"hist\"`: LightGBM's `boosting=\"rf\"` binning)",
        "max_features": f"{SK} `max_features`; XGBoost `colsample_bynode` (random forest mode)",
    },
    "bagging": {
        "max_features": f"{SK} `max_features`",
    },
    "adaboost": {
        "learning_rate": f"{SK} `learning_rate`",
        "loss": f"{SK} `AdaBoostRegressor(loss)`",
        "n_estimators": f"{SK} `n_estimators`",
    },
    "deep_forest": {
        "tol": "deep-forest `delta`",
        "n_iter_no_change": "deep-forest `n_tolerant_rounds`",
        "validation_fraction": NONE + " (held-out rows that choose the number of levels)",
        "n_estimators": "deep-forest `n_trees` (trees per forest)",
        "max_bins": "deep-forest `n_bins`",
        "verbose": "deep-forest `verbose`",
    },
}


def estimator_classes():
    """``[(section title, family key, [(class name, class)])]`` in page order."""
    import treelab
    out = []
    for title, family, names in FAMILIES:
        out.append((title, family, [(name, getattr(treelab, name)) for name in names]))
    return out


def public_estimators():
    """Names of every class in ``treelab.__all__`` that has a ``fit`` method."""
    import treelab
    return sorted(name for name in treelab.__all__
                  if inspect.isclass(getattr(treelab, name))
                  and callable(getattr(getattr(treelab, name), "fit", None)))


def equivalent(family, name):
    """The peer column of parameter ``name`` in ``family``, or None when unmapped."""
    text = FAMILY_PEERS.get(family, {}).get(name)
    if text is None:
        text = PEERS.get(name)
    return text or None


def format_default(default):
    """A default as Python writes it (empty parameters show as "required")."""
    if default is inspect.Parameter.empty:
        return "required"
    return repr(default)


def parameter_rows(cls):
    """``[(name, default)]`` of ``cls``'s constructor, in signature order."""
    rows = []
    for p in inspect.signature(cls).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name == "self":
            continue
        rows.append((p.name, format_default(p.default)))
    return rows


def unmapped_parameters():
    """``["Estimator.parameter"]`` of every parameter without a peer entry."""
    return [f"{name}.{param}" for _, family, classes in estimator_classes()
            for name, cls in classes for param, _ in parameter_rows(cls)
            if equivalent(family, param) is None]


def stale_entries():
    """Mapping keys that name no parameter (left over after a rename)."""
    used, by_family = set(), {}
    for _, family, classes in estimator_classes():
        for _, cls in classes:
            names = {param for param, _ in parameter_rows(cls)}
            used |= names
            by_family.setdefault(family, set()).update(names)
    stale = sorted(set(PEERS) - used)
    for family, entries in FAMILY_PEERS.items():
        stale += [f"{family}:{name}" for name in sorted(set(entries) - by_family.get(family, set()))]
    return stale


def _cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(heading_level=2):
    """The page's tables as Markdown: a section per family, a table per estimator,
    one row per constructor parameter: name, default, peers' equivalent."""
    hashes = "#" * heading_level
    lines = []
    for title, family, classes in estimator_classes():
        lines += [f"{hashes} {title}", ""]
        for name, cls in classes:
            lines += [f"{hashes}# {name}", "",
                      f"Reference: {{class}}`treelab.{name}`.", "",
                      "| parameter | default | equivalent elsewhere |",
                      "|---|---|---|"]
            for pname, default in parameter_rows(cls):
                peer = equivalent(family, pname) or "(missing)"
                lines.append(f"| `{pname}` | `{_cell(default)}` | {_cell(peer)} |")
            lines.append("")
    return "\n".join(lines)


def setup(app):
    from docutils import nodes
    from docutils.statemachine import StringList
    from sphinx.util.docutils import SphinxDirective

    class ParametersDirective(SphinxDirective):
        """``treelab-parameters``: the generated tables (see the module docstring)."""
        has_content = False

        def run(self):
            from sphinx.util import logging
            for item in unmapped_parameters():
                logging.getLogger(__name__).warning(
                    "treelab-parameters: no peer entry for %s (add it to PEERS or FAMILY_PEERS "
                    "in docs/_ext/treelab_parameters.py)", item, location=self.get_location())
            text = render_markdown()
            container = nodes.container()
            self.state.nested_parse(StringList(text.splitlines(), source="treelab-parameters"),
                                    self.content_offset, container, match_titles=True)
            return container.children

    app.add_directive("treelab-parameters", ParametersDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
