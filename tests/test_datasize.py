"""ND108 judged with the data's size where a module builds it (``analysis/datasize.py``,
``families/seeding/fitted.py``): an estimator that draws only on data of some size is not
reported where every fit's data is known to be of a size on which it draws nothing."""

from __future__ import annotations

import libcst as cst
import pytest

from nondet_lint.analysis.dataflow import ScopeIndex
from nondet_lint.analysis.datasize import DataSizes, Extent, Shape
from nondet_lint.families.seeding.tables import tables_for
from nondet_lint.ruledata import load_rules

ND108 = {"select": ["ND108"]}


def _found(lint, source, config=None):
    files = {"main.py": source}
    return [(f.line, f.col + 1, f.message) for f in lint(files, {**ND108, **(config or {})}) if f.code == "ND108"]


def _message(name, why):
    return (f"`{name}` is random ({why}) and its `random_state` is omitted, so it draws from NumPy's global RNG, "
            "which nothing seeds before it (this program never seeds it); pass random_state")


PCA_WHY = "its default solver turns randomized for data larger than 500x500 when n_components is a number of components"
HGB_WHY = "early stopping (on by default above 10,000 samples) draws a random validation split"
TREE_WHY = "features are permuted at random at each split, which decides between tied splits"


PCA_SOURCE = """
from sklearn.datasets import load_digits, load_iris
from sklearn.decomposition import PCA

if __name__ == "__main__":
    iris = load_iris()
    small = PCA(n_components=2).fit(iris.data)
    X, y = load_digits(return_X_y=True)
    pca = PCA(n_components=10)
    reduced = pca.fit_transform(X)
"""


def test_pca_on_iris_is_not_reported_and_on_digits_only_where_a_version_before_1_5_may_run(lint):
    """iris (150x4) is at most 500x500: the exact solver in every version.  digits
    (1797x64) takes 'covariance_eigh' from scikit-learn 1.5 and the randomized solver
    before: reported when no version is pinned (every known version is judged) and on a
    pin before 1.5, not on 1.5.2."""
    reported = [(8, 11, _message("sklearn.decomposition.PCA", PCA_WHY))]
    assert _found(lint, PCA_SOURCE) == reported
    assert _found(lint, PCA_SOURCE, {"target-versions": {"scikit-learn": "1.4.2"}}) == reported
    assert _found(lint, PCA_SOURCE, {"target-versions": {"scikit-learn": "1.5.2"}}) == []


def test_a_project_pin_decides_the_pca_policy(lint):
    files = {"main.py": PCA_SOURCE, "requirements.txt": "scikit-learn>=1.5\n"}
    assert [f.line for f in lint(files, ND108) if f.code == "ND108"] == []
    files["requirements.txt"] = "scikit-learn>=1.3\n"
    assert [f.line for f in lint(files, ND108) if f.code == "ND108"] == [8]


def test_a_project_that_is_a_scikit_learn_distribution_runs_on_its_own_version(lint):
    """A source distribution's PKG-INFO names the package and version the project is:
    scikit-learn 1.5.2's examples run on scikit-learn 1.5.2; another package's metadata
    (near miss) says nothing about scikit-learn."""
    metadata = "Metadata-Version: 2.1\nName: {name}\nVersion: 1.5.2\n\nbody\n"
    files = {"main.py": PCA_SOURCE, "PKG-INFO": metadata.format(name="scikit-learn")}
    assert [f.line for f in lint(files, ND108) if f.code == "ND108"] == []
    files["PKG-INFO"] = metadata.format(name="some-tool")
    assert [f.line for f in lint(files, ND108) if f.code == "ND108"] == [8]


