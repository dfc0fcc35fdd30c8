/* The GL hooks of the diagnostics (docs/gles.md "Diagnostics"): bindings followed cheaply (what
 * draws use, gles_diag.c), and the calls the rules judge: query result reads, client waits on
 * fences, synchronized maps, texture and static buffer updates, the KHR_debug callback and its
 * filter. Each flagged call is timed on the application's thread around the real call, which
 * goes down unchanged; the only extra GL calls are reads that cannot block or raise an error
 * (glIsQuery, GL_QUERY_RESULT_AVAILABLE of a query that exists and is not active,
 * GL_ELEMENT_ARRAY_BUFFER_BINDING, glIsEnabled(GL_DEBUG_OUTPUT) once a callback is set). */
#include <stdio.h>

#include "gles_diag_internal.h"

static int buffer_target(GLenum target)
{
	switch (target) {
	case GL_ARRAY_BUFFER: return GLES_BT_ARRAY;
	case GL_ELEMENT_ARRAY_BUFFER: return GLES_BT_ELEMENT;
	case GL_UNIFORM_BUFFER: return GLES_BT_UNIFORM;
	case GL_SHADER_STORAGE_BUFFER: return GLES_BT_STORAGE;
	case GL_DRAW_INDIRECT_BUFFER: return GLES_BT_DRAW_INDIRECT;
	case GL_DISPATCH_INDIRECT_BUFFER: return GLES_BT_DISPATCH_INDIRECT;
	case GL_PIXEL_PACK_BUFFER: return GLES_BT_PIXEL_PACK;
	case GL_PIXEL_UNPACK_BUFFER: return GLES_BT_PIXEL_UNPACK;
	case GL_COPY_READ_BUFFER: return GLES_BT_COPY_READ;
	case GL_COPY_WRITE_BUFFER: return GLES_BT_COPY_WRITE;
	case GL_TRANSFORM_FEEDBACK_BUFFER: return GLES_BT_TRANSFORM_FEEDBACK;
	case GL_ATOMIC_COUNTER_BUFFER: return GLES_BT_ATOMIC_COUNTER;
	case GL_TEXTURE_BUFFER: return GLES_BT_TEXTURE_BUFFER;
	default: return -1;
	}
}

/* Binding points whose buffer draws or dispatches read: what the next draw marks. */
static uint32_t draw_dirty(int t)
{
	switch (t) {
	case GLES_BT_ARRAY: return PP_GLES_DIRTY_ARRAY;
	case GLES_BT_ELEMENT: return PP_GLES_DIRTY_ELEMENT;
	case GLES_BT_DRAW_INDIRECT:
	case GLES_BT_DISPATCH_INDIRECT: return PP_GLES_DIRTY_INDIRECT;
	default: return 0;
	}
}

static int texture_target(GLenum target)
{
	switch (target) {
	case GL_TEXTURE_2D: return GLES_TT_2D;
	case GL_TEXTURE_CUBE_MAP:
	case GL_TEXTURE_CUBE_MAP_POSITIVE_X:
	case GL_TEXTURE_CUBE_MAP_NEGATIVE_X:
	case GL_TEXTURE_CUBE_MAP_POSITIVE_Y:
	case GL_TEXTURE_CUBE_MAP_NEGATIVE_Y:
	case GL_TEXTURE_CUBE_MAP_POSITIVE_Z:
	case GL_TEXTURE_CUBE_MAP_NEGATIVE_Z: return GLES_TT_CUBE;
	case GL_TEXTURE_3D: return GLES_TT_3D;
	case GL_TEXTURE_2D_ARRAY: return GLES_TT_2D_ARRAY;
	default: return -1;
	}
}

/* RenderDoc's own calls (its overlay's buffers and textures, bound and then the application's
 * bound back) are nothing of the application's to follow or judge. */
static struct pp_gles_diag *diag_of(struct pp_gles_ctx **out)
{
	struct pp_gles_ctx *c = pp_gles_acting();
	*out = c;
	return c && !pp_egl_real_tls.rdoc_own ? c->diag : NULL;
}

/* The buffer bound to a target. GL_ELEMENT_ARRAY_BUFFER belongs to the vertex array object,
 * so it is read (a plain state query, valid in every ES version). */
