#!/usr/bin/env python3
"""check_copy_blocks.py PRINTER VULKAN_CORE_H FORMAT_TRAITS_HPP: the texel blocks passprobe
counts copy bytes with (intercept/vulkan/vk_formats.c) against Vulkan-Headers' own generated
tables (vulkan_format_traits.hpp: blockSize, blockExtent, planeCount, planeCompatibleFormat),
for every VkFormat the headers define. Depth/stencil formats are copied one aspect at a time,
which the traits do not describe: those are checked against the specification's sizes
("Copying Data Between Buffers and Images": D16 2 bytes, X8_D24/D24 and D32 4, S8 1)."""
import re
import subprocess
import sys

printer, core_h, traits = sys.argv[1:4]


def key(name):
    return name.replace("_", "").lower()


formats = {}
for m in re.finditer(r"^\s+VK_FORMAT_(\w+) = (\d+),", open(core_h).read(), re.M):
    if m.group(1) != "UNDEFINED":
        formats[m.group(1)] = int(m.group(2))

text = open(traits).read()


def function(name):
    start = text.index(f" {name}( ")
    end = text.find("VULKAN_HPP_INLINE", start)
    return text[start:end]


size = {k: int(v) for k, v in re.findall(r"Format::e(\w+): return (\d+);", function("blockSize"))}
extent = {k: (int(a), int(b)) for k, a, b in
          re.findall(r"Format::e(\w+): return \{ \{ (\d+), (\d+), \d+ \} \};", function("blockExtent"))}
planes = {}
for fmt, body in re.findall(r"case VULKAN_HPP_NAMESPACE::Format::e(\w+):\s*switch \( plane \)\s*\{(.*?)default",
                            function("planeCompatibleFormat"), re.S):
    planes[fmt] = [p for _, p in sorted(re.findall(r"case (\d+): return VULKAN_HPP_NAMESPACE::Format::e(\w+);", body))]
size = {key(k): v for k, v in size.items()}
extent = {key(k): v for k, v in extent.items()}
planes = {key(k): [key(p) for p in v] for k, v in planes.items()}
if len(size) < 200 or len(planes) < 20:
    print(f"FAIL: {traits}: read {len(size)} block sizes and {len(planes)} multi-planar formats; expected more")
    sys.exit(1)

depth_stencil = {"D16_UNORM": (2, None), "X8_D24_UNORM_PACK32": (4, None), "D32_SFLOAT": (4, None),
                 "S8_UINT": (None, 1), "D16_UNORM_S8_UINT": (2, 1), "D24_UNORM_S8_UINT": (4, 1),
                 "D32_SFLOAT_S8_UINT": (4, 1)}

out = subprocess.run([printer], input="".join(f"{v}\n" for v in formats.values()), capture_output=True,
                     text=True, check=True).stdout
got = {}
for line in out.splitlines():
    w = line.split()
    got[(int(w[0]), w[1])] = None if w[2] == "-" else (int(w[2]), int(w[3]), int(w[4]))

bad = 0
for name, value in formats.items():
    k = key(name)
    want = {a: None for a in ("color", "depth", "stencil", "plane0", "plane1", "plane2")}
    if name in depth_stencil:
        d, s = depth_stencil[name]
        want["depth"] = (d, 1, 1) if d else None
        want["stencil"] = (s, 1, 1) if s else None
    elif k in planes:
        for i, p in enumerate(planes[k]):
            want[f"plane{i}"] = (size[p], *extent.get(p, (1, 1)))
    elif k in size:
        want["color"] = (size[k], *extent.get(k, (1, 1)))
    else:
        print(f"FAIL: VK_FORMAT_{name} ({value}) has no block size in {traits}")
        bad += 1
        continue
    for aspect, w in want.items():
        g = got.get((value, aspect), "missing")
        if g != w:
            print(f"FAIL: VK_FORMAT_{name} {aspect}: passprobe {g}, expected {w} (bytes, width, height)")
            bad += 1
if bad:
    sys.exit(1)
print(f"{len(formats)} formats, 6 aspects each: the same blocks as {traits}")
