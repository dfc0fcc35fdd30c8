/* x11_close: runs a windowed program that has no option to stop by itself (vkd3d-gears), and
 * closes its window the way a window manager would: a WM_DELETE_WINDOW client message, sent
 * AFTER_MS after the first top-level window that accepts it appears. The program then exits
 * through its own clean-up path (device destroyed, passprobe's outputs complete).
 *
 *   x11_close [--after-ms N] [--timeout-ms N] -- PROGRAM [ARGS...]
 *
 * Exit: the program's status (128 + N for signal N); 124 when it did not exit within
 * TIMEOUT_MS (it is killed); 125 on our own failure (no DISPLAY, fork). */

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xcb/xcb.h>

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static xcb_atom_t atom_get(xcb_connection_t *c, const char *name)
{
	xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(c, xcb_intern_atom(c, 0, (uint16_t)strlen(name), name), NULL);
	xcb_atom_t a = r ? r->atom : XCB_ATOM_NONE;
	free(r);
	return a;
}

/* A top-level window whose WM_PROTOCOLS lists WM_DELETE_WINDOW, or XCB_WINDOW_NONE. */
static xcb_window_t window_find(xcb_connection_t *c, xcb_window_t root, xcb_atom_t protocols, xcb_atom_t del)
{
	xcb_window_t found = XCB_WINDOW_NONE;
	xcb_query_tree_reply_t *tree = xcb_query_tree_reply(c, xcb_query_tree(c, root), NULL);
	if (!tree)
		return found;
	xcb_window_t *kids = xcb_query_tree_children(tree);
	for (int i = 0; i < xcb_query_tree_children_length(tree) && found == XCB_WINDOW_NONE; i++) {
		xcb_get_property_reply_t *p =
			xcb_get_property_reply(c, xcb_get_property(c, 0, kids[i], protocols, XCB_ATOM_ATOM, 0, 32), NULL);
		if (!p)
			continue;
		xcb_atom_t *v = xcb_get_property_value(p);
		for (int k = 0; k < xcb_get_property_value_length(p) / 4; k++)
			if (v[k] == del)
				found = kids[i];
		free(p);
	}
	free(tree);
	return found;
}

int main(int argc, char **argv)
{
	long after_ms = 1000, timeout_ms = 30000;
	int i = 1;
	for (; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--after-ms") && i + 1 < argc)
			after_ms = atol(argv[++i]);
		else if (!strcmp(argv[i], "--timeout-ms") && i + 1 < argc)
			timeout_ms = atol(argv[++i]);
		else {
			fprintf(stderr, "usage: x11_close [--after-ms N] [--timeout-ms N] -- PROGRAM [ARGS...]\n");
			return 125;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "x11_close: no program\n");
		return 125;
	}
	int screen = 0;
	xcb_connection_t *c = xcb_connect(NULL, &screen);
	if (xcb_connection_has_error(c)) {
		fprintf(stderr, "x11_close: cannot connect to the X server (DISPLAY=%s)\n", getenv("DISPLAY") ? getenv("DISPLAY") : "");
		return 125;
	}
	xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(c));
	for (int s = 0; s < screen; s++)
		xcb_screen_next(&it);
	xcb_window_t root = it.data->root;
	xcb_atom_t protocols = atom_get(c, "WM_PROTOCOLS"), del = atom_get(c, "WM_DELETE_WINDOW");

	pid_t pid = fork();
	if (pid < 0) {
		perror("x11_close: fork");
		return 125;
	}
	if (pid == 0) {
		execvp(argv[i + 1], argv + i + 1);
		fprintf(stderr, "x11_close: %s: %s\n", argv[i + 1], strerror(errno));
		_exit(127);
	}
	uint64_t start = now_ms(), close_at = 0;
	bool sent = false;
	int status = 0;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		uint64_t t = now_ms();
		if (t - start > (uint64_t)timeout_ms) {
			fprintf(stderr, "x11_close: %s still running after %ld ms%s; killed\n", argv[i + 1], timeout_ms,
				sent ? " and a WM_DELETE_WINDOW" : " (no window to close appeared)");
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return 124;
		}
		if (!sent) {
			xcb_window_t win = window_find(c, root, protocols, del);
			if (win != XCB_WINDOW_NONE && !close_at)
				close_at = t + (uint64_t)after_ms;
			if (win != XCB_WINDOW_NONE && t >= close_at) {
				xcb_client_message_event_t ev = { .response_type = XCB_CLIENT_MESSAGE, .format = 32,
								  .window = win, .type = protocols };
				ev.data.data32[0] = del;
				ev.data.data32[1] = XCB_CURRENT_TIME;
				xcb_send_event(c, 0, win, XCB_EVENT_MASK_NO_EVENT, (const char *)&ev);
				xcb_flush(c);
				sent = true;
			}
		}
		usleep(20000);
	}
	xcb_disconnect(c);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