static uint32_t buffer_bound(struct pp_gles_diag *g, int t)
{
	if (t != GLES_BT_ELEMENT)
		return g->bound[t];
	GLint name = 0;
	PFNGLGETINTEGERVPROC get = PP_REAL(glGetIntegerv);
	if (get) {
		pp_egl_guard_enter();
		get(GL_ELEMENT_ARRAY_BUFFER_BINDING, &name);
		pp_egl_guard_leave();
	}
	return (uint32_t)name;
}

/* ---- bindings ----------------------------------------------------------------------------- */

GL_APICALL void GL_APIENTRY glBindBuffer(GLenum target, GLuint buffer)
{
	PP_GLES_ABOVE(glBindBuffer, (target, buffer));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	if (g) {
		int t = buffer_target(target);
		/* Rebinding what is bound changes nothing the draws use (a loop that binds its
		 * vertex buffer before every draw takes the draw's slow path once). */
		if (t >= 0 && g->bound[t] != buffer) {
			g->bound[t] = buffer;
			c->diag_dirty |= draw_dirty(t);
		}
	}
	PP_REAL(glBindBuffer)(target, buffer);
}

static void bind_indexed(struct pp_gles_ctx *c, struct pp_gles_diag *g, GLenum target, GLuint index, GLuint buffer)
{
	int t = buffer_target(target);
	if (t < 0)
		return;
	/* Binding a range also binds the generic point. */
	g->bound[t] = buffer;
	if (t == GLES_BT_UNIFORM && index < GLES_DIAG_UNIFORM_INDICES) {
		g->uniform[index] = buffer;
		c->diag_dirty |= PP_GLES_DIRTY_UNIFORM;
	} else if (t == GLES_BT_STORAGE && index < GLES_DIAG_STORAGE_INDICES) {
		g->storage[index] = buffer;
		c->diag_dirty |= PP_GLES_DIRTY_STORAGE;
	}
}

GL_APICALL void GL_APIENTRY glBindBufferBase(GLenum target, GLuint index, GLuint buffer)
{
	PP_GLES_ABOVE(glBindBufferBase, (target, index, buffer));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	if (g)
		bind_indexed(c, g, target, index, buffer);
	PP_REAL(glBindBufferBase)(target, index, buffer);
}

GL_APICALL void GL_APIENTRY glBindBufferRange(GLenum target, GLuint index, GLuint buffer, GLintptr offset,
					      GLsizeiptr size)
{
	PP_GLES_ABOVE(glBindBufferRange, (target, index, buffer, offset, size));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	if (g)
		bind_indexed(c, g, target, index, buffer);
	PP_REAL(glBindBufferRange)(target, index, buffer, offset, size);
}

GL_APICALL void GL_APIENTRY glDeleteBuffers(GLsizei n, const GLuint *buffers)
{
	PP_GLES_ABOVE(glDeleteBuffers, (n, buffers));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	for (GLsizei i = 0; g && buffers && i < n; i++) {
		struct gles_diag_buffer *b = pp_gles_diag_buffer(g, buffers[i], false);
		if (b)
			*b = (struct gles_diag_buffer){ 0 };
		/* Deleting a bound buffer unbinds it. */
		for (int t = 0; t < GLES_BT_COUNT; t++)
			if (g->bound[t] == buffers[i])
				g->bound[t] = 0;
	}
	PP_REAL(glDeleteBuffers)(n, buffers);
}

GL_APICALL void GL_APIENTRY glActiveTexture(GLenum texture)
{
	PP_GLES_ABOVE(glActiveTexture, (texture));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	if (g)
		g->active_unit = texture - GL_TEXTURE0;
	PP_REAL(glActiveTexture)(texture);
}

GL_APICALL void GL_APIENTRY glBindTexture(GLenum target, GLuint texture)
{
	PP_GLES_ABOVE(glBindTexture, (target, texture));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	int t = texture_target(target);
	if (g && t >= 0 && g->active_unit < GLES_DIAG_UNITS && g->units[g->active_unit][t] != texture) {
		g->units[g->active_unit][t] = texture;
		if (texture)
			g->units_bound |= 1u << g->active_unit;
		c->diag_dirty |= PP_GLES_DIRTY_TEXTURES;
	}
	PP_REAL(glBindTexture)(target, texture);
}

/* ---- updates ------------------------------------------------------------------------------- */

