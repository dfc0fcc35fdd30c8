#pragma once
/* Run-time capture triggers, process-wide and API-neutral (docs/settings.md, "Capture
 * windows"): a signal (SIGUSR2) that toggles capturing, and a trigger file whose creation
 * starts a window of frames. Both only count events here; the frame clocks
 * (attribution/model/attr_frame.c) look at the counts at frame boundaries, so a window always
 * starts and ends between two frames and every device sees every trigger.
 *
 * The signal handler does one atomic increment and nothing else (async-signal-safe). */
#include <stdbool.h>
#include <stdint.h>

#define PP_CAPTURE_SIGNAL SIGUSR2
/* Installs the capture signal's handler if the process has none of its own (disposition
 * SIG_DFL or SIG_IGN, or the handler of passprobe's other library, which ours then calls).
 * Returns 0, -EBUSY when the application handles the signal itself (the signal is then left
 * alone: the trigger file still works), or -errno. Once per library; later calls return the
 * first result. */
int pp_capture_signal_install(void);

/* How many capture signals arrived so far (each one toggles). */
uint64_t pp_capture_signal_count(void);

/* How many times the trigger file at `path` was found so far; looks (one stat) every call,
 * which the frame clocks make once per frame. A file found counts once and is removed, so
 * creating it again triggers again; one that cannot be removed counts once until it changes
 * (inode or modification time). path "" or NULL: 0. */
uint64_t pp_capture_trigger_count(const char *path);
