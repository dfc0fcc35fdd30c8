/* A small OpenGL ES 3.1 program on the EGL surfaceless platform (Mesa llvmpipe) for the shim's
 * own tests: known passes per frame, linked directly or loading libEGL/libGLESv2 with dlopen.
 *
 *   pp_gles_mini [--frames N] [--dlopen] [--threads N] [--no-swap] [--finish] [--readback] [--heavy N]
 *               [--errors] [--expect] [--no-context] [--bench-draws N] [--destroy-current]
 *               [--flush-passes] [--signal-at 3,7] [--two-surfaces] [--bgra]
 *
 * Per frame, per thread (each thread its own context; with --threads, contexts share with the
 * first one):
 *   pass 0 "shadow"   framebuffer A labelled with glObjectLabel, cleared colour+depth, 3 draws
 *                     of 3 vertices, depth invalidated at the end;
 *   pass 1 "lighting" debug group, framebuffer B, colour cleared, 2 instanced draws (3 vertices
 *                     x 4 instances) and 1 indexed draw (6 indices), each a full-screen
 *                     triangle drawn `heavy` times more instances (the configured load);
 *   pass 2            compute, framebuffer 0 bound: 2 dispatches of 4x1x1 groups and a
 *                     glMemoryBarrier;
 * then eglSwapBuffers on a pbuffer (or glFinish with --no-swap, surfaceless; or glFinish with
 * --finish, the pbuffer current but never swapped, as glmark2-es2 --off-screen does; or, with
 * --readback, surfaceless, glReadPixels of framebuffer A into client memory). --flush-passes:
 * glFlush after passes 0 and 1, so a frame is three submissions (the compute pass is still
 * "compute#2": generated names count passes over the frame). --two-surfaces: after the compute
 * pass, a clear and a draw into the pbuffer, then the same context made current with a second
 * pbuffer (48x32) and a draw into it, and the frame ends with that one's swap: two passes on
 * framebuffer 0, one per surface (a context's default framebuffer is its draw surface's).
 * --bgra: framebuffer B's colour is a GL_BGRA_EXT texture (EXT_texture_format_BGRA8888, what
 * ANGLE renders Chromium's canvases into) made with glTexImage2D instead of an RGBA8 one.
 * --signal-at: raise(SIGUSR2)
 * before the first call of each frame listed (thread 0), for the capture-signal test.
 * Prints "frame <i> done" lines and, with --errors, every glGetError value it sees after a
 * deliberately bad call and after each frame ("glerror <frame> <hex>"), so a run with and
 * without the shim can be compared. Exit 77: no EGL surfaceless/GLES 3.1 here. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl32.h>
#include <GLES2/gl2ext.h>

#define SKIP 77

#define GL_FUNCS(X)                                                                                 \
	X(eglGetProcAddress) X(eglGetDisplay) X(eglInitialize) X(eglChooseConfig) X(eglCreateContext) \
	X(eglCreatePbufferSurface) X(eglMakeCurrent) X(eglSwapBuffers) X(eglDestroyContext)          \
	X(eglDestroySurface) X(eglTerminate) X(eglBindAPI) X(eglReleaseThread)                      \
	X(glGenFramebuffers) X(glBindFramebuffer) X(glGenTextures) X(glBindTexture) X(glTexStorage2D) X(glTexImage2D) \
	X(glFramebufferTexture2D) X(glGenRenderbuffers) X(glBindRenderbuffer) X(glRenderbufferStorage) \
	X(glFramebufferRenderbuffer) X(glClear) X(glClearColor) X(glDrawArrays) X(glDrawArraysInstanced) \
	X(glDrawElements) X(glDispatchCompute) X(glMemoryBarrier) X(glInvalidateFramebuffer)        \
	X(glPushDebugGroup) X(glPopDebugGroup) X(glObjectLabel) X(glFinish) X(glFlush) X(glGetError) X(glReadPixels) \
	X(glCreateShader) X(glShaderSource) X(glCompileShader) X(glCreateProgram) X(glAttachShader) \
	X(glLinkProgram) X(glUseProgram) X(glViewport) X(glGenBuffers) X(glBindBuffer) X(glBufferData) \
	X(glGetShaderiv) X(glGetProgramiv) X(glUniform1i) X(glGetUniformLocation) X(glBindBufferBase) \
	X(glDeleteFramebuffers) X(glDeleteTextures) X(glDeleteRenderbuffers) X(glDeleteProgram)     \
	X(glDeleteShader) X(glDeleteBuffers)

static struct {
#define X(n) __typeof__(&n) n;
	GL_FUNCS(X)
#undef X
} gl;

static int frames = 3, nthreads = 1, heavy = 1;
static int no_swap, finish_frames, readback_frames, report_errors, expect, no_context, bench_draws, destroy_current;
static int two_surfaces, bgra;
static int flush_passes;
static int signal_at[8], nsignal_at;

/* The per-draw cost benchmark (tests/bench/gles/run_gles_bench.sh): callgrind collects only
 * inside this function, with and without the shim. */
