"""Suite-wide hooks.

``test_level_wise_driver_compiled_first_in_an_empty_cache`` compiles the
level-wise boosting driver from nothing, in a subprocess with an empty numba
cache: about six minutes of one core.  When that test is selected, the
subprocess is started here, right after collection, so that it runs on the
second core beside the rest of the suite; the test then waits for its answer
(``tests/first_compile_levelwise.py``).  With the suite spread over workers
(pytest-xdist), the worker that runs the test starts it."""
import os
import shutil

import first_compile_levelwise

_FIRST_COMPILE_TEST = "test_level_wise_driver_compiled_first_in_an_empty_cache"
_LAST_FILES = ("test_docs_build.py",)


def pytest_collection_modifyitems(session, config, items):
    # the documentation build runs last: its gallery fits learners whose kernels
    # the rest of the suite has compiled into numba's disk cache by then
    last = [item for item in items if item.fspath.basename in _LAST_FILES]
    if last:
        items[:] = [item for item in items if item.fspath.basename not in _LAST_FILES] + last
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # (every worker collects every test: the one that runs it starts it)
        return
    if any(item.name == _FIRST_COMPILE_TEST for item in items):
        config._treelab_first_compile = first_compile_levelwise.start()


def pytest_unconfigure(config):
    started = getattr(config, "_treelab_first_compile", None)
    if started is not None:
        proc, folder = started
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        shutil.rmtree(folder, ignore_errors=True)
