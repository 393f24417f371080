import sys
from pathlib import Path

# Under --import-mode=importlib a test folder is not on sys.path: the conformance files
# import each other (and python_runtime's adversarial_cases for the per-op baselines).
HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "python_runtime"))