def test_hist_gradient_boosting_is_reported_above_10000_samples_only(lint):
    source = """
from sklearn.datasets import make_regression
from sklearn.ensemble import HistGradientBoostingRegressor

if __name__ == "__main__":
    X, y = make_regression(n_samples=20000, random_state=0)
    big = HistGradientBoostingRegressor().fit(X, y)
    n_samples = 2_000
    Xs, ys = make_regression(n_samples, 5, random_state=0)
    small = HistGradientBoostingRegressor().fit(Xs, ys)
    forced = HistGradientBoostingRegressor(early_stopping=True).fit(Xs, ys)
    features = HistGradientBoostingRegressor(max_features=0.5).fit(Xs, ys)
"""
    assert _found(lint, source) == [
        (6, 11, _message("sklearn.ensemble.HistGradientBoostingRegressor", HGB_WHY)),
        (10, 14, _message("sklearn.ensemble.HistGradientBoostingRegressor", HGB_WHY)),
        (11, 16, _message("sklearn.ensemble.HistGradientBoostingRegressor", HGB_WHY)),
    ]


def test_a_tree_on_a_single_feature_is_not_reported(lint):
    source = """
import numpy as np
from sklearn.tree import DecisionTreeRegressor

if __name__ == "__main__":
    rng = np.random.RandomState(1)
    X = np.sort(5 * rng.rand(80, 1), axis=0)
    y = np.sin(X).ravel()
    one = DecisionTreeRegressor(max_depth=2)
    one.fit(X, y)
    grid = np.linspace(0, 5, 100)[:, np.newaxis]
    two = DecisionTreeRegressor().fit(grid, y[:100])
    X3 = rng.rand(80, 3)
    three = DecisionTreeRegressor(max_depth=2).fit(X3, y)
    rand = DecisionTreeRegressor(splitter="random").fit(X, y)
"""
    assert _found(lint, source) == [
        (13, 13, _message("sklearn.tree.DecisionTreeRegressor", TREE_WHY)),
        (14, 12, "`sklearn.tree.DecisionTreeRegressor` is random (features are permuted at random at each split, which"
                 " decides between tied splits) and its `random_state` is omitted, so it draws from NumPy's global RNG,"
                 " which nothing seeds before it (this program never seeds it); pass random_state"),
    ]


def test_data_of_unknown_size_keeps_the_finding(lint):
    """Near miss: the data is a parameter (or bound in a branch): any size."""
    source = """
from sklearn.datasets import load_iris
from sklearn.decomposition import PCA

def reduce(X):
    return PCA(n_components=2).fit_transform(X)

if __name__ == "__main__":
    if len(__file__) > 3:
        X = load_iris().data
    else:
        X = reduce
    a = PCA(n_components=2).fit(X)
    reduce(load_iris().data)
"""
    assert [line for line, _, _ in _found(lint, source)] == [5, 12]


def test_an_estimator_that_is_never_fitted_draws_nothing(lint):
    """A pipeline built only to be displayed (a notebook's bare expression, ``print``, a
    grid search that is itself only displayed) is never fitted; the same pipeline fitted
    (near miss) is reported."""
    source = """
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

if __name__ == "__main__":
    steps = [("scale", StandardScaler()), ("forest", RandomForestClassifier())]
    pipe = Pipeline(steps)
    pipe
    search = GridSearchCV(make_pipeline(StandardScaler(), RandomForestClassifier()), param_grid={})
    print(search)
    fitted = make_pipeline(StandardScaler(), RandomForestClassifier())
    fitted.fit([[0.0], [1.0]], [0, 1])
"""
    assert _found(lint, source) == [
        (12, 46, "`sklearn.ensemble.RandomForestClassifier` is random with these arguments and its `random_state` is"
                 " omitted, so it draws from NumPy's global RNG, which nothing seeds before it (this program never"
                 " seeds it); pass random_state"),
    ]