__attribute__((noinline)) void bench_draw_loop(int n);
__attribute__((noinline)) void bench_draw_loop(int n)
{
	for (int i = 0; i < n; i++)
		gl.glDrawArrays(GL_TRIANGLES, 0, 3);
}
static EGLDisplay dpy;
static EGLConfig config;
static EGLContext first_ctx = EGL_NO_CONTEXT;
static pthread_mutex_t first_lock = PTHREAD_MUTEX_INITIALIZER;

static int load(int use_dlopen)
{
	if (!use_dlopen) {
#define X(n) gl.n = &n;
		GL_FUNCS(X)
#undef X
		return 0;
	}
	void *egl = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
	void *gles = dlopen("libGLESv2.so.2", RTLD_NOW | RTLD_LOCAL);
	if (!egl || !gles) {
		fprintf(stderr, "pp_gles_mini: cannot dlopen libEGL.so.1/libGLESv2.so.2\n");
		return -1;
	}
	/* EGL from libEGL, GL from libGLESv2, both with dlsym, as engines do. */
#define X(n) gl.n = (__typeof__(&n))dlsym(#n[0] == 'e' ? egl : gles, #n);
	GL_FUNCS(X)
#undef X
	return 0;
}

static const char *vs_src = "#version 310 es\n"
			    "void main() {\n"
			    "  vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);\n"
			    "  gl_Position = vec4(p, 0.0, 1.0);\n"
			    "}\n";
static const char *fs_src = "#version 310 es\n"
			    "precision highp float;\n"
			    "uniform int iters;\n"
			    "out vec4 color;\n"
			    "void main() {\n"
			    "  float v = gl_FragCoord.x * 0.001;\n"
			    "  for (int i = 0; i < iters; i++) v = fract(sin(v * 12.9898 + float(i)) * 43758.5453);\n"
			    "  color = vec4(v, 0.5, 0.25, 1.0);\n"
			    "}\n";
static const char *cs_src = "#version 310 es\n"
			    "layout(local_size_x = 8) in;\n"
			    "layout(std430, binding = 0) buffer B { uint v[]; } b;\n"
			    "void main() { b.v[gl_GlobalInvocationID.x] += 1u; }\n";

static GLuint shader(GLenum type, const char *src)
{
	GLuint s = gl.glCreateShader(type);
	gl.glShaderSource(s, 1, &src, NULL);
	gl.glCompileShader(s);
	GLint ok = 0;
	gl.glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
	if (!ok)
		fprintf(stderr, "pp_gles_mini: shader did not compile\n");
	return s;
}

static GLuint program(GLuint a, GLuint b)
{
	GLuint p = gl.glCreateProgram();
	gl.glAttachShader(p, a);
	if (b)
		gl.glAttachShader(p, b);
	gl.glLinkProgram(p);
	return p;
}

static void errors(int frame)
{
	if (!report_errors)
		return;
	for (GLenum e; (e = gl.glGetError()) != GL_NO_ERROR;)
		printf("glerror %d 0x%x\n", frame, e);
	printf("glerror %d none\n", frame);
}

