/* RenderDoc's OpenGL ES hooks in the process (egl_rdoc.h): where its library is, whether it
 * or the shim comes first in the symbol search order, its entry points. */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "egl_rdoc.h"
#include "egl_real.h"

bool pp_egl_rdoc_maybe = true;
static enum pp_egl_rdoc_mode mode; /* 0 until found */
static void *lib_handle;
static pthread_once_t handle_once = PTHREAD_ONCE_INIT;
static uint16_t families[PP_EGL_NHOOKED];
static void *entries[PP_EGL_NHOOKED];
static pthread_once_t find_once = PTHREAD_ONCE_INIT;
/* An entry looked up and not found (not a function's address). */
#define NO_ENTRY ((void *)&entries)

struct mapping {
	uintptr_t lo, hi; /* both 0 when not found */
	unsigned seq;     /* its place among the loaded objects, in load order */
	char path[4096];
};
static struct mapping lib, shim; /* RenderDoc's library (where it hooks GL), the shim's */

static void mapping_take(struct mapping *m, const struct dl_phdr_info *info)
{
	size_t n = strlen(info->dlpi_name);
	if (n >= sizeof(m->path))
		return;
	memcpy(m->path, info->dlpi_name, n + 1);
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	if (hi > lo) {
		m->lo = lo;
		m->hi = hi;
	}
}

static bool within(const void *p, const struct mapping *m)
{
	return (uintptr_t)p - m->lo < m->hi - m->lo;
}

/* RenderDoc's library by its file name, as RenderDoc itself and pp_renderdoc.c name it; the
 * shim's by an address of its own. dl_iterate_phdr walks the objects in load order, which is
 * the order of the global symbol search for the preloaded ones. */
struct mappings {
	struct mapping rdoc, shim;
	unsigned seen; /* objects walked so far */
};

static int find_mappings(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct mappings *found = data;
	unsigned seq = found->seen++;
	const char *name = info->dlpi_name ? info->dlpi_name : "";
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (!strncmp(base, "librenderdoc.so", 15)) {
		mapping_take(&found->rdoc, info);
		found->rdoc.seq = seq;
	}
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr, self = (uintptr_t)find_mappings;
		if (ph->p_type == PT_LOAD && self >= a && self < a + ph->p_memsz) {
			mapping_take(&found->shim, info);
			found->shim.seq = seq;
		}
	}
	return 0;
}

static void families_find(void)
{
	static const char *const suffixes[] = { "EXT", "OES", "KHR", "ARB" };
	for (unsigned id = 0; id < PP_EGL_NHOOKED; id++) {
		families[id] = (uint16_t)id;
		const char *name = pp_egl_real_hook_name(id);
		size_t n = strlen(name);
		for (unsigned s = 0; n > 3 && s < sizeof(suffixes) / sizeof(suffixes[0]); s++) {
			if (strcmp(name + n - 3, suffixes[s]) != 0)
				continue;
			for (unsigned k = 0; k < PP_EGL_NHOOKED; k++) {
				const char *other = pp_egl_real_hook_name(k);
				if (strlen(other) == n - 3 && !strncmp(other, name, n - 3))
					families[id] = (uint16_t)k;
			}
		}
	}
}

static void find(void)
{
	enum pp_egl_rdoc_mode found = PP_EGL_RDOC_NONE;
	static struct mappings m; /* large: not on the stack of whichever hook asks first */
	/* Loaded at all; then its exports in the global scope (preloaded): RenderDoc's Vulkan
	 * layer, which the Vulkan loader opens privately, hooks no GL call. Nothing here may load
	 * or open a library: RenderDoc's dlopen looks entry points up, and those lookups ask
	 * this. */
	dl_iterate_phdr(find_mappings, &m);
	if (m.rdoc.hi && within(pp_egl_real_dlsym(RTLD_DEFAULT, "RENDERDOC_GetAPI"), &m.rdoc)) {
		/* Which of the two an application's call of a name both export reaches first (another
		 * library before both, exporting a few of those names, passes them on to the next). */
		found = m.shim.hi && m.shim.seq < m.rdoc.seq ? PP_EGL_RDOC_ABOVE : PP_EGL_RDOC_FIRST;
		lib = m.rdoc;
		shim = m.shim;
		families_find();
	}
	if (found == PP_EGL_RDOC_NONE)
		__atomic_store_n(&pp_egl_rdoc_maybe, false, __ATOMIC_RELAXED);
	__atomic_store_n(&mode, found, __ATOMIC_RELEASE);
}

/* A handle for dlsym must come from dlopen: the C library's, once, outside find() (RenderDoc's
 * dlopen looks entry points up). Kept open: RenderDoc stays loaded while the shim calls it. */
static void handle_open(void)
{
	lib_handle = pp_egl_real_dlopen(lib.path, RTLD_LAZY | RTLD_NOLOAD);
}

enum pp_egl_rdoc_mode pp_egl_rdoc_mode(void)
{
	enum pp_egl_rdoc_mode m = __atomic_load_n(&mode, __ATOMIC_ACQUIRE);
	if (m)
		return m;
	pthread_once(&find_once, find);
	return __atomic_load_n(&mode, __ATOMIC_ACQUIRE);
}

bool pp_egl_rdoc_in(const void *p)
{
	if (!__atomic_load_n(&mode, __ATOMIC_ACQUIRE))
		pp_egl_rdoc_mode();
	return within(p, &lib);
}

bool pp_egl_rdoc_in_shim(const void *p)
{
	if (!__atomic_load_n(&mode, __ATOMIC_ACQUIRE))
		pp_egl_rdoc_mode();
	return within(p, &shim);
}

void *pp_egl_rdoc_entry(unsigned id)
{
	if (id >= PP_EGL_NHOOKED || pp_egl_rdoc_mode() == PP_EGL_RDOC_NONE)
		return NULL;
	void *p = __atomic_load_n(&entries[id], __ATOMIC_RELAXED);
	if (!p) {
		pthread_once(&handle_once, handle_open);
		/* dlsym on a handle searches its dependencies too: only RenderDoc's own export. */
		p = lib_handle ? pp_egl_real_dlsym(lib_handle, pp_egl_real_hook_name(id)) : NULL;
		if (!p || !pp_egl_rdoc_in(p))
			p = NO_ENTRY;
		__atomic_store_n(&entries[id], p, __ATOMIC_RELAXED);
	}
	return p == NO_ENTRY ? NULL : p;
}

unsigned pp_egl_rdoc_family(unsigned id)
{
	return id < PP_EGL_NHOOKED ? families[id] : id;
}
