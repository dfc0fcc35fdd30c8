/* Diagnostics of a GLES context: per-context state of what recent draws used, the rules'
 * device (attribution/diag, the same rules and site table as Vulkan), call sites, and
 * delivery of findings to the log (the rules do it), report.json (the site table) and the
 * application's KHR_debug callback (here). Nothing here waits on the GPU or calls glGetError.
 *
 * What draws use is an approximation kept at bind boundaries (docs/gles.md "Diagnostics"): a
 * draw marks what is bound when it is issued (generic GL_ARRAY_BUFFER, GL_ELEMENT_ARRAY_BUFFER
 * as last bound with glBindBuffer, GL_DRAW_INDIRECT_BUFFER, the first 16 uniform and 8 storage
 * indexed bindings, the textures of the first 32 units), and only the first draw after a
 * binding change or a new frame does so: the draw path itself tests one flag. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gles_diag_internal.h"
#include "pp_clock.h"
#include "pp_module.h"
#include "pp_log.h"
#include "pp_sink.h"
#include "pp_thread.h"

/* ---- state ------------------------------------------------------------------------------ */

void pp_gles_diag_setup(struct pp_gles_ctx *c, uint32_t sink_id)
{
	if (!pp_gles_settings.diagnostics || c->diag)
		return;
	struct pp_gles_diag *g = calloc(1, sizeof(*g));
	if (!g) {
		pp_log_once(PP_LOG_ERROR, "out of memory setting up GLES diagnostics; they are off for this context");
		return;
	}
	const struct pp_diag_config cfg = {
		.sink_device_id = sink_id,
		.frame_delimiter = (int)pp_gles_settings.frame_delimiter,
	};
	g->dd = pp_diag_device_create(&cfg);
	if (!g->dd) {
		free(g);
		return;
	}
	g->debug_enabled = true; /* KHR_debug: messages of medium severity are enabled initially */
	c->diag = g;
	c->diag_dirty = PP_GLES_DIRTY_ALL;
}

void pp_gles_diag_teardown(struct pp_gles_ctx *c)
{
	struct pp_gles_diag *g = c->diag;
	if (!g)
		return;
	c->diag = NULL;
	c->diag_dirty = 0;
	/* Findings stay: the site table is process-wide. */
	pp_diag_device_destroy(g->dd);
	free(g);
}

struct gles_diag_buffer *pp_gles_diag_buffer(struct pp_gles_diag *g, uint32_t name, bool create)
{
	if (!name)
		return NULL;
	struct gles_diag_buffer *b = &g->buffers[name % GLES_DIAG_BUFFERS];
	if (b->name == name)
		return b;
	if (!create)
		return NULL;
	/* Direct-mapped: a name that collides replaces the older one (bounded memory). */
	*b = (struct gles_diag_buffer){ .name = name };
	return b;
}

struct gles_diag_texture *pp_gles_diag_texture(struct pp_gles_diag *g, uint32_t name, bool create)
{
	if (!name)
		return NULL;
	struct gles_diag_texture *t = &g->textures[name % GLES_DIAG_TEXTURES];
	if (t->name == name)
		return t;
	if (!create)
		return NULL;
	*t = (struct gles_diag_texture){ .name = name };
	return t;
}

static void buffer_used(struct pp_gles_diag *g, uint32_t name)
{
	struct gles_diag_buffer *b = pp_gles_diag_buffer(g, name, true);
	if (b)
		b->used_frame = g->frame + 1;
}

