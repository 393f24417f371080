"""`python -m opgen` runs the `opgen` command line."""

from opgen.cli import main

main()