GL_APICALL void GL_APIENTRY glBufferData(GLenum target, GLsizeiptr size, const void *data, GLenum usage)
{
	PP_GLES_ABOVE(glBufferData, (target, size, data, usage));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	int t = g ? buffer_target(target) : -1;
	if (t >= 0) {
		struct gles_diag_buffer *b = pp_gles_diag_buffer(g, buffer_bound(g, t), true);
		if (b) {
			b->static_usage = usage == GL_STATIC_DRAW || usage == GL_STATIC_READ || usage == GL_STATIC_COPY;
			b->updates = 0;
		}
	}
	PP_REAL(glBufferData)(target, size, data, usage);
}

GL_APICALL void GL_APIENTRY glBufferSubData(GLenum target, GLintptr offset, GLsizeiptr size, const void *data)
{
	PP_GLES_ABOVE(glBufferSubData, (target, offset, size, data));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	struct pp_gles_call_mark m = g ? pp_gles_diag_call(c, PP_GLES_CALL_BUFFER_SUB_DATA, "glBufferSubData")
				       : (struct pp_gles_call_mark){ 0 };
	int t = g ? buffer_target(target) : -1;
	struct gles_diag_buffer *b = t >= 0 ? pp_gles_diag_buffer(g, buffer_bound(g, t), false) : NULL;
	/* The first update after glBufferData may be its initial contents, and so may several
	 * before any draw used the buffer (a mesh filled attribute by attribute, as glmark2
	 * does): from the second on, once a draw has read it. */
	if (!b || !b->static_usage || ++b->updates < 2 || !b->used_frame) {
		PP_REAL(glBufferSubData)(target, offset, size, data);
		return;
	}
	struct pp_gles_diag_span sp;
	pp_gles_diag_span_begin(&sp);
	PP_REAL(glBufferSubData)(target, offset, size, data);
	uint64_t ns = pp_gles_diag_span_end(c, &sp, "glBufferSubData");
	char detail[128];
	snprintf(detail, sizeof(detail), "(glBufferSubData of buffer %u, update %u since its glBufferData with "
		 "GL_STATIC_*)", b->name, b->updates);
	void *site = pp_gles_site(__builtin_return_address(0));
	/* Steady state: updates made once (a level loaded) are not the frame loop's. */
	pp_gles_diag_report(c, PP_DIAG_STATIC_BUFFER_UPDATE, "glBufferSubData", &m, site, detail, ns, true);
}

GL_APICALL void *GL_APIENTRY glMapBufferRange(GLenum target, GLintptr offset, GLsizeiptr length, GLbitfield access)
{
	PP_GLES_ABOVE_RET(glMapBufferRange, (target, offset, length, access));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	struct pp_gles_call_mark m = g ? pp_gles_diag_call(c, PP_GLES_CALL_MAP_BUFFER_RANGE, "glMapBufferRange")
				       : (struct pp_gles_call_mark){ 0 };
	int t = g ? buffer_target(target) : -1;
	const GLbitfield unsynced = GL_MAP_UNSYNCHRONIZED_BIT | GL_MAP_INVALIDATE_RANGE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT;
	struct gles_diag_buffer *b = t >= 0 && !(access & unsynced) ? pp_gles_diag_buffer(g, buffer_bound(g, t), false)
								    : NULL;
	/* Used by a draw of this frame or the previous one: not known to have completed. */
	if (!b || !b->used_frame || b->used_frame < g->frame)
		return PP_REAL(glMapBufferRange)(target, offset, length, access);
	struct pp_gles_diag_span sp;
	pp_gles_diag_span_begin(&sp);
	void *p = PP_REAL(glMapBufferRange)(target, offset, length, access);
	uint64_t ns = pp_gles_diag_span_end(c, &sp, "glMapBufferRange");
	char detail[160];
	snprintf(detail, sizeof(detail), "(glMapBufferRange of buffer %u, access 0x%x, used by draws of %s)", b->name,
		 (unsigned)access, b->used_frame == g->frame + 1 ? "this frame" : "the previous frame");
	pp_gles_diag_report(c, PP_DIAG_MAP_IN_USE, "glMapBufferRange", &m, pp_gles_site(__builtin_return_address(0)),
			    detail, ns, true);
	return p;
}

