/* The HTML report: one self-contained page (no network: inline CSS and JavaScript, a
 * Content-Security-Policy that allows nothing else) holding the report.json it was made from
 * in a <script type="application/json"> element, drawn by html/report.js. Written by
 * `passprobe report --html FILE` and, next to the other outputs, by `passprobe run`. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pp_json.h"
#include "passprobe_cli.h"

/* Generated at build time from html/report.css and html/report.js (html/embed.cmake). */
#include "html_report_css.h"
#include "html_report_js.h"

/* Text for element content and attribute values. */
static void html_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* JSON inside <script>: the element ends at the first "</script" whatever the JSON means, and
 * "<!--" changes how it is parsed, so every '<' is written as the JSON escape \u003c. A '<'
 * occurs in JSON only inside strings, where the escape means the same character. */
static void html_script_json(FILE *f, const char *json, size_t len)
{
	size_t from = 0;
	for (size_t i = 0; i < len; i++) {
		if (json[i] != '<')
			continue;
		fwrite(json + from, 1, i - from, f);
		fputs("\\u003c", f);
		from = i + 1;
	}
	fwrite(json + from, 1, len - from, f);
}

static void html_page(FILE *f, const struct cli_report *r, const char *json, size_t len)
{
	const char *name = pp_json_read_get_string(
		pp_json_read_object_get(pp_json_read_object_get(r->root, "process"), "name"), NULL);
	if (!name)
		name = "?";
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      /* Nothing is fetched: not even by a browser extension's rewrite of the page. */
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"generator\" content=\"passprobe " PASSPROBE_VERSION "\">\n<title>passprobe: ",
	      f);
	html_escape(f, name);
	fputs("</title>\n<style>\n", f);
	fputs(html_report_css, f);
	fputs("</style>\n</head>\n<body>\n<div id=\"pp-error\" hidden></div>\n<h1 id=\"pp-title\">"
	      "passprobe report: ",
	      f);
	html_escape(f, name);
	fputs("</h1>\n"
	      "<noscript><p>This page draws its charts and tables with JavaScript, which is off "
	      "here. The data is in the page source (the element <code>pp-data</code>): the "
	      "report.json it was made from.</p></noscript>\n"
	      "<section><div id=\"pp-meta\"></div></section>\n"
	      "<section><h2>GPU time per frame, by pass</h2>\n"
	      "<p class=\"explain\">One column per frame kept in report.json; each band is a pass's "
	      "exclusive GPU time (time shared by overlapping passes counted once), so a column is "
	      "as high as the frame's GPU time. A dashed column: the frame's GPU time is "
	      "unavailable. Hover for the values; click a column to see that frame's time line "
	      "below.</p>\n<div id=\"pp-stack\"></div></section>\n"
	      "<section><h2>Frame time line</h2><div id=\"pp-timeline-controls\"></div>\n"
	      "<p class=\"explain\">On the host clock. CPU rows: the "
	      "recording of each pass and the submit calls, per thread, and the application's "
	      "blocking calls; GPU rows: each submission (outlined) and its passes, per queue "
	      "(overlapping passes on separate lanes).</p>\n<div id=\"pp-timeline\"></div></section>\n"
	      "<section id=\"pp-summary\"><h2>Passes</h2><p id=\"pp-frame-line\"></p>\n"
	      "<p class=\"explain\">Over every frame of the run (the report's summary, as "
	      "<code>passprobe report</code> prints it). GPU times are those of one pass "
	      "instance; share is its part of all the GPU time measured; cpu record is the "
	      "mean CPU time of recording one instance. Click a column's title to sort by it.</p>\n"
	      "</section>\n"
	      "<section id=\"pp-diagnostics\"><h2>Diagnostics</h2>\n"
	      "<p class=\"explain\">One row per site; the cost is per frame the site occurred in "
	      "(docs/diagnostics.md says how each is measured).</p>\n</section>\n"
	      "<section id=\"pp-cpu\"><h2>CPU counters per pass</h2>\n"
	      "<p class=\"explain\">Recording one pass instance: the mean over the instances in the "
	      "frames kept in report.json of the wall time, the thread's CPU time and each "
	      "configured CPU counter; unavailable where a counter could not be read.</p>\n"
	      "</section>\n<footer>Made by passprobe " PASSPROBE_VERSION " from ",
	      f);
	html_escape(f, r->path);
	fputs(".</footer>\n<script type=\"application/json\" id=\"pp-data\">", f);
	html_script_json(f, json, len);
	fputs("</script>\n<script>\n", f);
	fputs(html_report_js, f);
	fputs("</script>\n</body>\n</html>\n", f);
}

int passprobe_html_write(const struct cli_report *r, const char *html_path)
{
	struct pp_json_writer w;
	pp_json_write_init_mem(&w, 0, 0);
	pp_json_read_value_write(&w, r->root);
	size_t len = 0;
	int err = pp_json_write_finish(&w);
	const char *json = pp_json_write_mem(&w, &len);
	if (err) {
		fprintf(stderr, "passprobe: %s: cannot make the HTML report: %s\n", r->path,
			strerror(-err));
		pp_json_write_release(&w);
		return -1;
	}

	/* Written beside the target and renamed over it: a browser reloading the page never
	 * sees half of it. */
	char tmp[PATH_MAX + 32];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", html_path, (int)getpid()) >= (int)sizeof(tmp)) {
		fprintf(stderr, "passprobe: path too long: %s\n", html_path);
		pp_json_write_release(&w);
		return -1;
	}
	FILE *f = fopen(tmp, "wx");
	if (!f && errno == EEXIST && unlink(tmp) == 0)
		f = fopen(tmp, "wx");
	if (!f) {
		fprintf(stderr, "passprobe: cannot write the HTML report %s: %s\n", html_path,
			strerror(errno));
		pp_json_write_release(&w);
		return -1;
	}
	html_page(f, r, json, len);
	pp_json_write_release(&w);
	err = ferror(f) ? (errno ? errno : EIO) : 0;
	if (fclose(f) != 0 && !err)
		err = errno;
	if (!err && rename(tmp, html_path) != 0)
		err = errno;
	if (err) {
		unlink(tmp);
		fprintf(stderr, "passprobe: cannot write the HTML report %s: %s\n", html_path,
			strerror(err));
		return -1;
	}
	return 0;
}
