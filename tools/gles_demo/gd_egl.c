/* The EGL side: a display of the surfaceless platform or of an EGL device, an OpenGL ES 3.2
 * context, a pbuffer made current so that eglSwapBuffers marks real frame boundaries, and the
 * optional KHR_debug callback. */
#include "gd.h"

#include <stdlib.h>
#include <string.h>

void gd_egl_fail(const char *call)
{
	fprintf(stderr, GD_NAME ": %s failed (EGL error 0x%04x)\n", call, gd_load_gl.eglGetError());
}

static bool gd_extension_has(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

static int gd_version_parse(struct gd_context *ctx)
{
	const char *version = (const char *)gd_load_gl.glGetString(GL_VERSION);
	if (!version || sscanf(version, "OpenGL ES %d.%d", &ctx->gles_major, &ctx->gles_minor) != 2) {
		fprintf(stderr, GD_NAME ": unexpected GL_VERSION '%s'\n", version ? version : "(null)");
		return GD_EXIT_FAILURE;
	}
	if (ctx->gles_major * 10 + ctx->gles_minor < 32) {
		fprintf(stderr, GD_NAME ": needs OpenGL ES 3.2, the driver gives %s\n", version);
		return GD_EXIT_UNAVAILABLE;
	}
	return 0;
}

/* The first EGL device that is not Mesa's software renderer, else the first one: a GPU
 * machine with Mesa installed beside its driver lists both. */
static EGLDeviceEXT gd_device_choose(void)
{
	PFNEGLQUERYDEVICESEXTPROC query_devices =
		(PFNEGLQUERYDEVICESEXTPROC)gd_load_gl.eglGetProcAddress("eglQueryDevicesEXT");
	PFNEGLQUERYDEVICESTRINGEXTPROC query_string =
		(PFNEGLQUERYDEVICESTRINGEXTPROC)gd_load_gl.eglGetProcAddress("eglQueryDeviceStringEXT");
	EGLDeviceEXT devices[16];
	EGLint n = 0;
	if (!query_devices || !query_devices(16, devices, &n) || n < 1)
		return EGL_NO_DEVICE_EXT;
	for (EGLint i = 0; query_string && i < n; i++)
		if (!gd_extension_has(query_string(devices[i], EGL_EXTENSIONS), "EGL_MESA_device_software"))
			return devices[i];
	return devices[0];
}

static int gd_display_open(struct gd_context *ctx)
{
	const char *client = gd_load_gl.eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
	bool base = gd_extension_has(client, "EGL_EXT_platform_base");
	bool surfaceless = base && gd_extension_has(client, "EGL_MESA_platform_surfaceless");
	bool device = base && gd_extension_has(client, "EGL_EXT_platform_device") &&
		      gd_extension_has(client, "EGL_EXT_device_enumeration");
	int want = ctx->opt.egl_platform;
	if (want == GD_EGL_PLATFORM_AUTO)
		want = surfaceless || !device ? GD_EGL_PLATFORM_SURFACELESS : GD_EGL_PLATFORM_DEVICE;
	if (want == GD_EGL_PLATFORM_SURFACELESS && !surfaceless) {
		fprintf(stderr, GD_NAME ": EGL has no surfaceless platform (EGL_MESA_platform_surfaceless; "
				"Debian package libegl-mesa0)%s\n",
			ctx->opt.egl_platform == GD_EGL_PLATFORM_AUTO
				? " and no devices (EGL_EXT_platform_device, EGL_EXT_device_enumeration)"
				: "");
		return GD_EXIT_UNAVAILABLE;
	}
	if (want == GD_EGL_PLATFORM_DEVICE && !device) {
		fprintf(stderr, GD_NAME ": EGL has no devices (EGL_EXT_platform_device, "
				"EGL_EXT_device_enumeration)\n");
		return GD_EXIT_UNAVAILABLE;
	}
	if (want == GD_EGL_PLATFORM_SURFACELESS) {
		ctx->egl_platform = "surfaceless";
		ctx->display = gd_load_gl.eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA,
							   EGL_DEFAULT_DISPLAY, NULL);
	} else {
		EGLDeviceEXT dev = gd_device_choose();
		if (dev == EGL_NO_DEVICE_EXT) {
			fprintf(stderr, GD_NAME ": eglQueryDevicesEXT found no EGL device\n");
			return GD_EXIT_UNAVAILABLE;
		}
		ctx->egl_platform = "device";
		ctx->display = gd_load_gl.eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, dev, NULL);
	}
	EGLint major = 0, minor = 0;
	if (ctx->display == EGL_NO_DISPLAY || !gd_load_gl.eglInitialize(ctx->display, &major, &minor)) {
		gd_egl_fail(want == GD_EGL_PLATFORM_SURFACELESS ? "eglInitialize of the surfaceless display"
								: "eglInitialize of the EGL device's display");
		ctx->display = EGL_NO_DISPLAY;
		return GD_EXIT_UNAVAILABLE;
	}
	return 0;
}