/* The texture a glTexSubImage* call updates, when draws of this frame had it bound. */
static struct gles_diag_texture *texture_sampled(struct pp_gles_diag *g, GLenum target)
{
	int t = g ? texture_target(target) : -1;
	if (t < 0 || g->active_unit >= GLES_DIAG_UNITS)
		return NULL;
	struct gles_diag_texture *x = pp_gles_diag_texture(g, g->units[g->active_unit][t], false);
	return x && x->sampled_frame == g->frame + 1 ? x : NULL;
}

static void texture_report(struct pp_gles_ctx *c, struct gles_diag_texture *x, const char *fn,
			   const struct pp_gles_call_mark *m, void *ra, uint64_t ns)
{
	char detail[128];
	snprintf(detail, sizeof(detail), "(%s of texture %u, bound for draws earlier in this frame)", fn, x->name);
	/* Steady state: Chromium's GPU process (ANGLE) updates textures its first frame sampled. */
	pp_gles_diag_report(c, PP_DIAG_TEXTURE_UPDATE_IN_USE, fn, m, ra, detail, ns, true);
}

GL_APICALL void GL_APIENTRY glTexSubImage2D(GLenum target, GLint level, GLint xoffset, GLint yoffset, GLsizei width,
					    GLsizei height, GLenum format, GLenum type, const void *pixels)
{
	PP_GLES_ABOVE(glTexSubImage2D, (target, level, xoffset, yoffset, width, height, format, type, pixels));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	struct pp_gles_call_mark m = g ? pp_gles_diag_call(c, PP_GLES_CALL_TEX_SUB_IMAGE_2D, "glTexSubImage2D")
				       : (struct pp_gles_call_mark){ 0 };
	struct gles_diag_texture *x = texture_sampled(g, target);
	if (!x) {
		PP_REAL(glTexSubImage2D)(target, level, xoffset, yoffset, width, height, format, type, pixels);
		return;
	}
	struct pp_gles_diag_span sp;
	pp_gles_diag_span_begin(&sp);
	PP_REAL(glTexSubImage2D)(target, level, xoffset, yoffset, width, height, format, type, pixels);
	texture_report(c, x, "glTexSubImage2D", &m, pp_gles_site(__builtin_return_address(0)),
		       pp_gles_diag_span_end(c, &sp, "glTexSubImage2D"));
}

GL_APICALL void GL_APIENTRY glTexSubImage3D(GLenum target, GLint level, GLint xoffset, GLint yoffset, GLint zoffset,
					    GLsizei width, GLsizei height, GLsizei depth, GLenum format, GLenum type,
					    const void *pixels)
{
	PP_GLES_ABOVE(glTexSubImage3D,
		      (target, level, xoffset, yoffset, zoffset, width, height, depth, format, type, pixels));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	struct pp_gles_call_mark m = g ? pp_gles_diag_call(c, PP_GLES_CALL_TEX_SUB_IMAGE_3D, "glTexSubImage3D")
				       : (struct pp_gles_call_mark){ 0 };
	struct gles_diag_texture *x = texture_sampled(g, target);
	if (!x) {
		PP_REAL(glTexSubImage3D)(target, level, xoffset, yoffset, zoffset, width, height, depth, format, type,
					 pixels);
		return;
	}
	struct pp_gles_diag_span sp;
	pp_gles_diag_span_begin(&sp);
	PP_REAL(glTexSubImage3D)(target, level, xoffset, yoffset, zoffset, width, height, depth, format, type, pixels);
	texture_report(c, x, "glTexSubImage3D", &m, pp_gles_site(__builtin_return_address(0)),
		       pp_gles_diag_span_end(c, &sp, "glTexSubImage3D"));
}

/* ---- queries --------------------------------------------------------------------------------- */

/* Active queries per target, from the application's own begin/end calls. A begin that fails
 * because the target is busy leaves the slot as it is (GL keeps the active query too). */
static int query_target(GLenum target)
{
	switch (target) {
	case GL_ANY_SAMPLES_PASSED: return 0;
	case GL_ANY_SAMPLES_PASSED_CONSERVATIVE: return 1;
	case GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN: return 2;
	case GL_PRIMITIVES_GENERATED: return 3;
	default: return -1;
	}
}

