#!/usr/bin/python3
"""Runs a GoogleTest suite in one process, and reports each of its tests to CTest apart.

CTest runs every GoogleTest case as a process of its own (gtest_discover_tests). Under
AddressSanitizer a process costs about 0.3 s to start, most of the time of a typical test,
so scripts/test.sh runs the sanitizer tree's tests through this launcher (the test
executables' CROSSCOMPILING_EMULATOR when ODM_GTEST_BATCHES is ON). CTest still runs one
test per case, with its own result: the first case of a suite to start runs the whole suite
once, recording each case's output and verdict, and every case of the suite then reports
its own. What a case reports is what it would have reported alone, because:
  - a case that fails in the suite's process is run again alone, and that run decides;
  - a suite's process whose output holds a sanitizer report, that is killed by a signal or
    by the time limit, or that exits with an error although none of its cases failed (a
    leak found at exit), proves nothing: every case of the suite then runs alone;
  - a case the suite's process did not finish runs alone.
Without ODM_GTEST_BATCH_DIR (a fresh directory per CTest run: results are kept there), or
for anything but one named case (test discovery, a pattern), it runs the executable as
given, so running CTest by hand is unchanged.

  ODM_GTEST_BATCH_DIR      where the suites' results are kept (unset: no batches)
  ODM_GTEST_BATCH_SECONDS  the time limit of a suite's process (default 60)
"""

import fcntl
import hashlib
import json
import os
import re
import subprocess
import sys

SANITIZER_REPORT = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer|ThreadSanitizer)|runtime error:")
STARTED = re.compile(r"^\[ RUN      \] (\S+)$")
ENDED = re.compile(r"^\[ +(OK|FAILED|SKIPPED) +\] (\S+) \(\d+ ms\)$")
VERDICTS = {"OK": "passed", "FAILED": "failed", "SKIPPED": "skipped"}


def run_alone(executable, args, note=None):
    if note:
        print(f"gtest_batch: {note}; running this case alone", flush=True)
    os.execv(executable, [executable] + args)


def run_suite(executable, args, suite, seconds):
    """The suite's cases in one process: {case: {"verdict": ..., "output": ...}}, or {} when
    the process proves nothing (see the module's text)."""
    others = [a for a in args if not a.startswith("--gtest_filter=") and a != "--gtest_also_run_disabled_tests"]
    command = [executable, f"--gtest_filter={suite}.*"] + others
    try:
        finished = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=seconds,
                                  check=False)
    except subprocess.TimeoutExpired:
        return {}, f"the suite's process took more than {seconds} s"
    output = finished.stdout.decode("utf-8", "replace")
    if finished.returncode < 0:
        return {}, f"the suite's process was killed by signal {-finished.returncode}"
    if SANITIZER_REPORT.search(output):
        return {}, "the suite's process printed a sanitizer report"
    results, case, lines = {}, None, []
    for line in output.splitlines(keepends=True):
        text = line.rstrip("\n")
        started = STARTED.match(text)
        if started:
            case, lines = started.group(1), [line]
            continue
        if case is None:
            continue
        lines.append(line)
        ended = ENDED.match(text)
        if ended and ended.group(2) == case:
            results[case] = {"verdict": VERDICTS[ended.group(1)], "output": "".join(lines)}
            case = None
    if finished.returncode != 0 and all(r["verdict"] != "failed" for r in results.values()):
        return {}, f"the suite's process exited with {finished.returncode} and no case failed"
    return results, None


def main():
    executable, args = sys.argv[1], sys.argv[2:]
    directory = os.environ.get("ODM_GTEST_BATCH_DIR")
    filters = [a for a in args if a.startswith("--gtest_filter=")]
    if not directory or len(filters) != 1 or "--gtest_list_tests" in args:
        run_alone(executable, args)
    case = filters[0].split("=", 1)[1]
    if any(c in case for c in "*?:-") or "." not in case:
        run_alone(executable, args)
    suite = case.rsplit(".", 1)[0]
    seconds = float(os.environ.get("ODM_GTEST_BATCH_SECONDS", "60"))

    built = os.stat(executable)
    others = " ".join(a for a in args if not a.startswith("--gtest_filter="))
    key = f"{os.path.realpath(executable)}\0{built.st_mtime_ns}\0{built.st_size}\0{suite}\0{others}"
    path = os.path.join(directory, hashlib.sha1(key.encode()).hexdigest())
    with open(path + ".lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other cases of the suite wait for its run
        if not os.path.exists(path + ".json"):
            results, why = run_suite(executable, args, suite, seconds)
            with open(path + ".tmp", "w", encoding="utf-8") as out:
                json.dump({"results": results, "why": why}, out)
            os.replace(path + ".tmp", path + ".json")
        with open(path + ".json", encoding="utf-8") as kept:
            batch = json.load(kept)

    result = batch["results"].get(case)
    if batch["why"]:
        run_alone(executable, args, batch["why"])
    if result is None:
        run_alone(executable, args, "the suite's process did not finish this case")
    if result["verdict"] == "failed":
        run_alone(executable, args, "this case failed in its suite's process")
    sys.stdout.write(result["output"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