void pp_gles_diag_draw(struct pp_gles_ctx *c)
{
	struct pp_gles_diag *g = c->diag;
	uint32_t dirty = c->diag_dirty;
	c->diag_dirty = 0;
	if (!g)
		return;
	if (dirty & PP_GLES_DIRTY_ARRAY)
		buffer_used(g, g->bound[GLES_BT_ARRAY]);
	if (dirty & PP_GLES_DIRTY_ELEMENT)
		buffer_used(g, g->bound[GLES_BT_ELEMENT]);
	if (dirty & PP_GLES_DIRTY_INDIRECT) {
		buffer_used(g, g->bound[GLES_BT_DRAW_INDIRECT]);
		buffer_used(g, g->bound[GLES_BT_DISPATCH_INDIRECT]);
	}
	for (uint32_t i = 0; (dirty & PP_GLES_DIRTY_UNIFORM) && i < GLES_DIAG_UNIFORM_INDICES; i++)
		buffer_used(g, g->uniform[i]);
	for (uint32_t i = 0; (dirty & PP_GLES_DIRTY_STORAGE) && i < GLES_DIAG_STORAGE_INDICES; i++)
		buffer_used(g, g->storage[i]);
	for (uint32_t mask = dirty & PP_GLES_DIRTY_TEXTURES ? g->units_bound : 0; mask; mask &= mask - 1) {
		uint32_t u = (uint32_t)__builtin_ctz(mask);
		for (uint32_t k = 0; k < GLES_TT_COUNT; k++) {
			struct gles_diag_texture *t = pp_gles_diag_texture(g, g->units[u][k], true);
			if (t)
				t->sampled_frame = g->frame + 1;
		}
	}
}

/* ---- frames and submissions ------------------------------------------------------------- */

static void frame_follow(struct pp_gles_ctx *c, struct pp_gles_diag *g)
{
	if (c->frame_open != g->frame) {
		/* A new frame: what stays bound is used again by its first draw. */
		g->frame = c->frame_open;
		c->diag_dirty = PP_GLES_DIRTY_ALL;
	}
}

void pp_gles_diag_submitted(struct pp_gles_ctx *c, uint64_t frame, uint64_t ended, uint64_t sync)
{
	struct pp_gles_diag *g = c->diag;
	if (!g)
		return;
	const struct pp_diag_submission sub = {
		.queue = (uint64_t)(uintptr_t)c->handle,
		.frame = frame,
		.ended = ended,
		.fence = sync,
	};
	struct pp_diag_submit_todo todo;
	pp_diag_submitted(g->dd, &sub, &todo);
	pp_gles_diag_deliver(c, todo.messages, todo.nmessages);
	pp_diag_submit_todo_free(&todo);
	frame_follow(c, g);
}

void pp_gles_diag_presented(struct pp_gles_ctx *c, uint64_t ended, bool color_preserved)
{
	struct pp_gles_diag *g = c->diag;
	if (!g)
		return;
	struct pp_diag_submit_todo todo;
	pp_diag_presented(g->dd, ended, NULL, 0, &todo);
	pp_gles_diag_deliver(c, todo.messages, todo.nmessages);
	pp_diag_submit_todo_free(&todo);
	frame_follow(c, g);
	if (g->fb0_ancillary_stored) {
		char detail[160];
		snprintf(detail, sizeof(detail),
			 "(the depth/stencil of the default framebuffer, stored by pass \"%s\": undefined after "
			 "%s, so nothing can read it)", g->fb0_last_pass, c->glx ? "glXSwapBuffers" : "eglSwapBuffers");
		pp_gles_diag_pass_report(c, PP_DIAG_PASS_UNNEEDED_STORE, g->fb0_last_pass, 0, "depth/stencil", detail);
	}
	g->fb0_ancillary_stored = false;
	g->fb0_fresh = true;
	g->fb0_color_preserved = color_preserved;
}

/* The pass's name as the model gives it: the innermost debug group open when it began, else
 * the framebuffer's label, else its kind and position in its frame (over the frame's
 * submissions so far: one recording per submission on GLES), so that a finding names the
 * pass the report lists. */