int gd_egl_create(struct gd_context *ctx)
{
	int rc = gd_display_open(ctx);
	if (rc)
		return rc;
	if (!gd_load_gl.eglBindAPI(EGL_OPENGL_ES_API)) {
		gd_egl_fail("eglBindAPI(EGL_OPENGL_ES_API)");
		return GD_EXIT_UNAVAILABLE;
	}
	const EGLint config_attribs[] = {
		EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT,
		EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8,
		EGL_DEPTH_SIZE, 24, EGL_NONE,
	};
	EGLint count = 0;
	if (!gd_load_gl.eglChooseConfig(ctx->display, config_attribs, &ctx->config, 1, &count) || count < 1) {
		fprintf(stderr, GD_NAME ": no EGL config with a pbuffer, OpenGL ES 3, RGBA8 and "
				"depth 24 on the %s display\n", ctx->egl_platform);
		return GD_EXIT_UNAVAILABLE;
	}
	const EGLint context_attribs[] = {
		EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 2, EGL_NONE,
	};
	ctx->context = gd_load_gl.eglCreateContext(ctx->display, ctx->config, EGL_NO_CONTEXT,
					   context_attribs);
	if (ctx->context == EGL_NO_CONTEXT) {
		gd_egl_fail("eglCreateContext (OpenGL ES 3.2)");
		return GD_EXIT_UNAVAILABLE;
	}
	if (ctx->opt.no_surface) {
		if (!gd_extension_has(gd_load_gl.eglQueryString(ctx->display, EGL_EXTENSIONS),
				      "EGL_KHR_surfaceless_context")) {
			fprintf(stderr, GD_NAME ": --no-surface needs EGL_KHR_surfaceless_context\n");
			return GD_EXIT_UNAVAILABLE;
		}
		if (!gd_load_gl.eglMakeCurrent(ctx->display, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx->context)) {
			gd_egl_fail("eglMakeCurrent without a surface");
			return GD_EXIT_FAILURE;
		}
		return gd_version_parse(ctx);
	}
	const EGLint surface_attribs[] = {
		EGL_WIDTH, (EGLint)ctx->opt.width, EGL_HEIGHT, (EGLint)ctx->opt.height, EGL_NONE,
	};
	ctx->surface = gd_load_gl.eglCreatePbufferSurface(ctx->display, ctx->config, surface_attribs);
	if (ctx->surface == EGL_NO_SURFACE) {
		gd_egl_fail("eglCreatePbufferSurface");
		return GD_EXIT_FAILURE;
	}
	if (!gd_load_gl.eglMakeCurrent(ctx->display, ctx->surface, ctx->surface, ctx->context)) {
		gd_egl_fail("eglMakeCurrent");
		return GD_EXIT_FAILURE;
	}
	return gd_version_parse(ctx);
}

void gd_egl_destroy(struct gd_context *ctx)
{
	if (ctx->display == EGL_NO_DISPLAY)
		return;
	gd_load_gl.eglMakeCurrent(ctx->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	if (ctx->surface != EGL_NO_SURFACE)
		gd_load_gl.eglDestroySurface(ctx->display, ctx->surface);
	if (ctx->context != EGL_NO_CONTEXT)
		gd_load_gl.eglDestroyContext(ctx->display, ctx->context);
	gd_load_gl.eglTerminate(ctx->display);
	gd_load_gl.eglReleaseThread();
	ctx->display = EGL_NO_DISPLAY;
}

static void GL_APIENTRY gd_debug_message(GLenum source, GLenum type, GLuint id, GLenum severity,
					 GLsizei length, const GLchar *message,
					 const void *user)
{
	(void)source, (void)severity, (void)user;
	if (type != GL_DEBUG_TYPE_PERFORMANCE)
		return;
	/* One line per message, whatever the text holds: newlines become spaces. */
	printf("debug-message %u ", id);
	size_t n = length >= 0 ? (size_t)length : strlen(message);
	for (size_t i = 0; i < n; i++)
		putchar(message[i] == '\n' || message[i] == '\r' ? ' ' : message[i]);
	putchar('\n');
	fflush(stdout);
}

/* A debug context is not needed: Mesa delivers messages to any context with
 * GL_DEBUG_OUTPUT enabled. Synchronous, so messages arrive on the thread and at the call
 * that caused them. */
int gd_egl_debug_callback_install(int mute)
{
	gd_load_gl.glDebugMessageCallback(gd_debug_message, NULL);
	gd_load_gl.glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, NULL, GL_TRUE);
	/* --debug-mute: what a tool delivering third-party messages must respect. */
	if (mute == GD_DEBUG_MUTE_THIRD_PARTY)
		gd_load_gl.glDebugMessageControl(GL_DEBUG_SOURCE_THIRD_PARTY, GL_DEBUG_TYPE_PERFORMANCE, GL_DONT_CARE, 0,
					 NULL, GL_FALSE);
	gd_load_gl.glEnable(GL_DEBUG_OUTPUT);
	if (mute == GD_DEBUG_MUTE_OUTPUT)
		gd_load_gl.glDisable(GL_DEBUG_OUTPUT);
	gd_load_gl.glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
	return gd_scene_check_error("installing the debug callback");
}

void gd_egl_debug_insert(void)
{
	gd_load_gl.glDebugMessageInsert(GL_DEBUG_SOURCE_APPLICATION, GL_DEBUG_TYPE_PERFORMANCE,
				GD_DEBUG_INSERT_ID, GL_DEBUG_SEVERITY_LOW, -1,
				GD_NAME " inserted this message");
}
