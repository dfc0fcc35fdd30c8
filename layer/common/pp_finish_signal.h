#pragma once
/* The outputs finished when the process is asked to stop (finish_on_signal, docs/settings.md):
 * SIGINT (Ctrl-C) and SIGTERM (kill, timeout, a supervisor, Chromium's browser ending its GPU
 * process) end a program without its exit handlers, so without passprobe's last report.json
 * and with trace.json unclosed. Where such a signal would simply end the process (disposition
 * SIG_DFL), a handler asks passprobe's threads to finish the outputs and returns: the ending
 * thread has the finishing thread run `finish`, waits for it at most PP_FINISH_WAIT_MS, puts
 * the default disposition back and raises the signal again: the process ends as it would have,
 * killed by that signal, its outputs complete.
 *
 * The handler itself only writes a byte to a pipe (async-signal-safe) and never waits: the
 * thread it interrupted may hold a lock the finish takes (the sinks' queue lock while a frame
 * is handed over, the diagnostics' lock), so that thread runs on, its calls restarted
 * (SA_RESTART), until the process ends. passprobe's threads, like all of its threads, block
 * all signals so that none meant for the application lands there. A signal the application
 * handles or ignores is left alone, as is one whose handler it installs later (it replaces
 * ours). The Vulkan layer and the GLES shim each have a copy: whichever installs second finds
 * the other's handler in place and calls it after finishing its own outputs; the last raises
 * the signal. */

#include <signal.h>

#define PP_FINISH_WAIT_MS 5000

/* Installs the handlers (once per library; later calls return the first result) with
 * `finish` as what the finishing thread runs. Returns how many of SIGINT and SIGTERM got
 * ours (0 when the application handles or ignores both), or -errno. */
int pp_finish_signal_install(void (*finish)(void));

/* Blocks every signal in the calling thread, the mask to restore in *old: around
 * pthread_create, so that a thread of passprobe's never takes a signal. */
void pp_finish_signal_block_all(sigset_t *old);
void pp_finish_signal_restore(const sigset_t *old);