static void pass_group_name(const struct pp_gles_ctx *c, const struct pp_pass_rec *p, char *out, size_t len)
{
	bool ours = c->rec && p >= c->rec->passes && p < c->rec->passes + c->rec->npasses;
	uint32_t index = ours ? (uint32_t)(p - c->rec->passes) : 0;
	uint32_t base = c->names_frame == c->frame_open ? c->names_base : 0;
	if (p->object_name[0])
		pp_name_copy(out, len, p->object_name);
	else
		pp_pass_generated_name(out, len, p->kind, base + (ours ? pp_gles_app_passes(c->rec, index) : 0));
	if (!ours)
		return;
	int depth = 0;
	for (uint32_t i = c->rec->nlabels; i-- > 0;) {
		const struct pp_label_event *e = &c->rec->labels[i];
		if (e->pos > index)
			continue;
		if (e->op == PP_LABEL_POP)
			depth++;
		else if (e->op == PP_LABEL_PUSH && depth-- == 0) {
			pp_name_copy(out, len, e->name);
			return;
		}
	}
}

void pp_gles_diag_pass_closed(struct pp_gles_ctx *c, const struct pp_pass_rec *p)
{
	struct pp_gles_diag *g = c->diag;
	if (!g || p->kind != PP_PASS_RENDER || p->render_pass != 0 || p->recorded_by)
		return;
	/* The default framebuffer. After a swap its contents are undefined (EGL: colour unless
	 * EGL_SWAP_BEHAVIOR is EGL_BUFFER_PRESERVED, depth and stencil always), so the first pass
	 * of a frame that loads them loads garbage it must then overwrite. The pass's name is
	 * looked up only where a finding or the next swap needs it, not every frame. */
	char name[64];
	bool named = false;
	bool ancillary_stored = false;
	for (uint32_t i = 0; i < p->nattachments; i++) {
		const struct pp_attachment *a = &p->attachments[i];
		bool load = a->load_op && !strcmp(a->load_op, "LOAD");
		if (g->fb0_fresh && load && (a->depth_stencil || !g->fb0_color_preserved)) {
			if (!named)
				pass_group_name(c, p, name, sizeof(name));
			named = true;
			char detail[192];
			snprintf(detail, sizeof(detail),
				 "(pass \"%s\" on the default framebuffer, %s attachment: its first pass after "
				 "eglSwapBuffers begins without a clear or invalidate, and the contents are undefined)",
				 name, a->depth_stencil ? "depth/stencil" : "colour");
			pp_gles_diag_pass_report(c, PP_DIAG_PASS_UNNEEDED_LOAD, name, i + 1,
						 a->depth_stencil ? "depth/stencil" : "colour", detail);
		}
		if (a->depth_stencil && a->store_op && !strcmp(a->store_op, "STORE"))
			ancillary_stored = true;
	}
	g->fb0_fresh = false;
	g->fb0_ancillary_stored = ancillary_stored;
	/* Read only at the swap after a pass that stored depth/stencil (pp_gles_diag_presented). */
	if (ancillary_stored) {
		if (named)
			pp_name_copy(g->fb0_last_pass, sizeof(g->fb0_last_pass), name);
		else
			pass_group_name(c, p, g->fb0_last_pass, sizeof(g->fb0_last_pass));
	}
}

/* ---- waits ------------------------------------------------------------------------------ */

void pp_gles_diag_span_begin(struct pp_gles_diag_span *s)
{
	pp_cpu_snapshot_take(&s->before);
}

uint64_t pp_gles_diag_span_end(struct pp_gles_ctx *c, struct pp_gles_diag_span *s, const char *name)
{
	struct pp_cpu_snapshot after;
	pp_cpu_snapshot_take(&after);
	struct pp_cpu_cost cost = { 0 };
	pp_cpu_cost_add_span(&cost, &s->before, &after);
	struct pp_cpu_event ev = { .name = name, .category = "wait", .tid = after.tid,
				   .begin_ns = s->before.wall_ns, .end_ns = after.wall_ns };
	pp_sink_cpu_event(&ev);
	if (c->attr)
		pp_attr_blocking(c->attr, &cost);
	return after.wall_ns - s->before.wall_ns;
}

void pp_gles_diag_finish(struct pp_gles_ctx *c, const struct pp_cpu_cost *cpu, void *ra)
{
	if (!c->diag)
		return;
	/* Everything submitted has completed. */
	pp_diag_completed(c->diag->dd, pp_diag_last_seq(c->diag->dd));
	c->diag->synced_submits = c->submits;
	pp_gles_diag_report(c, PP_DIAG_FINISH, "glFinish", ra, NULL, cpu && cpu->valid ? cpu->wall_ns : 0, true);
}

