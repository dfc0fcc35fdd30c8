#!/usr/bin/env python3
"""frame_profile.py on made-up perf reports whose answer is known: each thread and object falls
in its part (passprobe's library in the application's threads, its writer in user space and in
the kernel, idle, the machine's other threads), and a part's time a frame is the difference
between the long and the short run over the frames between them."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def report(app, app_k, pp, writer, writer_k, idle, other):
    # perf report --sort comm,dso -F period,comm,dso -q: ns of CPU time; an object's name may
    # hold spaces ("[JIT] tid 12").
    return "\n".join([
        f"  {app // 2}  bench_api        libvulkan_lvp.so",
        f"  {app - app // 2}  bench_api        [JIT] tid 1262",
        f"  {app_k}  bench_api        [kernel.kallsyms]",
        f"  {pp}  bench_api        libVkLayer_passprobe.so",
        f"  {writer}  passprobe-out    libVkLayer_passprobe.so",
        f"  {writer_k}  passprobe-out    [kernel.kallsyms]",
        f"  {idle}  swapper          [kernel.kallsyms]",
        f"  {other}  kworker/0:1H-kb  [kernel.kallsyms]",
        "",
        "#  a comment line perf may print",
    ]) + "\n"


def main():
    frames = (1000, 3000)
    with tempfile.TemporaryDirectory() as d:
        # Per frame, in ns: without passprobe app 1,000,000, kernel 10,000; with it app 1,010,000,
        # kernel 14,000, its code 20,000, writer 6,000 + 8,000. Start-up and exit (the fixed
        # parts) differ between runs and must cancel.
        for run, fixed in (("none", 50_000_000), ("pp", 90_000_000)):
            for name, n in (("short", frames[0]), ("long", frames[1])):
                with_pp = run == "pp"
                text = report(app=fixed + n * (1_010_000 if with_pp else 1_000_000),
                              app_k=n * (14_000 if with_pp else 10_000),
                              pp=fixed // 10 + n * 20_000 if with_pp else 0,
                              writer=n * 6_000 if with_pp else 0,
                              writer_k=n * 8_000 if with_pp else 0,
                              idle=1_000_000, other=250_000)
                with open(f"{d}/{run}_{name}.txt", "w") as f:
                    f.write(text)
                with open(f"{d}/{run}_{name}.line", "w") as f:
                    f.write(f"frames={n} median_frame_ns=1 mean_frame_ns={1_100_000 if with_pp else 1_000_000}\n")
        out = subprocess.run([sys.executable, f"{HERE}/frame_profile.py", d, str(frames[0]), str(frames[1])],
                             capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        parts = line.rsplit(None, 3)
        if len(parts) == 4:
            try:
                rows[parts[0]] = tuple(float(x) for x in parts[1:])
            except ValueError:
                pass
    want = {
        "application's threads, user space (program, loader, driver, libc)": (1000.0, 1010.0, 10.0),
        "application's threads, kernel": (10.0, 14.0, 4.0),
        "passprobe's code in the application's threads": (0.0, 20.0, 20.0),
        "passprobe's writer thread, user space": (0.0, 6.0, 6.0),
        "passprobe's writer thread, kernel": (0.0, 8.0, 8.0),
        "CPU idle": (0.0, 0.0, 0.0),
        "other threads of the machine": (0.0, 0.0, 0.0),
        "all of the CPU": (1010.0, 1058.0, 48.0),
    }
    for label, values in want.items():
        assert label in rows, f"no row '{label}' in:\n{out}"
        assert all(abs(a - b) < 0.01 for a, b in zip(rows[label], values)), f"{label}: {rows[label]} != {values}\n{out}"
    assert "passprobe's own parts (its code, its writer): 34.00 us a frame, 3.4% of the frame without it" in out, out
    assert "ratio of the CPU's time a frame, with / without: 1.048" in out, out
    assert "(ratio 1.100)" in out, out
    assert "note:" not in out, out
    print("frame_profile.py: every part where it belongs")


if __name__ == "__main__":
    main()
