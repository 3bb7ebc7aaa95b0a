"""Console entry point `arena-sim` (and `python -m arena_sim`): runs the bundled simulator with node."""

import sys

from . import NodeNotFoundError, run


def main() -> int:
    try:
        return run(sys.argv[1:])
    except NodeNotFoundError as err:
        sys.stderr.write("arena-sim: %s\n" % err)
        return 2


if __name__ == "__main__":
    sys.exit(main())
