"""python3 -m umtrace.dask JOB [options] TRACES... (``--help``)."""
import sys

from ._cli import main

sys.exit(main())