GL_APICALL void GL_APIENTRY glBeginQuery(GLenum target, GLuint id)
{
	PP_GLES_ABOVE(glBeginQuery, (target, id));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	int t = g ? query_target(target) : -1;
	if (t >= 0 && !g->active_queries[t])
		g->active_queries[t] = id;
	PP_REAL(glBeginQuery)(target, id);
}

GL_APICALL void GL_APIENTRY glEndQuery(GLenum target)
{
	PP_GLES_ABOVE(glEndQuery, (target));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	int t = g ? query_target(target) : -1;
	if (t >= 0)
		g->active_queries[t] = 0;
	PP_REAL(glEndQuery)(target);
}

/* Whether a GL_QUERY_RESULT read of query `id` would wait: its result is not available. Only
 * asked where the read cannot raise an error (the query exists and is not active), so the
 * application's error state is untouched. */
static bool query_would_wait(struct pp_gles_ctx *c, struct pp_gles_diag *g, GLuint id)
{
	if (!c->es3 || !id)
		return false;
	for (uint32_t i = 0; i < 4; i++)
		if (g->active_queries[i] == id)
			return false;
	PFNGLISQUERYPROC is_query = PP_REAL(glIsQuery);
	PFNGLGETQUERYOBJECTUIVPROC get = PP_REAL(glGetQueryObjectuiv);
	if (!is_query || !get)
		return false;
	GLuint available = GL_TRUE;
	pp_egl_guard_enter();
	if (is_query(id))
		get(id, GL_QUERY_RESULT_AVAILABLE, &available);
	pp_egl_guard_leave();
	return available == GL_FALSE;
}

