#!/usr/bin/python3
"""Checks tests/gtest_batch/launcher.py on tests/gtest_batch/cases.cpp: each case reports what it
reports alone, and a suite's cases share one process where that proves something.

  check.py LAUNCHER CASES_EXECUTABLE
"""

import os
import subprocess
import sys
import tempfile

launcher, executable = sys.argv[1], sys.argv[2]
failures = []


def case(name, env):
    run = subprocess.run(["/usr/bin/python3", launcher, executable, f"--gtest_filter={name}",
                          "--gtest_also_run_disabled_tests"], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, timeout=60, check=False)
    return run.returncode, run.stdout.decode()


def expect(what, condition, output=""):
    if not condition:
        failures.append(f"{what}\n{output}")


def processes(log):
    if not os.path.exists(log):
        return 0
    with open(log, encoding="utf-8") as lines:
        return sum(1 for _ in lines)


with tempfile.TemporaryDirectory() as work:
    log = os.path.join(work, "processes")
    env = dict(os.environ, ODM_GTEST_BATCH_DIR=os.path.join(work, "batches"), ODM_GTEST_BATCH_CASES_LOG=log,
               ODM_GTEST_BATCH_CASES_CRASH="1")
    os.mkdir(env["ODM_GTEST_BATCH_DIR"])

    rc, out = case("Passing.Two", env)
    expect("a passing case passes", rc == 0 and "[       OK ] Passing.Two" in out, out)
    rc, out = case("Passing.One", env)
    expect("its suite's other case passes", rc == 0 and "[       OK ] Passing.One" in out, out)
    rc, out = case("Passing.Skipped", env)
    expect("a skipped case says so with its reason", rc == 0 and "[  SKIPPED ] Passing.Skipped" in out
           and "the reason it is skipped" in out, out)
    expect("the three cases of a suite ran in one process", processes(log) == 1, str(processes(log)))

    rc, out = case("Failing.Fails", env)
    expect("a failing case fails, with its message", rc != 0 and "the failure's own message" in out, out)
    rc, out = case("Failing.Passes", env)
    expect("its suite's passing case passes", rc == 0, out)

    rc, out = case("Interfering.Second", env)
    expect("a case that fails only beside another is run alone, and passes", rc == 0
           and "failed in its suite's process" in out, out)

    before = processes(log)
    rc, out = case("Crashing.After", env)
    expect("a case after a crash is run alone", rc == 0 and "killed by signal" in out, out)
    rc, out = case("Crashing.Dies", env)
    expect("the crashing case crashes alone", rc != 0, out)
    rc, out = case("Crashing.Before", env)
    expect("a case before a crash is run alone too", rc == 0 and "killed by signal" in out, out)
    expect("one suite process, then each case alone", processes(log) - before == 4, str(processes(log) - before))

    rc, out = case("Reporting.Other", env)
    expect("a sanitizer report in a suite's process sends its cases to run alone",
           rc == 0 and "printed a sanitizer report" in out, out)

    plain = dict(env)
    del plain["ODM_GTEST_BATCH_DIR"]
    before = processes(log)
    rc, out = case("Passing.Two", plain)
    rc2, out2 = case("Passing.One", plain)
    expect("without ODM_GTEST_BATCH_DIR each case runs alone", rc == 0 and rc2 == 0 and processes(log) - before == 2,
           out + out2)

for failure in failures:
    print("FAILED:", failure)
print(f"{len(failures)} of the launcher's checks failed" if failures else "the launcher behaves")
sys.exit(1 if failures else 0)
