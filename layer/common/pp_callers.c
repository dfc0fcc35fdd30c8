/* Whose code called passprobe (pp_callers.h). */
#include "pp_callers.h"

#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unwind.h>

#include "pp_log.h"

#define MAX_LAYERS 8
#define MAX_RANGES 4

/* A layer's executable segments. Written once under `learn_lock`, then published by the
 * count, so readers need no lock. */
struct layer_module {
	uintptr_t lo[MAX_RANGES], hi[MAX_RANGES];
	int nranges;
	char name[64];
};
static struct layer_module layers[MAX_LAYERS];
static int nlayers;
static pthread_mutex_t learn_lock = PTHREAD_MUTEX_INITIALIZER;

/* The loaded object holding a code address, as dl_iterate_phdr sees it. */
struct object_find {
	uintptr_t pc;
	bool found;
	struct layer_module m;
	const char *path;
};

static int object_find_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct object_find *f = data;
	bool inside = false;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && f->pc >= info->dlpi_addr + ph->p_vaddr &&
		    f->pc < info->dlpi_addr + ph->p_vaddr + ph->p_memsz)
			inside = true;
	}
	if (!inside)
		return 0;
	f->found = true;
	f->path = info->dlpi_name;
	for (int i = 0; i < info->dlpi_phnum && f->m.nranges < MAX_RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			f->m.lo[f->m.nranges] = info->dlpi_addr + ph->p_vaddr;
			f->m.hi[f->m.nranges] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
			f->m.nranges++;
		}
	}
	const char *slash = f->path ? strrchr(f->path, '/') : NULL;
	const char *base = slash ? slash + 1 : f->path ? f->path : "";
	size_t len = strnlen(base, sizeof(f->m.name) - 1);
	memcpy(f->m.name, base, len);
	f->m.name[len] = '\0';
	return 1;
}

static bool object_find(const void *pc, struct object_find *f)
{
	memset(f, 0, sizeof(*f));
	f->pc = (uintptr_t)pc;
	dl_iterate_phdr(object_find_cb, f);
	return f->found;
}

static bool in_module(const struct layer_module *m, uintptr_t pc)
{
	for (int i = 0; i < m->nranges; i++)
		if (pc >= m->lo[i] && pc < m->hi[i])
			return true;
	return false;
}

void pp_callers_layers_learn(void)
{
	void *frames[48];
	int n = backtrace(frames, 48);
	struct object_find self;
	if (!object_find((const void *)pp_callers_layers_learn, &self))
		return;
	pthread_mutex_lock(&learn_lock);
	int count = nlayers;
	for (int i = 1; i < n; i++) {
		if (in_module(&self.m, (uintptr_t)frames[i]))
			continue;
		struct object_find f;
		/* The program itself has no name in the link map: never a layer. */
		if (!object_find(frames[i], &f) || !f.path || !f.path[0] || !strncmp(f.m.name, "libvulkan", 9))
			break;
		bool known = false;
		for (int k = 0; k < count && !known; k++)
			known = !strcmp(layers[k].name, f.m.name);
		if (known)
			continue;
		if (count == MAX_LAYERS) {
			pp_log_once(PP_LOG_WARN, "more than %d layers above passprobe; the work of the others counts "
						 "as the application's", MAX_LAYERS);
			break;
		}
		layers[count++] = f.m;
		pp_log(PP_LOG_INFO, "layer above passprobe: %s (passes it records itself are marked recorded_by)",
		       f.m.name);
	}
	__atomic_store_n(&nlayers, count, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&learn_lock);
}

int pp_callers_layer(const void *pc)
{
	int n = __atomic_load_n(&nlayers, __ATOMIC_ACQUIRE);
	for (int i = 0; i < n; i++)
		if (in_module(&layers[i], (uintptr_t)pc))
			return i;
	return -1;
}

const char *pp_callers_layer_name(int i)
{
	return i >= 0 && i < __atomic_load_n(&nlayers, __ATOMIC_ACQUIRE) ? layers[i].name : "";
}

/* ---- a layer's handling of a call, on this thread's stack ------------------------------ */

/* Where the outermost frame of a layer's handling of an application call returns to the
 * application: the stack slot holding that return address, and its value. While the slot still
 * holds it (and lies above the current frame), the layer has not returned to the application. */
struct entry {
	uintptr_t slot;
	uintptr_t value;
	int layer;
};
#define ENTRIES 4
static __thread struct entry entries[ENTRIES];
static __thread unsigned entries_next;

#define WALK_MAX 32
struct walk {
	int n;
	uintptr_t ip[WALK_MAX], cfa[WALK_MAX];
};

static _Unwind_Reason_Code walk_cb(struct _Unwind_Context *ctx, void *data)
{
	struct walk *w = data;
	if (w->n == WALK_MAX)
		return _URC_END_OF_STACK;
	w->ip[w->n] = _Unwind_GetIP(ctx);
	w->cfa[w->n] = _Unwind_GetCFA(ctx);
	w->n++;
	return _URC_NO_REASON;
}

void pp_callers_entry_note(const void *ra)
{
#if defined(__x86_64__)
	int layer = pp_callers_layer(ra);
	if (layer < 0)
		return;
	struct walk w = { 0 };
	_Unwind_Backtrace(walk_cb, &w);
	/* The frames of the layer run from the one `ra` returns into up to the last one before
	 * the application's (or the loader's) code. */
	int first = -1;
	for (int i = 0; i < w.n && first < 0; i++)
		if (w.ip[i] == (uintptr_t)ra)
			first = i;
	if (first < 0)
		return;
	int last = first;
	while (last + 1 < w.n && pp_callers_layer((const void *)w.ip[last + 1]) >= 0)
		last++;
	if (last + 1 >= w.n)
		return; /* the walk never left the layers: nothing certain to remember */
	/* In the walk, frame i's CFA comes with frame i + 1's ip (the unwinder reports a frame's
	 * CFA once it has found its caller). On x86-64 a frame's return address is the word below
	 * its CFA. */
	struct entry *e = &entries[entries_next++ % ENTRIES];
	e->slot = w.cfa[last + 1] - sizeof(void *);
	e->value = w.ip[last + 1];
	e->layer = pp_callers_layer((const void *)w.ip[last]);
#else
	/* Elsewhere the return address is not at a fixed place in the frame: nothing is
	 * remembered, and a layer's own work in its handling of a call counts as the
	 * application's. */
	(void)ra;
#endif
}

/* The remembered slot may lie in a frame that has since returned and whose place a live frame
 * now holds: reading it is the point (the value no longer matches), so AddressSanitizer is told
 * that this read of another frame's words is meant. */
__attribute__((no_sanitize("address"))) int pp_callers_own_work(const void *ra)
{
	int layer = pp_callers_layer(ra);
	if (layer < 0)
		return -1;
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	for (unsigned k = 0; k < ENTRIES; k++) {
		const struct entry *e = &entries[(entries_next - 1 - k) % ENTRIES];
		if (e->slot && e->slot > here && *(const uintptr_t *)e->slot == e->value)
			return e->layer;
	}
	return -1;
}