bool pp_gles_diag_readback_drains(struct pp_gles_ctx *c)
{
	struct pp_gles_diag *g = c->diag;
	/* Into client memory (no pixel pack buffer: the call returns the pixels, so it must wait
	 * for them), with rendering not known to have completed. */
	return g && !g->bound[GLES_BT_PIXEL_PACK] && (c->submits != g->synced_submits || (c->rec && c->rec->npasses));
}

void pp_gles_diag_readback_done(struct pp_gles_ctx *c, int32_t w, int32_t h, uint64_t blocked_ns, void *ra)
{
	char detail[96];
	snprintf(detail, sizeof(detail), "(glReadPixels of %dx%d into client memory)", w, h);
	/* Steady: a single read at exit (a screenshot) is not the frame loop's. */
	pp_gles_diag_report(c, PP_DIAG_READBACK_DRAIN, "glReadPixels", ra, detail, blocked_ns, true);
	if (c->diag)
		c->diag->synced_submits = c->submits;
}

/* ---- sites and delivery ----------------------------------------------------------------- */

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

/* The application's call site: the hook's return address (the application calls the hook
 * directly, through its PLT or a pointer it got from dlsym / eglGetProcAddress). */
static uint64_t call_site(void *ra, char *buf, size_t len)
{
	Dl_info info;
	if (ra && dladdr(ra, &info) && info.dli_fname) {
		const char *base = pp_module_name(&info);
		uintptr_t off = (uintptr_t)ra - (uintptr_t)info.dli_fbase;
		if (info.dli_sname && info.dli_saddr)
			snprintf(buf, len, "%s (%s+0x%lx)", base, info.dli_sname,
				 (unsigned long)((uintptr_t)ra - (uintptr_t)info.dli_saddr));
		else
			snprintf(buf, len, "%s+0x%lx", base, (unsigned long)off);
		return (str_hash(base) ^ (off * 0x9e3779b97f4a7c15ull)) | 1;
	}
	snprintf(buf, len, "%p", ra);
	return (uint64_t)(uintptr_t)ra;
}

/* The thread's name as the kernel has it, read once per thread (a flagged call in a loop
 * must not open a file each time). */
static void thread_name(uint32_t tid, char *buf, size_t len)
{
	static __thread uint32_t cached_tid;
	static __thread char cached[32];
	if (cached_tid != tid) {
		char path[64];
		cached[0] = '\0';
		snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
		FILE *f = fopen(path, "re");
		if (f) {
			if (fgets(cached, (int)sizeof(cached), f))
				cached[strcspn(cached, "\n")] = 0;
			fclose(f);
		}
		cached_tid = tid;
	}
	snprintf(buf, len, "%s", cached);
}

static void report(struct pp_gles_ctx *c, struct pp_diag_blocking *b)
{
	pp_diag_blocking_report(c->diag->dd, b);
	struct pp_diag_message m[4];
	uint32_t n;
	while ((n = pp_diag_messages_take(c->diag->dd, m, 4)))
		pp_gles_diag_deliver(c, m, n);
}

void pp_gles_diag_report(struct pp_gles_ctx *c, enum pp_diag_rule rule, const char *fn, void *ra, const char *detail,
			 uint64_t blocked_ns, bool steady)
{
	if (!c->diag)
		return;
	char where[160], site[192], tname[32];
	uint32_t tid = pp_thread_id();
	thread_name(tid, tname, sizeof(tname));
	uint64_t loc = call_site(ra, where, sizeof(where));
	snprintf(site, sizeof(site), "%s called from %s on thread %u \"%s\"", fn, where, tid, tname);
	struct pp_diag_blocking b = {
		.rule = rule,
		.site_key = loc ^ str_hash(fn),
		.site = site,
		.detail = detail,
		.cpu_ns = blocked_ns,
		.steady_state = steady,
		.thread_id = tid,
		.thread_name = tname,
	};
	report(c, &b);
}