def test_pipelines_unions_splits_and_cross_validation_carry_the_size(lint):
    """A step after a scaler sees the data's shape, a part of a union the data itself,
    cross-validation and ``train_test_split`` fewer rows; after a step that changes the
    columns (``SelectKBest``) the columns are not known (near miss)."""
    source = """
from sklearn.datasets import load_wine
from sklearn.decomposition import PCA
from sklearn.feature_selection import SelectKBest
from sklearn.model_selection import cross_val_score, train_test_split
from sklearn.pipeline import FeatureUnion, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

if __name__ == "__main__":
    X, y = load_wine(return_X_y=True, as_frame=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    make_pipeline(StandardScaler(), PCA(n_components=2), SVC()).fit(X_train, y_train)
    union = FeatureUnion([("pca", PCA(n_components=2)), ("best", SelectKBest(k=1))])
    union.fit(X_train, y_train)
    cross_val_score(make_pipeline(StandardScaler(), PCA(n_components=3), SVC()), X, y)
    cross_val_score(make_pipeline(SelectKBest(k=5), PCA(n_components=3), SVC()), X, y)
"""
    assert [(line, col) for line, col, _ in _found(lint, source)] == [(16, 53)]


def test_quantile_transforms_subsample_only_above_subsample_rows(lint):
    source = """
import numpy as np
from sklearn.preprocessing import QuantileTransformer, quantile_transform

if __name__ == "__main__":
    rng = np.random.RandomState(0)
    X = rng.normal(size=(1000, 3))
    QuantileTransformer(n_quantiles=100).fit(X)
    quantile_transform(X, n_quantiles=100)
    big = rng.normal(size=(50000, 3))
    quantile_transform(big, n_quantiles=100)
    QuantileTransformer(subsample=500).fit(X)
"""
    assert [(line, col) for line, col, _ in _found(lint, source)] == [(10, 5), (11, 5)]


def test_time_series_folds_bound_the_training_rows(lint):
    """``TimeSeriesSplit(max_train_size=N)`` trains on at most N rows, whatever the data's
    size: through ``cv=`` of a cross-validation, and through the index pairs of
    ``split()`` (an item of the list, or a loop's variables) picking rows with
    ``X[train, :]`` or ``X.iloc[train]``.  Near misses: a bound above 10,000, no bound, a
    frame's own ``X[train]`` (it picks columns), and data of unknown size fitted whole."""
    source = """
from sklearn.datasets import fetch_openml
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import TimeSeriesSplit, cross_validate

if __name__ == "__main__":
    X, y = fetch_openml("bikes", return_X_y=True)
    ts_cv = TimeSeriesSplit(n_splits=3, max_train_size=10000, test_size=3000)
    train_idx, test_idx = list(ts_cv.split(X, y))[0]
    X_train, X_test = X[train_idx, :], X[test_idx, :]
    HistGradientBoostingRegressor().fit(X_train, y[train_idx])
    for loss in ["poisson", "absolute_error"]:
        model = HistGradientBoostingRegressor(loss=loss)
        cross_validate(model, X, y, cv=ts_cv)
    for train, test in ts_cv.split(X):
        HistGradientBoostingRegressor().fit(X.iloc[train], y.iloc[train])
    wide = TimeSeriesSplit(max_train_size=20000)
    cross_validate(HistGradientBoostingRegressor(), X, y, cv=wide)
    cross_validate(HistGradientBoostingRegressor(), X, y, cv=TimeSeriesSplit(n_splits=3))
    HistGradientBoostingRegressor().fit(X[train_idx], y[train_idx])
    HistGradientBoostingRegressor().fit(X, y)
"""
    message = _message("sklearn.ensemble.HistGradientBoostingRegressor", HGB_WHY)
    assert _found(lint, source) == [(17, 20, message), (18, 20, message), (19, 5, message), (20, 5, message)]


def test_one_feature_through_atleast_2d_and_transpose(lint):
    """``np.atleast_2d(x).T`` of 1-D data is one column: gradient boosting with
    ``subsample=1.0`` has no tie to break; the same of 2-D data (near miss) keeps its
    features."""
    source = """
import numpy as np
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.model_selection import train_test_split

if __name__ == "__main__":
    rng = np.random.RandomState(42)
    X = np.atleast_2d(rng.uniform(0, 10.0, size=1000)).T
    X_train, X_test, y_train, y_test = train_test_split(X, X.ravel(), random_state=0)
    GradientBoostingRegressor(loss="quantile").fit(X_train, y_train)
    wide = np.atleast_2d(rng.uniform(0, 10.0, size=(1000, 3))).T
    GradientBoostingRegressor().fit(wide, wide[:, 0])
"""
    assert _found(lint, source) == [(11, 5, _message("sklearn.ensemble.GradientBoostingRegressor", TREE_WHY))]


