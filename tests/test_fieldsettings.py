"""``names_assigned`` with the local values of a function kept from one call to the next."""

import libcst as cst

from nondet_lint.analysis.fieldsettings import LocalValues, names_assigned

SOURCE = (
    "class Kernel:\n"
    "    def evaluate(self, x):\n"
    "        saved = self.active_dims\n"
    "        self.active_dims = None\n"
    "        self.active_dims = saved\n"
    "\n"
    "    def reset(self, x):\n"
    "        saved = x\n"
    "        self.active_dims = saved\n"
)


def _last_assign(function: cst.FunctionDef) -> cst.Assign:
    statement = function.body.body[-1]
    assert isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], cst.Assign)
    return statement.body[0]


def test_local_values_follow_the_function_asked_about() -> None:
    cls = cst.parse_module(SOURCE).body[0]
    assert isinstance(cls, cst.ClassDef)
    evaluate, reset = cls.body.body
    assert isinstance(evaluate, cst.FunctionDef) and isinstance(reset, cst.FunctionDef)
    local = LocalValues()
    for function, expected in ((evaluate, []), (reset, ["active_dims"]), (evaluate, [])):
        assign = _last_assign(function)
        found = list(names_assigned(assign.targets[0].target, assign.value, function, local))
        assert found == expected
        assert found == list(names_assigned(assign.targets[0].target, assign.value, function))
