#pragma once
/* RenderDoc's in-application API (renderdoc_app.h, RENDERDOC_API_1_x), where RenderDoc's
 * library is already in the process: its Vulkan capture layer above passprobe, or preloaded
 * for OpenGL ES. passprobe never loads RenderDoc itself (dlopen with RTLD_NOLOAD).
 * docs/frame-debuggers.md.
 *
 * API-neutral: the Vulkan layer passes its instance's dispatch key as RenderDoc's "device
 * pointer" (RENDERDOC_DEVICEPOINTER_FROM_VKINSTANCE), the GLES shim its EGL context. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Looks for RenderDoc once per process (later calls only read the answer): true when its
 * library is loaded and answered RENDERDOC_GetAPI. Thread-safe. */
bool pp_renderdoc_find(void);

/* Whether pp_renderdoc_find found it. Lock-free; false before the first find. */
bool pp_renderdoc_present(void);

/* "1.6.0": the API version RenderDoc reports; "" when not present. */
const char *pp_renderdoc_version(void);
/* The path of RenderDoc's library; "" when not present. */
const char *pp_renderdoc_library(void);

/* RenderDoc is capturing a frame now (IsFrameCapturing). False when not present. */
bool pp_renderdoc_capturing(void);

/* Captures RenderDoc has written in this process so far (GetNumCaptures). */
uint32_t pp_renderdoc_captures(void);

/* Capture i (0-based, < pp_renderdoc_captures()): its file and RenderDoc's timestamp of it
 * (seconds since the Unix epoch). False when RenderDoc has no such capture. */
bool pp_renderdoc_capture(uint32_t i, char *path, size_t len, uint64_t *timestamp);

/* Where RenderDoc writes its captures: a path template, RenderDoc appending
 * "_frame<N>.rdc" (SetCaptureFilePathTemplate). */
void pp_renderdoc_capture_path_set(const char *path_template);

/* Starts / ends a frame capture of `device` (StartFrameCapture / EndFrameCapture). RenderDoc
 * records and replays commands of its own while it does, which reach passprobe through the
 * layers below it: pp_renderdoc_calling() says so meanwhile. pp_renderdoc_end returns whether
 * RenderDoc wrote a capture. */
void pp_renderdoc_start(void *device);
bool pp_renderdoc_end(void *device);

/* This thread is inside one of passprobe's calls into RenderDoc: whatever reaches passprobe
 * meanwhile is RenderDoc's own work, not the application's. */
bool pp_renderdoc_calling(void);
