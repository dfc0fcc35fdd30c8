#pragma once
/* The process-wide set-up every front end makes once, before its first measurement: the Vulkan
 * layer (layer/vulkan/layer_init.c) at its first instance, the GLES shim
 * (intercept/gles/gles_init.c) at the first context made current. One function, so what one
 * front end gains at start-up (the capture signal, the CPU counter events) the other gets too. */

struct pp_settings;

/* Reads the settings into *settings (environment, vk_layer_settings.txt, defaults), sets the
 * log level, chooses the CPU counter events (before any thread takes a snapshot: configuring
 * closes every thread's counters) and, with capture_signal on, installs the SIGUSR2 handler
 * where the program has none, and looks for RenderDoc in the process (pp_renderdoc.h). Never
 * fails: what cannot be set up is logged and left off. */
void pp_process_setup(struct pp_settings *settings);