def test_train_test_split_keeps_a_lower_bound_on_the_rows(lint):
    """The train part of 5,000 rows is 3,750 (``test_size`` 0.25 by default): at least 10
    samples per feature of 300, so scikit-learn 1.5's 'covariance_eigh'; with
    ``test_size=0.5`` (near miss) 2,500 rows are too few, and more than 500 rows take the
    randomized solver."""
    source = """
from sklearn.datasets import make_classification
from sklearn.decomposition import PCA
from sklearn.model_selection import train_test_split

if __name__ == "__main__":
    X, y = make_classification(n_samples=5000, n_features=300, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    PCA(n_components=2).fit(X_train)
    A_train, A_test = train_test_split(X, test_size=0.5, random_state=0)
    PCA(n_components=2).fit(A_train)
"""
    assert _found(lint, source, {"target-versions": {"scikit-learn": "1.5.2"}}) == [
        (10, 5, _message("sklearn.decomposition.PCA", PCA_WHY))]


def test_an_estimator_given_to_the_estimator_checks_is_tested_not_fitted(lint):
    """``parametrize_with_checks`` and ``check_estimator`` run scikit-learn's test suite on
    the estimator; the same list printed (near miss) is not a test and the tree, given to
    nothing known, stays reported."""
    source = """
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils.estimator_checks import check_estimator, parametrize_with_checks

@parametrize_with_checks([DecisionTreeRegressor()])
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)

if __name__ == "__main__":
    check_estimator(DecisionTreeRegressor())
    keep([DecisionTreeRegressor()])
"""
    assert _found(lint, source) == [(10, 11, _message("sklearn.tree.DecisionTreeRegressor", TREE_WHY))]


def test_estimators_kept_in_a_dict_are_followed_through_its_reads(lint):
    """A fitted estimator stored in a dict (an item assignment, a dict comprehension) is
    followed through the dict's item reads and loops over its items: only ``predict``
    there.  Near misses: an item fitted again on wider data, the dict handed to a
    function, an item read fitted on 20,000 rows."""
    source = """
import numpy as np
from sklearn.ensemble import GradientBoostingRegressor, HistGradientBoostingRegressor

if __name__ == "__main__":
    X = np.linspace(0, 10, num=2000).reshape(-1, 1)
    y = X.ravel()
    models = {}
    for alpha in [0.05, 0.5]:
        gbr = GradientBoostingRegressor(loss="quantile", alpha=alpha)
        models["q %1.2f" % alpha] = gbr.fit(X, y)
    models["mse"] = GradientBoostingRegressor().fit(X, y)
    print(models["mse"].predict(X), len(models))
    for name, gbr in sorted(models.items()):
        gbr.predict(X)
    hist = {q: HistGradientBoostingRegressor(quantile=q).fit(X, y) for q in [0.1, 0.9]}
    for h in hist.values():
        h.predict(X)
    refitted = {"a": GradientBoostingRegressor().fit(X, y)}
    for name, est in refitted.items():
        est.fit(np.c_[X, X], y)
    handed = {"a": GradientBoostingRegressor().fit(X, y)}
    keep(handed)
    grown = {q: HistGradientBoostingRegressor(quantile=q).fit(X, y) for q in [0.1, 0.9]}
    grown[0.1].fit(np.zeros((20000, 1)), np.zeros(20000))
"""
    tree = _message("sklearn.ensemble.GradientBoostingRegressor", TREE_WHY)
    assert _found(lint, source) == [
        (18, 22, tree), (21, 20, tree), (23, 17, _message("sklearn.ensemble.HistGradientBoostingRegressor", HGB_WHY))]