#define QUERY_HOOK(name, type, counted)                                                            \
	GL_APICALL void GL_APIENTRY name(GLuint id, GLenum pname, type *params)                    \
	{                                                                                          \
		PP_GLES_ABOVE(name, (id, pname, params));                                          \
		struct pp_gles_ctx *c;                                                             \
		struct pp_gles_diag *g = diag_of(&c);                                              \
		struct pp_gles_call_mark m = g ? pp_gles_diag_call(c, counted, #name)              \
					       : (struct pp_gles_call_mark){ 0 };                  \
		if (!g || pname != GL_QUERY_RESULT || !query_would_wait(c, g, id)) {               \
			PP_REAL(name)(id, pname, params);                                          \
			return;                                                                    \
		}                                                                                  \
		struct pp_gles_diag_span sp;                                                       \
		pp_gles_diag_span_begin(&sp);                                                      \
		PP_REAL(name)(id, pname, params);                                                  \
		uint64_t ns = pp_gles_diag_span_end(c, &sp, #name);                                \
		char detail[96];                                                                   \
		snprintf(detail, sizeof(detail), "(query %u, GL_QUERY_RESULT_AVAILABLE was false)", id); \
		pp_gles_diag_report(c, PP_DIAG_QUERY_RESULT_WAIT, #name, &m,                       \
				    pp_gles_site(__builtin_return_address(0)), detail, ns, true);      \
	}

QUERY_HOOK(glGetQueryObjectuiv, GLuint, PP_GLES_CALL_GET_QUERY_OBJECT_UIV)
QUERY_HOOK(glGetQueryObjectuivEXT, GLuint, PP_GLES_CALL_GET_QUERY_OBJECT_UIV_EXT)
QUERY_HOOK(glGetQueryObjectui64vEXT, GLuint64, PP_GLES_CALL_GET_QUERY_OBJECT_UI64V_EXT)

/* ---- fences ------------------------------------------------------------------------------------ */

GL_APICALL GLenum GL_APIENTRY glClientWaitSync(GLsync sync, GLbitfield flags, GLuint64 timeout)
{
	PP_GLES_ABOVE_RET(glClientWaitSync, (sync, flags, timeout));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	if (!g)
		return PP_REAL(glClientWaitSync)(sync, flags, timeout);
	struct pp_gles_call_mark m = pp_gles_diag_call(c, PP_GLES_CALL_CLIENT_WAIT_SYNC, "glClientWaitSync");
	uint64_t seq = 0;
	enum pp_diag_wait_verdict v = pp_diag_waits_fence_check(g->dd, (uint64_t)(uintptr_t)sync, &seq);
	/* A zero timeout is a status poll, not a wait. */
	bool flagged = timeout > 0 && v == PP_WAIT_CURRENT_FRAME;
	struct pp_gles_diag_span sp;
	if (flagged)
		pp_gles_diag_span_begin(&sp);
	GLenum r = PP_REAL(glClientWaitSync)(sync, flags, timeout);
	if (r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED)
		pp_diag_waits_completed(g->dd, seq);
	if (flagged) {
		uint64_t ns = pp_gles_diag_span_end(c, &sp, "glClientWaitSync");
		char detail[160];
		snprintf(detail, sizeof(detail), "(the fence of submission %llu, frame %llu, timeout %llu ns)",
			 (unsigned long long)seq, (unsigned long long)g->frame, (unsigned long long)timeout);
		pp_gles_diag_report(c, PP_DIAG_SYNC_WAIT, "glClientWaitSync", &m,
				    pp_gles_site(__builtin_return_address(0)), detail, ns, true);
	}
	return r;
}

/* ---- KHR_debug ------------------------------------------------------------------------------- */

GL_APICALL void GL_APIENTRY glDebugMessageCallback(GLDEBUGPROC callback, const void *user)
{
	PP_GLES_ABOVE(glDebugMessageCallback, (callback, user));
	struct pp_gles_ctx *c = pp_gles_acting();
	if (c && !pp_egl_real_tls.rdoc_own)
		pp_gles_diag_debug_callback(c, callback, user);
	PP_REAL(glDebugMessageCallback)(callback, user);
}

GL_APICALL void GL_APIENTRY glDebugMessageCallbackKHR(GLDEBUGPROCKHR callback, const void *user)
{
	PP_GLES_ABOVE(glDebugMessageCallbackKHR, (callback, user));
	struct pp_gles_ctx *c = pp_gles_acting();
	if (c && !pp_egl_real_tls.rdoc_own)
		pp_gles_diag_debug_callback(c, (GLDEBUGPROC)callback, user);
	PP_REAL(glDebugMessageCallbackKHR)(callback, user);
}

GL_APICALL void GL_APIENTRY glDebugMessageControl(GLenum source, GLenum type, GLenum severity, GLsizei count,
						  const GLuint *ids, GLboolean enabled)
{
	PP_GLES_ABOVE(glDebugMessageControl, (source, type, severity, count, ids, enabled));
	struct pp_gles_ctx *c = pp_gles_acting();
	if (c && !pp_egl_real_tls.rdoc_own)
		pp_gles_diag_debug_control(c, source, type, severity, count, ids, enabled);
	PP_REAL(glDebugMessageControl)(source, type, severity, count, ids, enabled);
}

GL_APICALL void GL_APIENTRY glDebugMessageControlKHR(GLenum source, GLenum type, GLenum severity, GLsizei count,
						     const GLuint *ids, GLboolean enabled)
{
	PP_GLES_ABOVE(glDebugMessageControlKHR, (source, type, severity, count, ids, enabled));
	struct pp_gles_ctx *c = pp_gles_acting();
	if (c && !pp_egl_real_tls.rdoc_own)
		pp_gles_diag_debug_control(c, source, type, severity, count, ids, enabled);
	PP_REAL(glDebugMessageControlKHR)(source, type, severity, count, ids, enabled);
}

/* ---- the tile rules' inputs --------------------------------------------------------------- */

/* Depth and stencil tests and depth writes: whether a pass loads and writes its depth and
 * stencil attachments at all (state calls, never the draw path). */
static void zs_state_set(struct pp_gles_diag *g, uint8_t bit, bool on)
{
	g->zs_state = on ? g->zs_state | bit : g->zs_state & (uint8_t)~bit;
	/* A render pass open: it ran with this on from here. */
	if (on)
		g->pass_zs |= bit;
}

static uint8_t zs_cap(GLenum cap)
{
	return cap == GL_DEPTH_TEST ? GLES_ZS_DEPTH_TEST : cap == GL_STENCIL_TEST ? GLES_ZS_STENCIL_TEST : 0;
}

GL_APICALL void GL_APIENTRY glEnable(GLenum cap)
{
	PP_GLES_ABOVE(glEnable, (cap));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	if (g && zs_cap(cap))
		zs_state_set(g, zs_cap(cap), true);
	PP_REAL(glEnable)(cap);
}

GL_APICALL void GL_APIENTRY glDisable(GLenum cap)
{
	PP_GLES_ABOVE(glDisable, (cap));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	if (g && zs_cap(cap))
		zs_state_set(g, zs_cap(cap), false);
	PP_REAL(glDisable)(cap);
}

GL_APICALL void GL_APIENTRY glDepthMask(GLboolean flag)
{
	PP_GLES_ABOVE(glDepthMask, (flag));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	if (g)
		zs_state_set(g, GLES_ZS_DEPTH_WRITE, flag != GL_FALSE);
	PP_REAL(glDepthMask)(flag);
}

/* Textures bound for image load/store: what shaders (compute above all) may read besides what
 * they sample. Beyond the units followed, the texture counts as read when bound. */
GL_APICALL void GL_APIENTRY glBindImageTexture(GLuint unit, GLuint texture, GLint level, GLboolean layered, GLint layer,
					       GLenum access, GLenum format)
{
	PP_GLES_ABOVE(glBindImageTexture, (unit, texture, level, layered, layer, access, format));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	if (g && unit < GLES_DIAG_IMAGE_UNITS) {
		g->image_units[unit] = texture;
		g->image_units_bound = texture ? g->image_units_bound | 1u << unit : g->image_units_bound & ~(1u << unit);
		c->diag_dirty |= PP_GLES_DIRTY_TEXTURES;
	} else if (g) {
		pp_gles_diag_texture_read(g, texture);
	}
	PP_REAL(glBindImageTexture)(unit, texture, level, layered, layer, access, format);
}

/* Reads of what a pass stored: a copy from the read framebuffer's colour, mipmaps made from a
 * texture's level 0. */
static uint32_t read_framebuffer(const struct pp_gles_ctx *c)
{
	return c->es3 ? c->read_fb : c->pm.fb;
}

GL_APICALL void GL_APIENTRY glCopyTexImage2D(GLenum target, GLint level, GLenum internalformat, GLint x, GLint y,
					     GLsizei width, GLsizei height, GLint border)
{
	PP_GLES_ABOVE(glCopyTexImage2D, (target, level, internalformat, x, y, width, height, border));
	struct pp_gles_ctx *c;
	if (diag_of(&c))
		pp_gles_diag_fb_read(c, read_framebuffer(c), PP_GLES_ATT_COLOR);
	PP_REAL(glCopyTexImage2D)(target, level, internalformat, x, y, width, height, border);
}

GL_APICALL void GL_APIENTRY glCopyTexSubImage2D(GLenum target, GLint level, GLint xoffset, GLint yoffset, GLint x,
						GLint y, GLsizei width, GLsizei height)
{
	PP_GLES_ABOVE(glCopyTexSubImage2D, (target, level, xoffset, yoffset, x, y, width, height));
	struct pp_gles_ctx *c;
	if (diag_of(&c))
		pp_gles_diag_fb_read(c, read_framebuffer(c), PP_GLES_ATT_COLOR);
	PP_REAL(glCopyTexSubImage2D)(target, level, xoffset, yoffset, x, y, width, height);
}

GL_APICALL void GL_APIENTRY glGenerateMipmap(GLenum target)
{
	PP_GLES_ABOVE(glGenerateMipmap, (target));
	struct pp_gles_ctx *c;
	struct pp_gles_diag *g = diag_of(&c);
	int t = texture_target(target);
	if (g && t >= 0 && g->active_unit < GLES_DIAG_UNITS)
		pp_gles_diag_texture_read(g, g->units[g->active_unit][t]);
	PP_REAL(glGenerateMipmap)(target);
}

/* A program that asks a surface's buffer age repaints only what changed, on the old contents
 * of its back buffer (a compositor does): the first pass after a swap loads them on purpose. */
EGLAPI EGLBoolean EGLAPIENTRY eglQuerySurface(EGLDisplay dpy, EGLSurface surface, EGLint attribute, EGLint *value)
{
	PP_GLES_ABOVE_RET(eglQuerySurface, (dpy, surface, attribute, value));
	struct pp_gles_ctx *c = attribute == EGL_BUFFER_AGE_EXT && !pp_egl_real_tls.rdoc_own ? pp_gles_acting() : NULL;
	if (c)
		c->surface_age_used = true;
	return PP_REAL(eglQuerySurface)(dpy, surface, attribute, value);
}
