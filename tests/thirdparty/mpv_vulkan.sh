#!/bin/bash
# mpv_vulkan.sh MPV-ARGS...: mpv drawing through Vulkan (libplacebo) on lavapipe.
# libplacebo passes over software devices unless one is named, and lavapipe's name carries
# its LLVM version ("llvmpipe (LLVM 15.0.6, 256 bits)"), so the name is read from vulkaninfo
# on this machine rather than written into the test: with no layer (vulkaninfo is not what is
# measured) and no display (it needs none to list devices). docs/testing-integration.md.
set -u
info=$(env -u DISPLAY -u WAYLAND_DISPLAY -u VK_INSTANCE_LAYERS -u VK_LOADER_LAYERS_ENABLE -u LD_PRELOAD \
	vulkaninfo --summary 2>&1)
name=$(sed -n 's/^[[:space:]]*deviceName[[:space:]]*= *//p' <<<"$info" | grep -m1 '^llvmpipe')
if [ -z "$name" ]; then
	echo "mpv_vulkan.sh: vulkaninfo --summary lists no llvmpipe (lavapipe) device:" >&2
	echo "$info" >&2
	exit 1
fi
exec mpv --no-config --vo=gpu --gpu-api=vulkan --gpu-context=x11vk "--vulkan-device=$name" "$@"
