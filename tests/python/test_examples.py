"""The examples of examples/python run on each host back end (chosen by the command line or
the environment, as in C) and pass their own checks against NumPy."""
import os
import subprocess
import sys

import pytest

import porta
from programs import HOW, run_program

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = ["axpy_dot.py", "stencil2d.py", "spmv_team.py", "histogram.py", "custom_reducer.py",
            "heat_views.py", "porting_heat.py"]


@pytest.mark.parametrize("example", EXAMPLES)
@pytest.mark.parametrize("how", HOW)
def test_example(example, how):
    r, backend, threads = run_program(os.path.join(ROOT, "examples", "python", example), how)
    want = backend + threads
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS" in r.stdout and want in r.stdout, r.stdout


@pytest.mark.skipif(not porta.backend_available("cuda"), reason="no CUDA back end")
@pytest.mark.parametrize("example", ["heat_views.py", "porting_heat.py"])
def test_views_example_on_cuda(example):
    """The examples written with views run unchanged on the GPU."""
    r, _, _ = run_program(os.path.join(ROOT, "examples", "python", example), "arg-cuda")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS" in r.stdout and "backend=cuda" in r.stdout and "space=cuda" in r.stdout, \
        r.stdout


def porting_guide_python_blocks():
    """The fenced blocks (language, text) of docs/porting-guide.md's Python chapter."""
    text = open(os.path.join(ROOT, "docs", "porting-guide.md")).read()
    start = text.index("## 11. From a NumPy loop to a Porta kernel (Python)")
    end = text.index("\n## ", start + 1)
    blocks, lang, lines = [], None, None
    for line in text[start:end].splitlines():
        if line.startswith("```"):
            if lines is None:
                lang, lines = line[3:].strip(), []
            else:
                blocks.append((lang, lines))
                lines = None
        elif lines is not None:
            lines.append(line)
    return blocks


def test_porting_guide_snippets_are_the_example():
    """Every Python snippet of the porting guide's Python chapter is a run of consecutive lines
    of examples/python/porting_heat.py (which test_example runs and checks), and the
    TranslationError it shows is the one that kernel raises."""
    path = os.path.join(ROOT, "examples", "python", "porting_heat.py")
    source = [s.rstrip() for s in open(path).read().splitlines()]
    blocks = porting_guide_python_blocks()
    python = [lines for lang, lines in blocks if lang == "python"]
    assert len(python) >= 12, len(python)
    for lines in python:
        lines = [s.rstrip() for s in lines]
        n = len(lines)
        assert any(source[k:k + n] == lines for k in range(len(source) - n + 1)), \
            "not in porting_heat.py:\n" + "\n".join(lines)
    text = [" ".join(lines) for lang, lines in blocks if lang == "text"]
    assert len(text) == 1
    r = subprocess.run(
        [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
         "import porting_heat as p\ntry:\n    p.bad_slice.check()\n"
         "except p.porta.TranslationError as e:\n    print(e)",
         os.path.dirname(path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    message = r.stdout.strip()
    assert message == os.path.join(os.path.dirname(path), text[0]), (message, text[0])
