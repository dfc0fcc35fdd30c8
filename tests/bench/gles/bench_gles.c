/* API-heavy OpenGL ES benchmark, the GLES twin of tests/bench/api/bench_api.c: P passes x D
 * small draws per frame on the EGL surfaceless platform (Mesa llvmpipe), into a pbuffer.
 * Each pass is a debug group (glPushDebugGroup "passN"), a framebuffer object of its own
 * (P of them, SIZE x SIZE, colour only), a clear, and D draws of one triangle with a uniform
 * change before each (the state change engines make between draws); eglSwapBuffers ends the
 * frame. Prints the median frame time (start of one frame to the start of the next) over
 * the frames after the first 10% (set-up and shader compiles).
 *
 *   bench_gles [--frames N] [--passes P] [--draws D] [--size S] [--frame-times FILE]
 *
 * --frame-times FILE: every frame's time, one line each in frame order (tests/bench/run_window_ab.sh).
 *
 * Linked to libEGL and libGLESv2, so that LD_PRELOAD of the shim interposes as on any
 * program. Exit 77: no EGL surfaceless platform or GLES 3.1 here. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl32.h>
#include <GLES2/gl2ext.h>

#include "../bench_time.h"

#define SKIP 77

static const char *vs_src = "#version 310 es\n"
			    "uniform vec2 offset;\n"
			    "void main() {\n"
			    "  vec2 p = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1)) * 0.25 + offset;\n"
			    "  gl_Position = vec4(p, 0.0, 1.0);\n"
			    "}\n";
static const char *fs_src = "#version 310 es\n"
			    "precision mediump float;\n"
			    "out vec4 color;\n"
			    "void main() { color = vec4(0.2, 0.6, 0.9, 1.0); }\n";

static GLuint shader(GLenum type, const char *src)
{
	GLuint s = glCreateShader(type);
	glShaderSource(s, 1, &src, NULL);
	glCompileShader(s);
	return s;
}

static int arg_uint(const char *s, unsigned lo, unsigned hi, const char *name, unsigned *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || v < lo || v > hi) {
		fprintf(stderr, "bench_gles: %s must be an integer %u to %u, not '%s'\n", name, lo, hi, s);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned frames = 300, passes = 20, draws = 50, size = 64;
	const char *frame_times = NULL;
	for (int i = 1; i < argc; i++) {
		int bad = i + 1 >= argc;
		if (!bad && !strcmp(argv[i], "--frames"))
			bad = arg_uint(argv[++i], 1, 1000000, "--frames", &frames);
		else if (!bad && !strcmp(argv[i], "--passes"))
			bad = arg_uint(argv[++i], 1, 1000, "--passes", &passes);
		else if (!bad && !strcmp(argv[i], "--draws"))
			bad = arg_uint(argv[++i], 1, 100000, "--draws", &draws);
		else if (!bad && !strcmp(argv[i], "--size"))
			bad = arg_uint(argv[++i], 1, 4096, "--size", &size);
		else if (!bad && !strcmp(argv[i], "--frame-times"))
			frame_times = argv[++i];
		else
			bad = 1;
		if (bad) {
			fprintf(stderr, "usage: bench_gles [--frames N] [--passes P] [--draws D] [--size S] [--frame-times FILE]\n");
			return 2;
		}
	}

	PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
		(PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
	EGLDisplay dpy = get_platform_display ? get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL)
					      : EGL_NO_DISPLAY;
	if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, NULL, NULL)) {
		fprintf(stderr, "bench_gles: no EGL surfaceless platform here (Mesa's libegl-mesa0)\n");
		return SKIP;
	}
	const EGLint cfg_attr[] = { EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT,
				    EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE };
	EGLConfig config;
	EGLint n = 0;
	eglBindAPI(EGL_OPENGL_ES_API);
	const EGLint ctx_attr[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1, EGL_NONE };
	const EGLint pb_attr[] = { EGL_WIDTH, (EGLint)size, EGL_HEIGHT, (EGLint)size, EGL_NONE };
	EGLContext ctx = EGL_NO_CONTEXT;
	EGLSurface surf = EGL_NO_SURFACE;
	if (eglChooseConfig(dpy, cfg_attr, &config, 1, &n) && n == 1) {
		ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, ctx_attr);
		surf = eglCreatePbufferSurface(dpy, config, pb_attr);
	}
	if (ctx == EGL_NO_CONTEXT || surf == EGL_NO_SURFACE || !eglMakeCurrent(dpy, surf, surf, ctx)) {
		fprintf(stderr, "bench_gles: no GLES 3.1 context with a pbuffer here\n");
		return SKIP;
	}

	GLuint prog = glCreateProgram();
	glAttachShader(prog, shader(GL_VERTEX_SHADER, vs_src));
	glAttachShader(prog, shader(GL_FRAGMENT_SHADER, fs_src));
	glLinkProgram(prog);
	GLint linked = 0;
	glGetProgramiv(prog, GL_LINK_STATUS, &linked);
	if (!linked) {
		fprintf(stderr, "bench_gles: the shaders did not link\n");
		return 1;
	}
	glUseProgram(prog);
	GLint offset = glGetUniformLocation(prog, "offset");
	GLuint *fbo = calloc(passes, sizeof(*fbo)), *tex = calloc(passes, sizeof(*tex));
	uint64_t *frame_ns = calloc(frames, sizeof(*frame_ns));
	if (!fbo || !tex || !frame_ns)
		return 1;
	glGenFramebuffers((GLsizei)passes, fbo);
	glGenTextures((GLsizei)passes, tex);
	for (unsigned p = 0; p < passes; p++) {
		glBindTexture(GL_TEXTURE_2D, tex[p]);
		glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, (GLsizei)size, (GLsizei)size);
		glBindFramebuffer(GL_FRAMEBUFFER, fbo[p]);
		glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex[p], 0);
	}
	glViewport(0, 0, (GLsizei)size, (GLsizei)size);
	glClearColor(0.1f, 0.1f, 0.1f, 1.0f);

	char label[32];
	uint64_t start = now_ns();
	for (unsigned f = 0; f < frames; f++) {
		for (unsigned p = 0; p < passes; p++) {
			snprintf(label, sizeof(label), "pass%u", p);
			glPushDebugGroup(GL_DEBUG_SOURCE_APPLICATION, p, -1, label);
			glBindFramebuffer(GL_FRAMEBUFFER, fbo[p]);
			glClear(GL_COLOR_BUFFER_BIT);
			for (unsigned d = 0; d < draws; d++) {
				glUniform2f(offset, (float)(d % 8) * 0.25f - 1.0f, (float)(d / 8 % 8) * 0.25f - 1.0f);
				glDrawArrays(GL_TRIANGLES, 0, 3);
			}
			glPopDebugGroup();
		}
		glBindFramebuffer(GL_FRAMEBUFFER, 0);
		eglSwapBuffers(dpy, surf);
		uint64_t t = now_ns();
		frame_ns[f] = t - start;
		start = t;
	}
	glFinish();
	if (frame_times && frame_times_write(frame_times, frame_ns, frames) != 0)
		return 1;
	unsigned skip = frames / 10, m = frames - skip;
	/* The mean (of the frames the median is taken over) counts what the median leaves out:
	 * work that comes in bursts between frames, as passprobe's writer does. */
	uint64_t sum = 0;
	for (unsigned f = skip; f < frames; f++)
		sum += frame_ns[f];
	qsort(frame_ns + skip, m, sizeof(*frame_ns), cmp_u64);
	printf("frames=%u passes=%u draws=%u size=%u median_frame_ns=%llu mean_frame_ns=%llu\n", frames, passes, draws,
	       size, (unsigned long long)frame_ns[skip + m / 2], (unsigned long long)(m ? sum / m : 0));
	eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	eglDestroySurface(dpy, surf);
	eglDestroyContext(dpy, ctx);
	eglTerminate(dpy);
	free(fbo);
	free(tex);
	free(frame_ns);
	return 0;
}
