#!/bin/bash
# After the examples ran: checks with another driver (Debian's python3-pymongo) what they
# left in the server named by MONGODB_URI (database $ODM_EXAMPLES_DB, else odm_examples).
#   MONGODB_URI=mongodb://... tests/crosscheck/run.sh
# The opposite direction (pymongo writes, odm reads) is an integration test:
# tests/crosscheck/pymongo_itest.cpp.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ -z "${MONGODB_URI:-}" ]]; then
  echo "crosscheck: MONGODB_URI must name the server the examples wrote to" >&2
  exit 2
fi
echo "== crosscheck: the examples' documents as pymongo reads them"
exec /usr/bin/python3 "$here/check_examples.py" "$@"
