import ast
import os
import unittest

import support  # noqa: F401  (the client on sys.path)

PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weft")


class PythonVersionsTest(unittest.TestCase):
    def test_the_client_parses_as_python_3_9(self):
        # The tests run on a newer Python: syntax of 3.10+ (match, parenthesized context managers) would pass unseen.
        for name in sorted(os.listdir(PACKAGE)):
            if name.endswith(".py"):
                with open(os.path.join(PACKAGE, name), encoding="utf-8") as f:
                    source = f.read()
                with self.subTest(module=name):
                    tree = ast.parse(source, filename=name, feature_version=(3, 9))
                    if any(_annotated(node) for node in ast.walk(tree)):
                        # Annotations stay strings, so `X | None` or `list[str]` in them never run on 3.9.
                        self.assertIn("from __future__ import annotations", source)


def _annotated(node: ast.AST) -> bool:
    if isinstance(node, ast.AnnAssign):
        return True
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
        return node.returns is not None or any(a.annotation is not None for a in args)
    return False


if __name__ == "__main__":
    unittest.main()