static void *run(void *arg)
{
	long index = (long)arg;
	const EGLint ctx_attr[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1, EGL_NONE };
	pthread_mutex_lock(&first_lock);
	EGLContext ctx = gl.eglCreateContext(dpy, config, first_ctx, ctx_attr);
	if (first_ctx == EGL_NO_CONTEXT)
		first_ctx = ctx;
	pthread_mutex_unlock(&first_lock);
	const EGLint pb_attr[] = { EGL_WIDTH, 64, EGL_HEIGHT, 64, EGL_NONE };
	EGLSurface surf = gl.eglCreatePbufferSurface(dpy, config, pb_attr);
	const EGLint pb2_attr[] = { EGL_WIDTH, 48, EGL_HEIGHT, 32, EGL_NONE };
	EGLSurface surf2 = two_surfaces ? gl.eglCreatePbufferSurface(dpy, config, pb2_attr) : EGL_NO_SURFACE;
	/* --no-swap, --readback: no surface at all (surfaceless), the headless program of
	 * frame_delimiter=auto */
	EGLSurface bind = no_swap || readback_frames ? EGL_NO_SURFACE : surf;
	if (ctx == EGL_NO_CONTEXT || surf == EGL_NO_SURFACE || !gl.eglMakeCurrent(dpy, bind, bind, ctx)) {
		fprintf(stderr, "pp_gles_mini: no GLES 3.1 context\n");
		return (void *)1;
	}
	GLuint vs = shader(GL_VERTEX_SHADER, vs_src), fs = shader(GL_FRAGMENT_SHADER, fs_src);
	GLuint cs = shader(GL_COMPUTE_SHADER, cs_src);
	GLuint draw_prog = program(vs, fs), comp_prog = program(cs, 0);
	GLint iters = gl.glGetUniformLocation(draw_prog, "iters");

	GLuint fbo[2], tex[2], rb, ssbo, ibo;
	gl.glGenFramebuffers(2, fbo);
	gl.glGenTextures(2, tex);
	gl.glGenRenderbuffers(1, &rb);
	gl.glBindRenderbuffer(GL_RENDERBUFFER, rb);
	gl.glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, 128, 128);
	for (int i = 0; i < 2; i++) {
		gl.glBindTexture(GL_TEXTURE_2D, tex[i]);
		if (i && bgra)
			gl.glTexImage2D(GL_TEXTURE_2D, 0, GL_BGRA_EXT, 128, 128, 0, GL_BGRA_EXT, GL_UNSIGNED_BYTE, NULL);
		else
			gl.glTexStorage2D(GL_TEXTURE_2D, 1, i ? GL_RGBA8 : GL_RGBA16F, 128, 128);
		gl.glBindFramebuffer(GL_FRAMEBUFFER, fbo[i]);
		gl.glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex[i], 0);
	}
	gl.glBindFramebuffer(GL_FRAMEBUFFER, fbo[0]);
	gl.glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb);
	gl.glObjectLabel(GL_FRAMEBUFFER, fbo[0], -1, "shadow");
	gl.glBindFramebuffer(GL_FRAMEBUFFER, 0);
	gl.glGenBuffers(1, &ssbo);
	gl.glBindBuffer(GL_SHADER_STORAGE_BUFFER, ssbo);
	gl.glBufferData(GL_SHADER_STORAGE_BUFFER, 4096, NULL, GL_DYNAMIC_DRAW);
	gl.glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, ssbo);
	static const GLushort idx[6] = { 0, 1, 2, 2, 1, 0 };
	gl.glGenBuffers(1, &ibo);
	gl.glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
	gl.glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof(idx), idx, GL_STATIC_DRAW);
	gl.glViewport(0, 0, 128, 128);

	if (bench_draws) {
		gl.glUseProgram(draw_prog);
		gl.glUniform1i(iters, 0);
		gl.glBindFramebuffer(GL_FRAMEBUFFER, fbo[1]);
		gl.glClear(GL_COLOR_BUFFER_BIT);
		gl.glDrawArrays(GL_TRIANGLES, 0, 3); /* the pass is open before the loop */
		bench_draw_loop(bench_draws);
		gl.glFinish();
		printf("bench: %d draws\n", bench_draws);
		frames = 0;
	}
	if (report_errors) {
		gl.glBindTexture(0x1234, 0); /* GL_INVALID_ENUM on purpose */
		errors(-1);
	}
	for (int f = 0; f < frames; f++) {
		for (int i = 0; i < nsignal_at && index == 0; i++)
			if (signal_at[i] == f)
				raise(SIGUSR2);
		gl.glUseProgram(draw_prog);
		gl.glBindFramebuffer(GL_FRAMEBUFFER, fbo[0]);
		gl.glUniform1i(iters, 4);
		gl.glClearColor(0, 0, 0, 1);
		gl.glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
		for (int d = 0; d < 3; d++)
			gl.glDrawArrays(GL_TRIANGLES, 0, 3);
		const GLenum depth = GL_DEPTH_ATTACHMENT;
		gl.glInvalidateFramebuffer(GL_FRAMEBUFFER, 1, &depth);
		if (flush_passes)
			gl.glFlush();

		gl.glPushDebugGroup(GL_DEBUG_SOURCE_APPLICATION, 1, -1, "lighting");
		gl.glBindFramebuffer(GL_FRAMEBUFFER, fbo[1]);
		gl.glUniform1i(iters, 64 * heavy);
		gl.glClear(GL_COLOR_BUFFER_BIT);
		gl.glDrawArraysInstanced(GL_TRIANGLES, 0, 3, 4);
		gl.glDrawArraysInstanced(GL_TRIANGLES, 0, 3, 4);
		gl.glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, 0);
		gl.glPopDebugGroup();
		if (flush_passes)
			gl.glFlush();

		/* The binding change ends "lighting"; the dispatches make a pass of their own. */
		gl.glBindFramebuffer(GL_FRAMEBUFFER, 0);
		gl.glUseProgram(comp_prog);
		gl.glDispatchCompute(4, 1, 1);
		gl.glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
		gl.glDispatchCompute(4, 1, 1);
		if (report_errors && f == 1)
			gl.glDrawArrays(0x1234, 0, 3); /* GL_INVALID_ENUM on purpose, mid-frame */
		if (readback_frames) {
			uint8_t px[4 * 4 * 4];
			gl.glBindFramebuffer(GL_FRAMEBUFFER, fbo[0]);
			gl.glReadPixels(0, 0, 4, 4, GL_RGBA, GL_UNSIGNED_BYTE, px);
			gl.glBindFramebuffer(GL_FRAMEBUFFER, 0);
		} else if (no_swap || finish_frames) {
			gl.glFinish();
		} else if (two_surfaces) {
			/* A binding change ends the compute pass (work on framebuffer 0 after it would
			 * make it a render pass: the pass machine's promotion). */
			gl.glBindFramebuffer(GL_FRAMEBUFFER, fbo[0]);
			gl.glBindFramebuffer(GL_FRAMEBUFFER, 0);
			gl.glUseProgram(draw_prog);
			gl.glUniform1i(iters, 0);
			gl.glClear(GL_COLOR_BUFFER_BIT);
			gl.glDrawArrays(GL_TRIANGLES, 0, 3);
			gl.eglMakeCurrent(dpy, surf2, surf2, ctx);
			gl.glDrawArrays(GL_TRIANGLES, 0, 3);
			gl.eglSwapBuffers(dpy, surf2);
			gl.eglMakeCurrent(dpy, surf, surf, ctx);
		} else {
			gl.eglSwapBuffers(dpy, surf);
		}
		errors(f);
		printf("thread %ld frame %d done\n", index, f);
	}
	gl.glDeleteFramebuffers(2, fbo);
	gl.glDeleteTextures(2, tex);
	gl.glDeleteRenderbuffers(1, &rb);
	gl.glDeleteBuffers(1, &ssbo);
	gl.glDeleteBuffers(1, &ibo);
	gl.glDeleteProgram(draw_prog);
	gl.glDeleteProgram(comp_prog);
	gl.glDeleteShader(vs);
	gl.glDeleteShader(fs);
	gl.glDeleteShader(cs);
	if (destroy_current && ctx != first_ctx) {
		/* EGL defers the destruction of a current context until it is released. */
		gl.eglDestroyContext(dpy, ctx);
		if (index % 2)
			gl.eglReleaseThread();
		else
			gl.eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
		gl.eglDestroySurface(dpy, surf);
		return NULL;
	}
	gl.eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	gl.eglDestroySurface(dpy, surf);
	if (surf2 != EGL_NO_SURFACE)
		gl.eglDestroySurface(dpy, surf2);
	if (ctx != first_ctx)
		gl.eglDestroyContext(dpy, ctx);
	gl.eglReleaseThread();
	return NULL;
}

