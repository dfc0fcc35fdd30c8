/* x11_key: runs a windowed program that stops on a key and has no other way to stop by
 * itself (es2gears_x11 exits on Escape), and presses that key in its window AFTER_MS after
 * its first top-level window is mapped: a synthetic KeyPress (XSendEvent), which the
 * program's event loop reads like a real one. The program then exits through its own path
 * (exit(), passprobe's outputs complete).
 *
 *   x11_key [--after-ms N] [--timeout-ms N] -- PROGRAM [ARGS...]
 *
 * The key is Escape. Exit: the program's status (128 + N for signal N); 124 when it did not
 * exit within TIMEOUT_MS (it is killed); 125 on our own failure. */
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

#define KEYSYM_ESCAPE 0xff1bu

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static xcb_keycode_t keycode_of(xcb_connection_t *c, uint32_t keysym)
{
	const xcb_setup_t *setup = xcb_get_setup(c);
	uint8_t first = setup->min_keycode, count = (uint8_t)(setup->max_keycode - setup->min_keycode + 1);
	xcb_get_keyboard_mapping_reply_t *m =
		xcb_get_keyboard_mapping_reply(c, xcb_get_keyboard_mapping(c, first, count), NULL);
	xcb_keycode_t code = 0;
	if (!m)
		return 0;
	xcb_keysym_t *syms = xcb_get_keyboard_mapping_keysyms(m);
	int per = m->keysyms_per_keycode;
	for (int k = 0; k < count && !code; k++)
		for (int j = 0; j < per; j++)
			if (syms[k * per + j] == keysym)
				code = (xcb_keycode_t)(first + k);
	free(m);
	return code;
}

/* The first mapped top-level window, or XCB_WINDOW_NONE. */
static xcb_window_t window_find(xcb_connection_t *c, xcb_window_t root)
{
	xcb_window_t found = XCB_WINDOW_NONE;
	xcb_query_tree_reply_t *tree = xcb_query_tree_reply(c, xcb_query_tree(c, root), NULL);
	if (!tree)
		return found;
	xcb_window_t *kids = xcb_query_tree_children(tree);
	for (int i = 0; i < xcb_query_tree_children_length(tree) && found == XCB_WINDOW_NONE; i++) {
		xcb_get_window_attributes_reply_t *a =
			xcb_get_window_attributes_reply(c, xcb_get_window_attributes(c, kids[i]), NULL);
		if (a && a->map_state == XCB_MAP_STATE_VIEWABLE && !a->override_redirect)
			found = kids[i];
		free(a);
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
			fprintf(stderr, "usage: x11_key [--after-ms N] [--timeout-ms N] -- PROGRAM [ARGS...]\n");
			return 125;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "x11_key: no program\n");
		return 125;
	}
	int screen = 0;
	xcb_connection_t *c = xcb_connect(NULL, &screen);
	if (xcb_connection_has_error(c)) {
		fprintf(stderr, "x11_key: cannot connect to the X server\n");
		return 125;
	}
	xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(c));
	for (int s = 0; s < screen; s++)
		xcb_screen_next(&it);
	xcb_window_t root = it.data->root;
	xcb_keycode_t key = keycode_of(c, KEYSYM_ESCAPE);
	if (!key) {
		fprintf(stderr, "x11_key: the X server has no Escape key\n");
		return 125;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("x11_key: fork");
		return 125;
	}
	if (pid == 0) {
		execvp(argv[i + 1], argv + i + 1);
		fprintf(stderr, "x11_key: %s: %s\n", argv[i + 1], strerror(errno));
		_exit(127);
	}
	uint64_t start = now_ms(), press_at = 0, last_press = 0;
	int status = 0;
	for (;;) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		uint64_t t = now_ms();
		if (t - start > (uint64_t)timeout_ms) {
			fprintf(stderr, "x11_key: %s still running after %ld ms; killed\n", argv[i + 1], timeout_ms);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return 124;
		}
		xcb_window_t win = window_find(c, root);
		if (win != XCB_WINDOW_NONE && !press_at)
			press_at = t + (uint64_t)after_ms;
		/* Pressed again every second until the program goes. */
		if (win != XCB_WINDOW_NONE && t >= press_at && t - last_press >= 1000) {
			xcb_key_press_event_t ev = { .response_type = XCB_KEY_PRESS, .detail = key, .root = root,
						     .event = win, .child = XCB_WINDOW_NONE, .same_screen = 1,
						     .time = XCB_CURRENT_TIME };
			xcb_send_event(c, 1, win, XCB_EVENT_MASK_KEY_PRESS, (const char *)&ev);
			xcb_flush(c);
			last_press = t;
		}
		usleep(20000);
	}
	xcb_disconnect(c);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