void pp_gles_diag_pass_report(struct pp_gles_ctx *c, enum pp_diag_rule rule, const char *pass, uint32_t attachment,
			      const char *what, const char *detail)
{
	char site[192];
	snprintf(site, sizeof(site), "pass \"%s\" on the default framebuffer, %s attachment", pass, what);
	struct pp_diag_blocking b = {
		.rule = rule,
		/* A pass is its name and framebuffer: the same pass every frame is one site. */
		.site_key = str_hash(site) ^ (attachment * 0x9e3779b97f4a7c15ull),
		.site = site,
		.detail = detail,
		.cost_unavailable = "attachment bandwidth is not measured (no GPU counters for it on OpenGL ES)",
	};
	report(c, &b);
}

/* The application's KHR_debug state, as far as it concerns passprobe's messages (source
 * THIRD_PARTY, type PERFORMANCE, severity MEDIUM, ids GLES_DIAG_ID_BASE + rule). */
void pp_gles_diag_debug_control(struct pp_gles_ctx *c, GLenum source, GLenum type, GLenum severity, GLsizei count,
				const GLuint *ids, GLboolean enabled)
{
	struct pp_gles_diag *g = c->diag;
	if (!g)
		return;
	if ((source != GL_DONT_CARE && source != GL_DEBUG_SOURCE_THIRD_PARTY) ||
	    (type != GL_DONT_CARE && type != GL_DEBUG_TYPE_PERFORMANCE))
		return;
	if (count > 0 && ids) {
		/* By id: GL requires a specific source and type and severity GL_DONT_CARE. */
		if (source == GL_DONT_CARE || type == GL_DONT_CARE || severity != GL_DONT_CARE)
			return;
		for (GLsizei i = 0; i < count; i++) {
			if (ids[i] < GLES_DIAG_ID_BASE || ids[i] >= GLES_DIAG_ID_BASE + PP_DIAG_RULE_COUNT)
				continue;
			uint64_t bit = 1ull << (ids[i] - GLES_DIAG_ID_BASE);
			g->ids_disabled = enabled ? g->ids_disabled & ~bit : g->ids_disabled | bit;
		}
		return;
	}
	if (count != 0 || (severity != GL_DONT_CARE && severity != GL_DEBUG_SEVERITY_MEDIUM))
		return;
	g->debug_enabled = enabled != GL_FALSE;
	g->ids_disabled = 0;
}

void pp_gles_diag_debug_callback(struct pp_gles_ctx *c, GLDEBUGPROC fn, const void *user)
{
	if (!c->diag)
		return;
	c->diag->callback = fn;
	c->diag->callback_user = user;
}

void pp_gles_diag_deliver(struct pp_gles_ctx *c, const struct pp_diag_message *m, uint32_t n)
{
	struct pp_gles_diag *g = c->diag;
	if (!g || !n || !g->callback || !g->debug_enabled || pp_gles_exiting)
		return;
	/* GL_DEBUG_OUTPUT off: the context delivers no message (a callback is registered, so the
	 * context has KHR_debug and the enum is valid: no error). */
	PFNGLISENABLEDPROC is_enabled = PP_REAL(glIsEnabled);
	pp_egl_guard_enter();
	bool on = is_enabled && is_enabled(GL_DEBUG_OUTPUT);
	pp_egl_guard_leave();
	for (uint32_t i = 0; on && i < n; i++) {
		uint32_t rule = (uint32_t)m[i].rule;
		if (rule < 64 && (g->ids_disabled >> rule & 1))
			continue;
		pp_egl_guard_enter();
		g->callback(GL_DEBUG_SOURCE_THIRD_PARTY, GL_DEBUG_TYPE_PERFORMANCE, GLES_DIAG_ID_BASE + rule,
			    GL_DEBUG_SEVERITY_MEDIUM, (GLsizei)strlen(m[i].text), m[i].text, g->callback_user);
		pp_egl_guard_leave();
	}
}