# ---- the size analysis itself ---------------------------------------------------------

def _shape(source, expr_line):
    """The size of the value bound on the last line of ``source``."""
    module = cst.parse_module(source)
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    parents = wrapper.resolve(cst.metadata.ParentNodeProvider)
    imports = {"np": "numpy", "train_test_split": "sklearn.model_selection.train_test_split",
               "load_iris": "sklearn.datasets.load_iris", "make_blobs": "sklearn.datasets.make_blobs"}

    def qualname(node):
        if isinstance(node, cst.Name):
            return imports.get(node.value)
        if isinstance(node, cst.Attribute):
            owner = qualname(node.value)
            return f"{owner}.{node.attr.value}" if owner else None
        return None

    indexes = {}

    def index_for(node):
        return indexes.setdefault(id(module), ScopeIndex(module, parents.get))

    sizes = DataSizes(tables_for(load_rules()).sizes, qualname, parents.get, index_for, module)
    statement = module.body[-1].body[0]
    return sizes.size_of(statement.value)


E = Extent.exactly


@pytest.mark.parametrize("source, expected", [
    ("X = np.random.rand(80, 3)\nX[:, :2]", Shape((E(80), Extent(0, 2)))),
    ("X = np.random.rand(80, 3)\nX[:, [0, 2]]", Shape((E(80), E(2)))),
    ("X = np.random.rand(80, 3)\nX[:10]", Shape((Extent(0, 10), E(3)))),
    ("X = np.random.rand(80, 3)\nX[:, 0]", Shape((E(80),))),
    ("a = np.linspace(0, 1)\nnp.c_[a, a]", Shape((E(50), E(2)))),
    ("n = 4\nnp.zeros((n * 10, n))", Shape((E(40), E(4)))),
    ("X, y = load_iris(return_X_y=True)\nX", Shape((E(150), E(4)))),
    ("X, y = load_iris(return_X_y=True)\ntrain_test_split(X, y)[0]", None),
    # the train part: 150 - ceil(0.25 * 150) rows; the test part ceil(0.2 * 150); 40 rows
    ("a, b, c, d = train_test_split(load_iris().data, [])\na", Shape((E(112), E(4)))),
    ("a, b = train_test_split(load_iris().data, test_size=0.2)\nb", Shape((E(30), E(4)))),
    ("a, b = train_test_split(load_iris().data, train_size=40)\nb", Shape((E(110), E(4)))),
    ("a, b = train_test_split(load_iris().data, test_size=size)\na", Shape((Extent(0, 150), E(4)))),
    ("a, b = train_test_split(unknown(), test_size=100)\nb", None),
    ("X = np.random.rand(80, 3)\nX.T", Shape((E(3), E(80)))),
    ("np.atleast_2d(np.linspace(0, 1, 7)).T", Shape((E(7), E(1)))),
    ("X, y = load_iris().data, load_iris().target\ny", Shape((E(150),))),
    # rows picked by an index array, of data of unknown shape (a frame's ``X[i]`` picks columns)
    ("i = np.zeros(30)\nload()[i, :]", Shape((Extent(0, 30), Extent()), more=True)),
    ("i = np.zeros(30)\nload().iloc[i]", Shape((Extent(0, 30),), more=True)),
    ("i = np.zeros(30)\nload()[i]", None),
    ("X = load()\nnp.c_[X[:, 0], X[:, 1]]", None),
    ("X, y = make_blobs(n_features=3)\nX", Shape((E(100), E(3)))),
    ("X, y = make_blobs(centers=[[0, 1]])\nX", None),
    ("X = np.array([0, 1, 2]).reshape(-1, 1)\nX", Shape((E(3), E(1)))),
    ("frame = load_iris(as_frame=True).data\nframe[['a', 'b']]", Shape((E(150), E(2)))),
])
def test_sizes_of_values(source, expected):
    assert _shape(source, -1) == expected
