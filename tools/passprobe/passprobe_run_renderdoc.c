/* `passprobe run --renderdoc FRAMES`: RenderDoc's capture layer enabled above passprobe, its
 * library preloaded after the OpenGL ES shim, the frames to capture handed to both
 * (renderdoc_frames), the captures written next to passprobe's outputs
 * (docs/frame-debuggers.md, docs/gles.md "RenderDoc"). */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "passprobe_cli.h"
#include "pp_dir.h"
#include "pp_json.h"
#include "pp_settings.h"

#define RDOC_LAYER "VK_LAYER_RENDERDOC_Capture"

/* RenderDoc's library, as its layer's manifest names it (passprobe_run_renderdoc_prepare). */
static char rdoc_library[PATH_MAX];

/* The implicit-layer folders the Vulkan loader searches (docs of the loader's
 * LoaderLayerInterface.md, "Linux Layer Discovery"), for RenderDoc's manifest. */
static size_t implicit_dirs(char dirs[][PATH_MAX], size_t max)
{
	size_t n = 0;
	const char *home = getenv("HOME");
	const char *config_home = getenv("XDG_CONFIG_HOME");
	const char *config_dirs = getenv("XDG_CONFIG_DIRS");
	const char *data_home = getenv("XDG_DATA_HOME");
	const char *data_dirs = getenv("XDG_DATA_DIRS");
	char list[4 * PATH_MAX];
	int len = 0;

	if (config_home && *config_home)
		len += snprintf(list + len, sizeof(list) - (size_t)len, "%s:", config_home);
	else if (home && *home)
		len += snprintf(list + len, sizeof(list) - (size_t)len, "%s/.config:", home);
	len += snprintf(list + len, sizeof(list) - (size_t)len, "%s:/etc:",
			config_dirs && *config_dirs ? config_dirs : "/etc/xdg");
	if (data_home && *data_home)
		len += snprintf(list + len, sizeof(list) - (size_t)len, "%s:", data_home);
	else if (home && *home)
		len += snprintf(list + len, sizeof(list) - (size_t)len, "%s/.local/share:", home);
	snprintf(list + len, sizeof(list) - (size_t)len, "%s",
		 data_dirs && *data_dirs ? data_dirs : "/usr/local/share:/usr/share");
	for (char *save = NULL, *d = strtok_r(list, ":", &save); d && n < max; d = strtok_r(NULL, ":", &save))
		if (*d && snprintf(dirs[n], PATH_MAX, "%s/vulkan/implicit_layer.d", d) < PATH_MAX)
			n++;
	return n;
}

/* Whether manifest `path` describes RenderDoc's layer and its library exists. */
static bool manifest_is_renderdoc(const char *path, char *library, size_t library_len)
{
	char *text = NULL;
	size_t len = 0;
	if (passprobe_load_read_file(path, 1 << 20, &text, &len) != 0)
		return false;
	struct pp_json_value *root = NULL;
	bool ok = pp_json_read_parse(text, len, NULL, &root, NULL, 0) == 0;
	free(text);
	if (!ok)
		return false;
	const struct pp_json_value *layer = pp_json_read_object_get(root, "layer");
	const char *name = pp_json_read_get_string(pp_json_read_object_get(layer, "name"), NULL);
	const char *lib = pp_json_read_get_string(pp_json_read_object_get(layer, "library_path"), NULL);
	ok = name && lib && strcmp(name, RDOC_LAYER) == 0;
	if (ok) {
		/* A relative library path is relative to the manifest's folder. */
		if (lib[0] == '/') {
			snprintf(library, library_len, "%s", lib);
		} else {
			const char *slash = strrchr(path, '/');
			snprintf(library, library_len, "%.*s/%s", slash ? (int)(slash - path) : 1, slash ? path : ".", lib);
		}
		ok = access(library, R_OK) == 0;
	}
	pp_json_read_free(root);
	return ok;
}

static bool renderdoc_find(char *library, size_t library_len, char *looked, size_t looked_len)
{
	char dirs[16][PATH_MAX];
	size_t n = implicit_dirs(dirs, 16), at = 0;
	looked[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		at += (size_t)snprintf(looked + at, at < looked_len ? looked_len - at : 0, "%s%s", i ? ", " : "", dirs[i]);
		if (at >= looked_len)
			at = looked_len - 1;
		char path[PATH_MAX + 64];
		/* Debian's librenderdoc names it so; other manifests of the folder are read too. */
		snprintf(path, sizeof(path), "%s/renderdoc_capture.json", dirs[i]);
		if (manifest_is_renderdoc(path, library, library_len))
			return true;
		DIR *d = opendir(dirs[i]);
		for (struct dirent *e; d && (e = readdir(d));) {
			size_t l = strlen(e->d_name);
			if (l < 5 || strcmp(e->d_name + l - 5, ".json") != 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[i], e->d_name);
			if (manifest_is_renderdoc(path, library, library_len)) {
				closedir(d);
				return true;
			}
		}
		if (d)
			closedir(d);
	}
	return false;
}

