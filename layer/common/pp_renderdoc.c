/* RenderDoc's in-application API (pp_renderdoc.h). */
#include "pp_renderdoc.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "pp_log.h"

/* RENDERDOC_API_1_x is a table of function pointers; each version appends to it. The
 * entries passprobe calls, by their index in renderdoc_app.h's struct. */
enum {
	RDOC_GET_API_VERSION = 0,
	RDOC_SET_CAPTURE_PATH = 11,
	RDOC_GET_NUM_CAPTURES = 13,
	RDOC_GET_CAPTURE = 14,
	RDOC_START_FRAME_CAPTURE = 19,
	RDOC_IS_FRAME_CAPTURING = 20,
	RDOC_END_FRAME_CAPTURE = 21,
};
/* eRENDERDOC_API_Version_1_0_0: every entry above is in the first version's table. */
#define RDOC_API_1_0_0 10000

typedef int (*rdoc_get_api_fn)(int version, void **out);

static void **api;
static bool found;
static char version[32];
static char library[512];
static pthread_once_t find_once = PTHREAD_ONCE_INIT;
static __thread bool calling;

static void find(void)
{
	/* By its soname: the Vulkan loader opens layers RTLD_LOCAL, so RTLD_DEFAULT would not
	 * see it; RTLD_NOLOAD never loads it where the user did not. */
	void *lib = dlopen("librenderdoc.so", RTLD_NOW | RTLD_NOLOAD);
	if (!lib)
		return;
	rdoc_get_api_fn get = (rdoc_get_api_fn)dlsym(lib, "RENDERDOC_GetAPI");
	void **table = NULL;
	if (!get || !get(RDOC_API_1_0_0, (void **)&table) || !table) {
		pp_log_once(PP_LOG_WARN, "RenderDoc's library is loaded but did not answer RENDERDOC_GetAPI; "
					 "frames it captures are not marked in passprobe's report");
		dlclose(lib);
		return;
	}
	int major = 0, minor = 0, patch = 0;
	((void (*)(int *, int *, int *))table[RDOC_GET_API_VERSION])(&major, &minor, &patch);
	snprintf(version, sizeof(version), "%d.%d.%d", major, minor, patch);
	Dl_info info;
	if (dladdr((void *)get, &info) && info.dli_fname)
		snprintf(library, sizeof(library), "%s", info.dli_fname);
	/* The handle stays open: RenderDoc stays loaded as long as passprobe may call it. */
	api = table;
	__atomic_store_n(&found, true, __ATOMIC_RELEASE);
	pp_log(PP_LOG_INFO, "RenderDoc %s found in the process (%s): frames it captures are measured in full",
	       version, library);
}

bool pp_renderdoc_find(void)
{
	pthread_once(&find_once, find);
	return pp_renderdoc_present();
}

bool pp_renderdoc_present(void)
{
	return __atomic_load_n(&found, __ATOMIC_ACQUIRE);
}

const char *pp_renderdoc_version(void)
{
	return pp_renderdoc_present() ? version : "";
}

const char *pp_renderdoc_library(void)
{
	return pp_renderdoc_present() ? library : "";
}

bool pp_renderdoc_capturing(void)
{
	return pp_renderdoc_present() && ((uint32_t(*)(void))api[RDOC_IS_FRAME_CAPTURING])() != 0;
}

uint32_t pp_renderdoc_captures(void)
{
	return pp_renderdoc_present() ? ((uint32_t(*)(void))api[RDOC_GET_NUM_CAPTURES])() : 0;
}

bool pp_renderdoc_capture(uint32_t i, char *path, size_t len, uint64_t *timestamp)
{
	if (!pp_renderdoc_present() || !len)
		return false;
	typedef uint32_t (*get_capture_fn)(uint32_t, char *, uint32_t *, uint64_t *);
	get_capture_fn get = (get_capture_fn)api[RDOC_GET_CAPTURE];
	/* Asked for the length first: RenderDoc writes the whole path into the buffer given. */
	uint32_t need = 0;
	if (!get(i, NULL, &need, NULL) || need == 0)
		return false;
	if (need > len) {
		pp_log_once(PP_LOG_WARN, "a RenderDoc capture path is longer than %zu bytes; its report entry names none",
			    len - 1);
		path[0] = '\0';
		return get(i, NULL, NULL, timestamp) != 0;
	}
	return get(i, path, &need, timestamp) != 0;
}

void pp_renderdoc_capture_path_set(const char *path_template)
{
	if (pp_renderdoc_present())
		((void (*)(const char *))api[RDOC_SET_CAPTURE_PATH])(path_template);
}

void pp_renderdoc_start(void *device)
{
	if (!pp_renderdoc_present())
		return;
	calling = true;
	((void (*)(void *, void *))api[RDOC_START_FRAME_CAPTURE])(device, NULL);
	calling = false;
}

bool pp_renderdoc_end(void *device)
{
	if (!pp_renderdoc_present())
		return false;
	calling = true;
	uint32_t ok = ((uint32_t(*)(void *, void *))api[RDOC_END_FRAME_CAPTURE])(device, NULL);
	calling = false;
	return ok != 0;
}

bool pp_renderdoc_calling(void)
{
	return calling;
}
