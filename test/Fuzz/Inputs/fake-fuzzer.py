"""Prints what libFuzzer prints, for run-fuzzer-report.test.

fake-fuzzer.py clean            a run that ends cleanly
fake-fuzzer.py crash DIR        a heap error, with its input saved in DIR
fake-fuzzer.py killed           killed by SIGKILL with no report (as by the OOM killer)
"""
import os
import signal
import sys

print("INFO: Seed: 1")
print("INFO: seed corpus: files: 3 min: 1b max: 4b total: 6b rss: 60Mb")
for i in range(200):
    print(f"#{i}\tNEW    cov: {i} ft: {i} corp: {i}/{i}b")
sys.stdout.flush()
mode = sys.argv[1]
if mode == "clean":
    print("Done 200 runs in 0 second(s)")
    print("stat::number_of_executed_units: 200")
elif mode == "crash":
    path = os.path.join(sys.argv[2], "crash-0123")
    with open(path, "wb") as f:
        f.write(b"f(\x00)")
    print("=================================================================")
    print("==4242==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1")
    print("    #0 0x55 in opal::parseSchema(std::string_view)")
    print(f"artifact_prefix='{sys.argv[2]}/'; Test unit written to {path}")
    sys.exit(1)
elif mode == "killed":
    os.kill(os.getpid(), signal.SIGKILL)
