"""What runs inside the fresh interpreter of a `runtime_isolation` contract.

It is run as `python -c <this file's text> REQUEST RESULT`, so that it needs nothing of this
package (the interpreter may be another environment's) and puts no folder of ours on
sys.path. It blocks the SDKs, imports the probes, calls the detector, and writes what it
saw as JSON to RESULT: a file, so that whatever the analysed code prints cannot corrupt it.
It uses only the standard library and must run on any Python 3 the analysed code supports.
"""

import importlib
import json
import os
import sys
import traceback


def _failure(error: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(error), error)).strip()


def main(request_path: str, result_path: str) -> None:
    with open(request_path, encoding="utf-8") as handle:
        request = json.load(handle)
    sys.path[:] = request["sys_path"] + [p for p in sys.path if p not in request["sys_path"]]
    for name in request["blocked_modules"]:
        sys.modules[name] = None  # type: ignore[assignment]  # importing it raises ImportError

    result: dict = {"probes": [], "detected": None, "detector_error": None}  # type: ignore[type-arg]
    for module in request["probe_modules"]:
        try:
            importlib.import_module(module)
        except BaseException as error:  # a probe may raise anything, SystemExit included
            result["probes"].append({"module": module, "error": _failure(error)})
        else:
            result["probes"].append({"module": module, "error": None})

    detector = request["detector"]
    if detector:
        module_name, _, attribute = detector.partition(":")
        try:
            found = getattr(importlib.import_module(module_name), attribute)()
        except BaseException as error:
            result["detector_error"] = _failure(error)
        else:
            if isinstance(found, type):
                found = f"{found.__module__}.{found.__qualname__}"
            if isinstance(found, str) and found:
                result["detected"] = found
            else:
                result["detector_error"] = f"returned {found!r}, not a qualified name or a class"

    result["modules"] = sorted(name for name, module in sys.modules.items() if module is not None)
    partial = f"{result_path}.partial"
    with open(partial, "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    os.replace(partial, result_path)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
