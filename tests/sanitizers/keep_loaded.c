/* LD_PRELOAD shim for the sanitizer runs of the test suite (.ci/run, docs/reliability.md):
 * dlclose() does nothing, so the Vulkan loader's dlclose of the ICD and of layers at
 * vkDestroyInstance leaves them mapped. LeakSanitizer symbolizes stacks at process exit; a
 * leak allocated in a library that was unloaded by then shows as "<unknown module>", which no
 * suppression can name. With the library still mapped, Mesa's and the loader's own leaks are
 * suppressed by library name (tests/sanitizers/lsan.supp) and ours stay visible.
 *
 * Built without sanitizers: it is preloaded into every process of the run, instrumented or
 * not (ASan then needs ASAN_OPTIONS=verify_asan_link_order=0). */
#define PP_KEEP_LOADED_EXPORT __attribute__((visibility("default")))

PP_KEEP_LOADED_EXPORT int dlclose(void *handle);

int dlclose(void *handle)
{
	(void)handle;
	return 0;
}
