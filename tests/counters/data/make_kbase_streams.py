#!/usr/bin/env python3
"""Writes the recorded kbase streams that test_kbase_replay.c replays: what /dev/mali0 answers,
in the exact binary layouts of the kernel's UAPI (little-endian), wrapped in records.

File: b"PPKB" u32 version=1, then records of u32 tag, u32 length, payload:
  1 VERSION   struct kbase_ioctl_version_check (u16 major, u16 minor), u8 csf, 3 pad
  2 PROPS     the GET_GPUPROPS blob (u32 key<<2|size code, value)...
  3 LEGACY_SETUP  u32 dump size (GET_BUFFER_SIZE)
  4 LEGACY_SAMPLE struct kbase_hwcnt_reader_metadata (32 bytes) + the dump (u32 counters)
  5 KINSTR_ENUM   struct prfcnt_enum_item[] (32 bytes each)
  6 KINSTR_MAPPING the mapped region: metadata lists (48-byte items) and u64 value arrays
  7 KINSTR_SAMPLE struct prfcnt_sample_access (u64 sequence, u64 offset of its list)

Counter values follow one formula the test knows:
  value(type, instance, index, sample) = (sample + 1) * 100 + type * 10000 + instance * 1000 + index
for indices 4..63; the header counters 0..3 hold 0xFFFFFFFF (not events: never summed) and a
shader core block of a core absent from the core mask holds 0xDEAD (skipped).
Usage: make_kbase_streams.py OUTDIR"""
import os
import struct
import sys

FE, TILER, MEMORY, SC = 0, 1, 2, 3
SHADER_PRESENT = 0b1011  # cores 0, 1, 3: 3 cores, 4 shader blocks in a legacy dump
L2_SLICES = 2
L2_FEATURES = 7 << 24    # log2 of the bus width: 128 bits


def value(t, inst, i, s):
    return (s + 1) * 100 + t * 10000 + inst * 1000 + i


def record(tag, payload):
    return struct.pack("<II", tag, len(payload)) + payload


def prop(key, size_code, v):
    fmt = {0: "<B", 1: "<H", 2: "<I", 3: "<Q"}[size_code]
    return struct.pack("<I", key << 2 | size_code) + struct.pack(fmt, v)


def props():
    return (prop(1, 2, 0x9093) + prop(55, 2, 0x90930010) + prop(25, 3, SHADER_PRESENT) +
            prop(15, 0, L2_SLICES) + prop(29, 2, L2_FEATURES | 0x07120206) + prop(18, 2, 2048))


def legacy():
    out = b"PPKB" + struct.pack("<I", 1)
    out += record(1, struct.pack("<HHB3x", 11, 20, 0))
    out += record(2, props())
    blocks = [(FE, 0), (TILER, 0)] + [(MEMORY, k) for k in range(L2_SLICES)]
    blocks += [(SC, k) for k in range(4)]
    dump_size = len(blocks) * 64 * 4
    out += record(3, struct.pack("<I", dump_size))
    # a baseline dump (sample -1, whose counts began at an unknown time) and three more
    times = [1000000, 2000000, 3500000, 5000000]
    for s, t in enumerate(times):
        sample = s - 1
        dump = b""
        sc_instance = 0
        for (btype, inst) in blocks:
            absent = btype == SC and not (SHADER_PRESENT >> inst) & 1
            words = []
            for i in range(64):
                if i < 4:
                    words.append(0xFFFFFFFF)
                elif absent:
                    words.append(0xDEAD)
                else:
                    words.append(value(btype, sc_instance if btype == SC else inst, i, sample))
            if btype == SC and not absent:
                sc_instance += 1
            dump += struct.pack("<64I", *words)
        md = struct.pack("<QIIQQ", t, 0, s % 16, 1000 * (sample + 1), 900 * (sample + 1))
        out += record(4, md + dump)
    return out


def kinstr():
    out = b"PPKB" + struct.pack("<I", 1)
    out += record(1, struct.pack("<HHB3x", 11, 40, 0))
    out += record(2, props())
    items = b""
    for (btype, n) in [(FE, 1), (TILER, 1), (MEMORY, L2_SLICES), (SC, 3)]:
        items += struct.pack("<HH4xBB2xHHQQ", 0 << 12 | 0, 0, btype, 0, n, 64, 2**64 - 1, 2**64 - 1)
    items += struct.pack("<HH4xII16x", 0 << 12 | 2, 0, 2, 0)  # sample info: 2 clock domains
    items += struct.pack("<HH4x24x", 0, 0)                      # the NONE sentinel
    out += record(5, items)
    blocks = [(FE, 0), (TILER, 0)] + [(MEMORY, k) for k in range(L2_SLICES)] + [(SC, k) for k in range(3)]
    samples = [(0, 2000000, 3000000), (1, 3000000, 4500000)]
    item = 48
    list_len = (2 + len(blocks) + 1) * item
    values_len = len(blocks) * 64 * 8
    per_sample = list_len + values_len
    mapping = b""
    for (s, t0, t1) in samples:
        base = len(mapping)
        lst = struct.pack("<HH4xQQQQII", 2 << 12 | 0, 0, t0, t1, s + 1, 0, 0, 0)
        lst += struct.pack("<HH4xIIQQQQ", 2 << 12 | 1, 0, 2, 0, 1000 * (s + 1), 900 * (s + 1), 0, 0)
        vals = b""
        for n, (btype, inst) in enumerate(blocks):
            off = base + list_len + n * 64 * 8
            lst += struct.pack("<HH4xBBBxIII24x", 2 << 12 | 2, 0, btype, inst, 0, 1 | 4 | 16, off, 0)
            words = [0xFFFFFFFF if i < 4 else value(btype, inst, i, s) for i in range(64)]
            vals += struct.pack("<64Q", *words)
        lst += struct.pack("<HH4x40x", 0, 0)
        assert len(lst) == list_len
        mapping += lst + vals
        assert len(mapping) == base + per_sample
    out += record(6, mapping)
    for n, (s, _, _) in enumerate(samples):
        out += record(7, struct.pack("<QQ", s + 1, n * per_sample))
    return out


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(outdir, "kbase_legacy.bin"), "wb") as f:
        f.write(legacy())
    with open(os.path.join(outdir, "kbase_kinstr.bin"), "wb") as f:
        f.write(kinstr())


if __name__ == "__main__":
    main()