int passprobe_run_renderdoc_prepare(const char *frames, const char *output_dir, const char *program)
{
	char library[PATH_MAX], looked[2048];
	if (!renderdoc_find(library, sizeof(library), looked, sizeof(looked))) {
		fprintf(stderr,
			"passprobe: --renderdoc: RenderDoc's capture layer (" RDOC_LAYER ") is not installed: no "
			"manifest naming it with a readable library in %s. On Debian: apt install librenderdoc "
			"(and renderdoc to read the captures); nothing was run\n",
			looked);
		return -1;
	}
	if (!output_dir || !output_dir[0] || strstr(output_dir, "%p")) {
		fprintf(stderr, "passprobe: --renderdoc: give the output directory with -o DIR (without %%p): the "
				"captures go to DIR/renderdoc; nothing was run\n");
		return -1;
	}
	char capture_dir[PATH_MAX];
	if (snprintf(capture_dir, sizeof(capture_dir), "%s/renderdoc", output_dir) >= (int)sizeof(capture_dir)) {
		fprintf(stderr, "passprobe: --renderdoc: the output directory's path is too long; nothing was run\n");
		return -1;
	}
	char failed_at[PATH_MAX];
	int err = pp_dir_make(capture_dir, failed_at, sizeof(failed_at));
	if (err) {
		fprintf(stderr, "passprobe: --renderdoc: cannot create '%s': %s; nothing was run\n", failed_at,
			strerror(-err));
		return -1;
	}
	/* RenderDoc appends "_capture.rdc" (or "_frame<N>.rdc" for a capture of its own) to this
	 * template, and a number to each later one. */
	const char *base = strrchr(program, '/');
	char template[PATH_MAX + 256];
	snprintf(template, sizeof(template), "%s/%s", capture_dir, base ? base + 1 : program);
	if (setenv("ENABLE_VULKAN_RENDERDOC_CAPTURE", "1", 1) != 0 || setenv("RENDERDOC_CAPFILE", template, 1) != 0 ||
	    setenv(PP_SETTINGS_ENV_PREFIX "RENDERDOC_FRAMES", frames, 1) != 0) {
		fprintf(stderr, "passprobe: --renderdoc: cannot set the environment: %s\n", strerror(errno));
		return -1;
	}
	snprintf(rdoc_library, sizeof(rdoc_library), "%s", library);
	fprintf(stderr, "passprobe: RenderDoc (%s) captures frames %s into %s\n", library, frames, capture_dir);
	return 0;
}

int passprobe_run_renderdoc_preload(void)
{
	const char *old = getenv("LD_PRELOAD");
	if (!rdoc_library[0] || (old && strstr(old, rdoc_library)))
		return 0;
	/* After the shim, which must come first in the symbol search order: it passes the
	 * application's OpenGL ES calls on to RenderDoc and measures RenderDoc's calls down, and
	 * tells RenderDoc's own work apart (docs/gles.md, "RenderDoc"). */
	size_t len = (old ? strlen(old) : 0) + 1 + strlen(rdoc_library) + 1;
	char *v = malloc(len);
	if (!v)
		return -1;
	snprintf(v, len, "%s%s%s", old && old[0] ? old : "", old && old[0] ? ":" : "", rdoc_library);
	/* RenderDoc, loaded, sets LD_PRELOAD and LD_LIBRARY_PATH for the processes the program
	 * starts to these (its own launcher passes the values from before it added itself):
	 * unset, both would be emptied, and a program started through a launcher (a shell script)
	 * would run with neither the shim nor RenderDoc. */
	const char *libpath = getenv("LD_LIBRARY_PATH");
	int rc = setenv("LD_PRELOAD", v, 1) || setenv("RENDERDOC_ORIGPRELOAD", v, 1) ||
			 setenv("RENDERDOC_ORIGLIBPATH", libpath ? libpath : "", 1)
		 ? -1
		 : 0;
	free(v);
	return rc;
}

void passprobe_run_renderdoc_self_check(const char *program, bool renderdoc)
{
	/* RenderDoc preloaded into passprobe itself (LD_PRELOAD=librenderdoc.so passprobe run ...)
	 * took itself out of LD_PRELOAD as it loaded, as it does in every process it is loaded
	 * into: without a word, the program would run without it. */
	void *h = dlopen("librenderdoc.so", RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return;
	dlclose(h);
	fprintf(stderr, "passprobe: warning: RenderDoc is loaded into passprobe itself (LD_PRELOAD): as it loaded it "
			"took itself out of LD_PRELOAD, so '%s' runs without it%s (docs/frame-debuggers.md)\n",
		program, renderdoc ? "; --renderdoc preloads it for the program" : "; passprobe run --renderdoc FRAMES "
										  "runs the program with it");
}