int main(int argc, char **argv)
{
	int use_dlopen = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--frames") && i + 1 < argc)
			frames = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--heavy") && i + 1 < argc)
			heavy = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--dlopen"))
			use_dlopen = 1;
		else if (!strcmp(argv[i], "--no-swap"))
			no_swap = 1;
		else if (!strcmp(argv[i], "--finish"))
			finish_frames = 1;
		else if (!strcmp(argv[i], "--readback"))
			readback_frames = 1;
		else if (!strcmp(argv[i], "--errors"))
			report_errors = 1;
		else if (!strcmp(argv[i], "--expect"))
			expect = 1;
		else if (!strcmp(argv[i], "--no-context"))
			no_context = 1;
		else if (!strcmp(argv[i], "--destroy-current"))
			destroy_current = 1;
		else if (!strcmp(argv[i], "--two-surfaces"))
			two_surfaces = 1;
		else if (!strcmp(argv[i], "--bgra"))
			bgra = 1;
		else if (!strcmp(argv[i], "--flush-passes"))
			flush_passes = 1;
		else if (!strcmp(argv[i], "--bench-draws") && i + 1 < argc)
			bench_draws = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--signal-at") && i + 1 < argc) {
			for (char *t = strtok(argv[++i], ","); t && nsignal_at < 8; t = strtok(NULL, ","))
				signal_at[nsignal_at++] = atoi(t);
		} else {
			fprintf(stderr, "usage: pp_gles_mini [--frames N] [--dlopen] [--threads N] [--no-swap] [--finish] "
				"[--readback] [--heavy N] [--errors] [--expect] [--no-context] [--bench-draws N] "
				"[--destroy-current] [--flush-passes] [--signal-at F,...] [--two-surfaces] [--bgra]\n");
			return 2;
		}
	}
	if (load(use_dlopen) < 0)
		return SKIP;
	if (expect) {
		/* What a profiler should see per frame (tests/gles/check_gles_report.py). */
		printf("expect pass 0 shadow source=object draws=3 instances=3 vertices=9 indices=0 dispatches=0 "
		       "barriers=0 clear=1 invalidate=1\n");
		printf("expect pass 1 lighting source=label draws=3 instances=9 vertices=24 indices=6 dispatches=0 "
		       "barriers=0 clear=1 invalidate=0%s\n", bgra ? " width=128 height=128 format=BGRA" : "");
		printf("expect pass 2 compute#2 source=generated draws=0 instances=0 vertices=0 indices=0 "
		       "dispatches=2 workgroups=8 barriers=1 clear=0 invalidate=0\n");
		if (two_surfaces) {
			printf("expect pass 3 render#3 source=generated draws=1 instances=1 vertices=3 indices=0 "
			       "dispatches=0 barriers=0 clear=1 invalidate=0 width=64 height=64\n");
			printf("expect pass 4 render#4 source=generated draws=1 instances=1 vertices=3 indices=0 "
			       "dispatches=0 barriers=0 clear=0 invalidate=0 width=48 height=32\n");
		}
	}
	PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
		(PFNEGLGETPLATFORMDISPLAYEXTPROC)gl.eglGetProcAddress("eglGetPlatformDisplayEXT");
	dpy = get_platform_display ? get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL)
				   : EGL_NO_DISPLAY;
	if (dpy == EGL_NO_DISPLAY || !gl.eglInitialize(dpy, NULL, NULL)) {
		fprintf(stderr, "pp_gles_mini: no EGL surfaceless platform here (Mesa's libegl-mesa0)\n");
		return SKIP;
	}
	const EGLint cfg_attr[] = { EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT,
				    EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE };
	EGLint n = 0;
	gl.eglBindAPI(EGL_OPENGL_ES_API);
	if (!gl.eglChooseConfig(dpy, cfg_attr, &config, 1, &n) || n < 1) {
		fprintf(stderr, "pp_gles_mini: no pbuffer GLES 3 config\n");
		return SKIP;
	}
	if (no_context) {
		/* EGL used, no context ever made current: the shim must leave no trace. */
		gl.eglTerminate(dpy);
		printf("no context made current\n");
		return 0;
	}
	int rc = 0;
	if (nthreads <= 1) {
		rc = run(0) != NULL;
	} else {
		pthread_t t[64];
		if (nthreads > 64)
			nthreads = 64;
		for (long i = 0; i < nthreads; i++)
			pthread_create(&t[i], NULL, run, (void *)i);
		for (int i = 0; i < nthreads; i++) {
			void *r;
			pthread_join(t[i], &r);
			rc |= r != NULL;
		}
	}
	if (first_ctx != EGL_NO_CONTEXT)
		gl.eglDestroyContext(dpy, first_ctx);
	gl.eglTerminate(dpy);
	return rc;
}
